import type { PoolClient } from 'pg';
import {
  BOOKING_CHANNELS,
  type BookingChannel,
  type ConfirmationMode,
} from '../../domain/journey-confirmation.js';
import { camelFields } from '../row-fields.js';

/**
 * A company's booking confirmation settings (SPEC "Booking confirmation settings"). They apply
 * when a journey is confirmed; a change never touches requests already waiting for a decision.
 */
export interface BookingSettings {
  mode: ConfirmationMode;
  decisionWindowMinutes: number;
  channels: BookingChannel[];
}

export interface StoredBookingSettings extends BookingSettings {
  updatedBy: string | null;
  updatedAt: Date | null;
}

/** What a company without a row gets: every booking confirmed at once. */
export const DEFAULT_BOOKING_SETTINGS: BookingSettings = {
  mode: 'AUTO_CONFIRM',
  decisionWindowMinutes: 15,
  channels: [...BOOKING_CHANNELS],
};

interface SettingsRow {
  mode: ConfirmationMode;
  decision_window_minutes: number;
  channels: BookingChannel[];
  updated_by: string | null;
  /** timestamptz arrives from the ORM's pool as PostgreSQL text. */
  updated_at: string;
}

function toStoredSettings(row: SettingsRow): StoredBookingSettings {
  return {
    ...camelFields(row, ['mode', 'decision_window_minutes', 'channels', 'updated_by']),
    updatedAt: new Date(row.updated_at),
  };
}

export async function readBookingSettings(
  q: Pick<PoolClient, 'query'>,
  companyId: string,
): Promise<StoredBookingSettings> {
  const { rows } = await q.query<SettingsRow>(
    'select mode, decision_window_minutes, channels, updated_by, updated_at from company_booking_settings where company_id = $1',
    [companyId],
  );
  return rows[0]
    ? toStoredSettings(rows[0])
    : { ...DEFAULT_BOOKING_SETTINGS, updatedBy: null, updatedAt: null };
}
