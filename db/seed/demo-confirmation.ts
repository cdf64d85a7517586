import type { PoolClient } from 'pg';
import { BOOKING_CHANNELS } from '../../domain/journey-confirmation.js';
import { DEFAULT_BOOKING_SETTINGS } from '../queries/booking-settings.js';
import { DEMO_COMPANIES } from './demo-identities.js';

/**
 * Booking confirmation settings of the demo companies: Al-Qadmous confirms manually with a
 * 15-minute decision window on every channel (to try the decision flow), the others confirm at
 * once. A company that already has settings keeps them, so a rerun never undoes a change made in
 * the dashboard.
 */
export async function seedDemoConfirmation(client: PoolClient): Promise<void> {
  const rows = DEMO_COMPANIES.map((company) => ({
    company_id: company.id,
    mode: company.confirmation.mode,
    decision_window_minutes:
      company.confirmation.decisionWindowMinutes ?? DEFAULT_BOOKING_SETTINGS.decisionWindowMinutes,
  }));
  await client.query(
    `insert into company_booking_settings (company_id, mode, decision_window_minutes, channels)
     select company_id, mode, decision_window_minutes, $2::text[]
     from jsonb_to_recordset($1::jsonb) as s(company_id uuid, mode text, decision_window_minutes integer)
     on conflict (company_id) do nothing`,
    [JSON.stringify(rows), [...BOOKING_CHANNELS]],
  );
}
