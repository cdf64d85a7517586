import type { SqlRunner } from '../sql-runner.js';
import { rowsOf } from '../sql-runner.js';
import { camelFields } from '../row-fields.js';
import { publicStopSql } from './catalogue.js';

/**
 * A company's profile and operating settings as the dashboard shows them: names, contact,
 * cancellation cut-off and default pickup point. Names, phone and e-mail are the companies row's;
 * the rest is company_settings (a company without a row has the defaults).
 */
export interface CompanySettingsView {
  companyId: string;
  slug: string;
  nameAr: string;
  nameEn: string;
  status: 'ACTIVE' | 'SUSPENDED';
  verified: boolean;
  published: boolean;
  phone: string | null;
  email: string | null;
  addressAr: string;
  addressEn: string;
  /** The company's own cut-off; null: the platform's default applies. */
  cancellationCutoffMinutes: number | null;
  /** Named by its stop id, the id GET and POST /pickup-locations show for a pickup point. */
  defaultPickupLocation: {
    stopId: string;
    nameAr: string;
    nameEn: string;
    cityId: string;
    cityNameAr: string;
    cityNameEn: string;
  } | null;
  updatedBy: string | null;
  updatedAt: Date | null;
}

/** timestamptz as PostgreSQL text. */
interface SettingsRow {
  id: string;
  slug: string;
  name_ar: string;
  name_en: string;
  status: 'ACTIVE' | 'SUSPENDED';
  verified: boolean;
  published: boolean;
  phone: string | null;
  email: string | null;
  address_ar: string | null;
  address_en: string | null;
  cancellation_cutoff_minutes: number | null;
  pickup_stop_id: string | null;
  pickup_name_ar: string | null;
  pickup_name_en: string | null;
  pickup_city_id: string | null;
  pickup_city_name_ar: string | null;
  pickup_city_name_en: string | null;
  updated_by: string | null;
  updated_at: string | null;
}

function toView(row: SettingsRow): CompanySettingsView {
  return {
    companyId: row.id,
    ...camelFields(row, ['slug', 'name_ar', 'name_en', 'status', 'verified', 'published', 'phone', 'email']),
    addressAr: row.address_ar ?? '',
    addressEn: row.address_en ?? '',
    cancellationCutoffMinutes: row.cancellation_cutoff_minutes,
    defaultPickupLocation: row.pickup_stop_id
      ? {
          stopId: row.pickup_stop_id,
          nameAr: row.pickup_name_ar!,
          nameEn: row.pickup_name_en!,
          cityId: row.pickup_city_id!,
          cityNameAr: row.pickup_city_name_ar!,
          cityNameEn: row.pickup_city_name_en!,
        }
      : null,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at ? new Date(row.updated_at) : null,
  };
}

export async function readCompanySettings(
  runner: SqlRunner,
  companyId: string,
): Promise<CompanySettingsView> {
  const [row] = await rowsOf<SettingsRow>(
    runner,
    `select c.id, c.slug, c.name_ar, c.name_en, c.status, c.verified, c.published, c.phone, c.email,
            s.address_ar, s.address_en, s.cancellation_cutoff_minutes, s.updated_by, s.updated_at,
            st.id as pickup_stop_id, st.name_ar as pickup_name_ar, st.name_en as pickup_name_en,
            ci.id as pickup_city_id, ci.name_ar as pickup_city_name_ar, ci.name_en as pickup_city_name_en
       from companies c
       left join company_settings s on s.company_id = c.id
       left join pickup_locations pl on pl.id = s.default_pickup_location_id
       left join stops st on st.id = pl.stop_id
       left join cities ci on ci.id = pl.city_id
      where c.id = $1`,
    [companyId],
  );
  if (!row) throw new Error(`no company ${companyId}`);
  return toView(row);
}

/** The company's own cancellation cut-off in minutes, or null when it uses the platform's default. */
export async function companyCancellationCutoff(
  runner: SqlRunner,
  companyId: string,
): Promise<number | null> {
  const [row] = await rowsOf<{ cancellation_cutoff_minutes: number | null }>(
    runner,
    `select cancellation_cutoff_minutes from company_settings where company_id = $1`,
    [companyId],
  );
  return row?.cancellation_cutoff_minutes ?? null;
}

/**
 * The pickup_locations row behind a pickup point the dashboard names by its stop id, when the point
 * is the company's own and in use (the only kind it may make its default); undefined otherwise.
 */
export async function ownPickupLocationOfStop(
  runner: SqlRunner,
  companyId: string,
  stopId: string,
): Promise<string | undefined> {
  const [row] = await rowsOf<{ id: string }>(
    runner,
    `select pl.id from pickup_locations pl join stops s on s.id = pl.stop_id
      where pl.stop_id = $1 and pl.company_id = $2 and pl.enabled and ${publicStopSql('s')}`,
    [stopId, companyId],
  );
  return row?.id;
}
