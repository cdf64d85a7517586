import type { PoolClient } from 'pg';
import { demoCompany } from './demo-identities.js';

/**
 * Company settings demo data, so the dashboard's settings page and the report PDFs' letterhead have
 * an address to show on first start: the four production companies' head offices in both
 * languages, and Al-Qadmous with its own cancellation cut-off of three hours (the others keep the
 * platform's). Reports and analytics need no data of their own: they read the demo bookings.
 * Idempotent: one row per company, "on conflict do nothing".
 */
const SETTINGS: [companyKey: string, addressAr: string, addressEn: string, cutoffMinutes: number | null][] = [
  ['qadmous', 'دمشق، كراج البولمان، مكتب 12', 'Damascus, Pullman station, office 12', 180],
  ['ahliah', 'حلب، كراج الراموسة', 'Aleppo, Ramouseh station', null],
  ['zeinobia', 'حمص، شارع الحضارة', 'Homs, Al-Hadara street', null],
  ['sahel', 'اللاذقية، كراج البولمان', 'Latakia, Pullman station', null],
];

export async function seedDemoInsight(client: PoolClient): Promise<void> {
  for (const [key, addressAr, addressEn, cutoff] of SETTINGS) {
    await client.query(
      `insert into company_settings (company_id, address_ar, address_en, cancellation_cutoff_minutes)
       values ($1, $2, $3, $4) on conflict (company_id) do nothing`,
      [demoCompany(key).id, addressAr, addressEn, cutoff],
    );
  }
}
