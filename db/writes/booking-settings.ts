import { raw } from '@mikro-orm/postgresql';
import { BOOKING_CHANNELS } from '../../domain/journey-confirmation.js';
import { CompanyBookingSettings } from '../entities/company.js';
import type { TransactionClient } from '../orm.js';
import type { BookingSettings, StoredBookingSettings } from '../queries/booking-settings.js';

/**
 * Creates or replaces the company's settings through the transaction's EntityManager (a dashboard
 * CRUD write, db/entities/index.ts); channels are stored in their canonical order. One upsert, so
 * two first saves at once cannot both insert.
 */
export async function saveBookingSettings(
  sql: TransactionClient,
  companyId: string,
  settings: BookingSettings,
  updatedBy: string | null,
): Promise<StoredBookingSettings> {
  const saved = await sql.em.upsert(CompanyBookingSettings, {
    companyId,
    mode: settings.mode,
    decisionWindowMinutes: settings.decisionWindowMinutes,
    channels: BOOKING_CHANNELS.filter((channel) => settings.channels.includes(channel)),
    updatedBy,
    updatedAt: raw<Date>('now()'),
  });
  return {
    mode: saved.mode,
    decisionWindowMinutes: saved.decisionWindowMinutes,
    channels: saved.channels,
    updatedBy: saved.updatedBy ?? null,
    updatedAt: saved.updatedAt,
  };
}
