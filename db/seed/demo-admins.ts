import type { PoolClient } from 'pg';
import type { Database } from '../orm.js';
import type { AdminRole } from '../../domain/permissions.js';
import { demoUuid } from './demo-identities.js';
import { missingAccounts } from './missing-accounts.js';

/**
 * Platform administrators of the demo world (ARCHITECTURE "Demo identities"): one with every
 * permission and no second factor, one platform support agent, and one who must use TOTP, with a
 * fixed secret so `npm run --silent demo:accounts` can print it. All sign in with
 * DEMO_ADMIN_PASSWORD. Development data only.
 */
export const DEMO_ADMIN_PASSWORD = 'Demo-Admin-2026!';

/** base32 of 20 bytes; type it into an authenticator app, or compute codes with domain/totp.ts. */
export const DEMO_ADMIN_TOTP_SECRET = 'DEMOADMINTOTPSECRETBUSBOOKING234';

export interface DemoAdmin {
  id: string;
  email: string;
  name: string;
  role: AdminRole;
  totpSecret: string | null;
}

const demoAdmin = (
  email: string,
  name: string,
  role: AdminRole,
  totpSecret: string | null = null,
): DemoAdmin => ({
  id: demoUuid('admin', email),
  email,
  name,
  role,
  totpSecret,
});

export const DEMO_ADMINS: readonly DemoAdmin[] = [
  demoAdmin('superadmin@busbooking.demo', 'Platform Super Admin', 'SUPER_ADMIN'),
  demoAdmin('support@busbooking.demo', 'Platform Support', 'SUPPORT'),
  demoAdmin('secure-admin@busbooking.demo', 'Platform Admin (TOTP)', 'ADMIN', DEMO_ADMIN_TOTP_SECRET),
];

/**
 * Adds the demo administrators that are missing; existing ones keep their password and second
 * factor. The password is hashed once per run and only when an account is missing.
 */
export async function seedDemoAdmins(client: PoolClient): Promise<number> {
  const pending = await missingAccounts(client, 'admins', DEMO_ADMINS, DEMO_ADMIN_PASSWORD);
  if (!pending) return 0;
  const result = await client.query(
    `insert into admins (id, email, name, role, password_hash, totp_required, totp_secret, totp_confirmed_at)
     select id, email, name, role, $2, totp_secret is not null, totp_secret, case when totp_secret is not null then now() end
     from jsonb_to_recordset($1::jsonb) as r(id uuid, email text, name text, role text, totp_secret text)
     on conflict do nothing`,
    [
      JSON.stringify(
        pending.missing.map(({ id, email, name, role, totpSecret }) => ({
          id,
          email,
          name,
          role,
          totp_secret: totpSecret,
        })),
      ),
      pending.passwordHash,
    ],
  );
  return result.rowCount ?? 0;
}

export interface DemoAdminAccount {
  email: string;
  password: string;
  role: AdminRole;
  /** The secret of the authenticator the account uses now; null without one. */
  totpSecret: string | null;
}

/** The active demo administrators, for `npm run --silent demo:accounts`. */
export async function demoAdminAccounts(db: Pick<Database, 'query'>): Promise<DemoAdminAccount[]> {
  const rows = await db.query<{ email: string; role: AdminRole; totp_secret: string | null }>(
    `select lower(email) as email, role, case when totp_confirmed_at is not null then totp_secret end as totp_secret
     from admins where lower(email) = any($1::text[]) and status = 'ACTIVE'`,
    [DEMO_ADMINS.map((admin) => admin.email)],
  );
  const byEmail = new Map(rows.map((row) => [row.email, row]));
  return DEMO_ADMINS.flatMap((admin) => {
    const row = byEmail.get(admin.email);
    return row
      ? [{ email: admin.email, password: DEMO_ADMIN_PASSWORD, role: row.role, totpSecret: row.totp_secret }]
      : [];
  });
}
