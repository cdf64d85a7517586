import { raw } from '@mikro-orm/postgresql';
import { BOOKING_CHANNELS } from '../../domain/journey-confirmation.js';
import { CompanyBookingSettings } from '../entities/company.js';
import type { Database, TransactionClient } from '../orm.js';
import type { BookingSettings, StoredBookingSettings } from '../queries/booking-settings.js';
import type { ActingMember } from './acting-member.js';
import { companyTransaction } from './active-company.js';
import { recordStaffAct, type RequestOrigin } from './audit.js';

/**
 * Creates or replaces the company's settings through the transaction's EntityManager (a dashboard
 * CRUD write, db/entities/index.ts); channels are stored in their canonical order. One upsert, so
 * two first saves at once cannot both insert.
 */
async function upsertBookingSettings(
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

/**
 * Saves a company user's change of the settings and records it (company.booking_settings.update).
 * Only a verified company changes them (SPEC): `verified` is read again with the company row, so an
 * unverification committed while the change waited refuses it (403 COMPANY_NOT_VERIFIED).
 */
export async function saveBookingSettings(
  db: Database,
  change: { companyId: string; settings: BookingSettings; staffUserId: string; actor?: ActingMember },
  origin: RequestOrigin,
): Promise<StoredBookingSettings> {
  const company = { companyId: change.companyId, actor: change.actor, requireVerified: true };
  return companyTransaction(db, company, 'share', async (client) => {
    const settings = await upsertBookingSettings(
      client,
      change.companyId,
      change.settings,
      change.staffUserId,
    );
    const { mode, decisionWindowMinutes, channels } = settings;
    const actor = { staffUserId: change.staffUserId, ...origin };
    const target = { kind: 'company', id: change.companyId };
    await recordStaffAct(client, actor, 'company.booking_settings.update', target, {
      mode,
      decisionWindowMinutes,
      channels,
    });
    return settings;
  });
}
