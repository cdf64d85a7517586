import type { PoolClient } from 'pg';
import type { Database } from '../orm.js';
import { DEMO_COMPANIES, demoUuid, type DemoCompanyIdentity } from './demo-identities.js';
import { missingAccounts } from './missing-accounts.js';

/**
 * Company dashboard users of the demo world. Every production company that is active and
 * published has one user of each dashboard role; the internal QA, demo, suspended and unpublished
 * companies have an OWNER each. E-mails are `<role>@<company-slug>.demo` and every demo staff user
 * signs in with DEMO_STAFF_PASSWORD. Development data only.
 */
export const DEMO_STAFF_PASSWORD = 'Demo-Staff-2026!';

const TEAM_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const;
type TeamRole = (typeof TEAM_ROLES)[number];

const ROLE_TITLES: Record<TeamRole, string> = {
  OWNER: 'Owner',
  ADMIN: 'Administrator',
  DISPATCHER: 'Dispatcher',
  STAFF: 'Office staff',
  ACCOUNTANT: 'Accountant',
};

export interface DemoStaffMember {
  id: string;
  membershipId: string;
  email: string;
  name: string;
  role: TeamRole;
  companyId: string;
}

function hasFullTeam(company: DemoCompanyIdentity): boolean {
  return company.scope === 'PRODUCTION' && company.status === 'ACTIVE' && company.published;
}

export const DEMO_STAFF: readonly DemoStaffMember[] = DEMO_COMPANIES.flatMap((company) =>
  (hasFullTeam(company) ? TEAM_ROLES : (['OWNER'] as const)).map((role) => {
    const email = `${role.toLowerCase()}@${company.slug}.demo`;
    return {
      id: demoUuid('staff-user', email),
      membershipId: demoUuid('membership', company.id, email),
      email,
      name: `${ROLE_TITLES[role]}, ${company.nameEn}`,
      role,
      companyId: company.id,
    };
  }),
);

/**
 * Adds the demo staff users and memberships that are missing; existing users keep their password.
 * The demo password is hashed (argon2id) once per run and only when a user is missing, so a rerun
 * costs no hashing at all.
 */
export function seedDemoStaff(client: PoolClient): Promise<number> {
  return seedStaffMembers(client, DEMO_STAFF);
}

/** seedDemoStaff for any list of demo members (the drivers of db/seed/demo-operations.ts too). */
export async function seedStaffMembers(
  client: PoolClient,
  members: readonly (Omit<DemoStaffMember, 'role'> & { role: string })[],
): Promise<number> {
  const pending = await missingAccounts(client, 'staff_users', members, DEMO_STAFF_PASSWORD);
  let added = 0;
  if (pending) {
    const result = await client.query(
      `insert into staff_users (id, email, name, password_hash)
       select id, email, name, $2 from jsonb_to_recordset($1::jsonb) as r(id uuid, email text, name text)
       on conflict do nothing`,
      [
        JSON.stringify(pending.missing.map(({ id, email, name }) => ({ id, email, name }))),
        pending.passwordHash,
      ],
    );
    added = result.rowCount ?? 0;
  }
  // Memberships join the user that holds the e-mail, whoever created it.
  await client.query(
    `insert into company_memberships (id, company_id, staff_user_id, role)
     select r.id, r.company_id, u.id, r.role
     from jsonb_to_recordset($1::jsonb) as r(id uuid, company_id uuid, email text, role text)
     join staff_users u on lower(u.email) = r.email
     on conflict do nothing`,
    [
      JSON.stringify(
        members.map((member) => ({
          id: member.membershipId,
          company_id: member.companyId,
          email: member.email,
          role: member.role,
        })),
      ),
    ],
  );
  return added;
}

export interface DemoStaffAccount {
  email: string;
  password: string;
  role: TeamRole;
  companyId: string;
}

/**
 * The demo staff accounts that really exist (user active, membership active), in company then
 * role order, for `npm run --silent demo:accounts`.
 */
export async function demoStaffAccounts(db: Pick<Database, 'query'>): Promise<DemoStaffAccount[]> {
  const rows = await db.query<{ email: string; company_id: string }>(
    `select lower(u.email) as email, m.company_id
     from staff_users u join company_memberships m on m.staff_user_id = u.id
     where lower(u.email) = any($1::text[]) and u.status = 'ACTIVE' and m.active`,
    [DEMO_STAFF.map((member) => member.email)],
  );
  const present = new Set(rows.map((row) => `${row.email}/${row.company_id}`));
  return DEMO_STAFF.filter((member) => present.has(`${member.email}/${member.companyId}`)).map((member) => ({
    email: member.email,
    password: DEMO_STAFF_PASSWORD,
    role: member.role,
    companyId: member.companyId,
  }));
}
