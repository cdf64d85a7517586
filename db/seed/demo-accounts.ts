import type { Database } from '../orm.js';
import {
  DEMO_COMPANIES,
  DEMO_TRAVELLERS,
  type ConfirmationMode,
  type DemoCompanyScope,
  type DemoTraveller,
} from './demo-identities.js';
import { demoAdminAccounts } from './demo-admins.js';
import { demoDriverAccounts } from './demo-planning.js';
import { demoStaffAccounts } from './demo-staff.js';

/**
 * The demo identities document `npm run --silent demo:accounts` prints (ARCHITECTURE "Demo
 * identities"). Travellers come from the reserved constants; companies are read from the
 * database so the document shows what is really there. Staff and administrators arrive with the
 * identity issue.
 */
export interface DemoAccounts {
  travellers: DemoTraveller[];
  companies: DemoCompanyAccount[];
  staff: { email: string; password: string; role: string; companyId: string }[];
  admins: { email: string; password: string; role: string; totpSecret: string | null }[];
}

export interface DemoCompanyAccount {
  id: string;
  name: string;
  scope: DemoCompanyScope;
  status: 'ACTIVE' | 'SUSPENDED';
  published: boolean;
  verified: boolean;
  confirmationMode: ConfirmationMode;
}

interface CompanyRow {
  id: string;
  name_en: string;
  status: 'ACTIVE' | 'SUSPENDED';
  published: boolean;
  verified: boolean;
  is_internal: boolean;
  is_demo: boolean;
  /** From company_booking_settings; null when the company never saved settings (it confirms at once). */
  confirmation_mode: ConfirmationMode | null;
}

export async function readDemoAccounts(db: Pick<Database, 'query'>): Promise<DemoAccounts> {
  const rows = await db.query<CompanyRow>(
    `select c.id, c.name_en, c.status, c.published, c.verified, c.is_internal, c.is_demo, s.mode as confirmation_mode
     from companies c left join company_booking_settings s on s.company_id = c.id
     where c.id = any($1::uuid[])`,
    [DEMO_COMPANIES.map((company) => company.id)],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const companies = DEMO_COMPANIES.flatMap((identity) => {
    const row = byId.get(identity.id);
    if (!row) return [];
    return [
      {
        id: row.id,
        name: row.name_en,
        scope: row.is_internal ? 'INTERNAL' : row.is_demo ? 'DEMO' : 'PRODUCTION',
        status: row.status,
        published: row.published,
        verified: row.verified,
        confirmationMode: row.confirmation_mode ?? 'AUTO_CONFIRM',
      } satisfies DemoCompanyAccount,
    ];
  });
  return {
    travellers: DEMO_TRAVELLERS.map((traveller) => ({ ...traveller })),
    companies,
    staff: [...(await demoStaffAccounts(db)), ...(await demoDriverAccounts(db))],
    admins: await demoAdminAccounts(db),
  };
}
