import { randomUUID } from 'node:crypto';
import { argon2id, hash } from 'argon2';
import type { Database } from '../../db/orm.js';
import type { TestApp, TestResponse } from './harness.js';

/** Company staff for dashboard tests: users with memberships, and signing in through the API. */
export const STAFF_PASSWORD = 'correct horse battery staple';

export type StaffRole = 'OWNER' | 'ADMIN' | 'DISPATCHER' | 'STAFF' | 'ACCOUNTANT' | 'DRIVER';

export interface StaffMember {
  userId: string;
  membershipId: string;
  email: string;
  password: string;
}

/** argon2id is slow on purpose: the test password is hashed once per file. */
let passwordHash: Promise<string> | undefined;

export async function createStaffUser(
  db: Database,
  options: { email?: string; name?: string; status?: 'ACTIVE' | 'DISABLED' } = {},
): Promise<{ userId: string; email: string; password: string }> {
  passwordHash ??= hash(STAFF_PASSWORD, { type: argon2id });
  const email = options.email ?? `staff-${randomUUID().slice(0, 12)}@company.test`;
  const [row] = await db.query<{ id: string }>(
    `insert into staff_users (email, name, password_hash, status) values ($1, $2, $3, $4) returning id`,
    [email, options.name ?? `Staff ${email.split('@')[0]}`, await passwordHash, options.status ?? 'ACTIVE'],
  );
  return { userId: row!.id, email, password: STAFF_PASSWORD };
}

export async function addMembership(
  db: Database,
  userId: string,
  companyId: string,
  role: StaffRole,
  options: { active?: boolean } = {},
): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `insert into company_memberships (company_id, staff_user_id, role, active) values ($1, $2, $3, $4) returning id`,
    [companyId, userId, role, options.active ?? true],
  );
  return row!.id;
}

/** A new user with one membership. */
export async function createStaffMember(
  db: Database,
  companyId: string,
  role: StaffRole,
  options: { email?: string; name?: string; status?: 'ACTIVE' | 'DISABLED'; active?: boolean } = {},
): Promise<StaffMember> {
  const user = await createStaffUser(db, options);
  const membershipId = await addMembership(db, user.userId, companyId, role, options);
  return { ...user, membershipId };
}

export interface StaffBrowser {
  response: TestResponse;
  /** Cookie header carrying the session and CSRF cookies. */
  cookie: string;
  csrf: string;
  /** Headers for a dashboard write. */
  writeHeaders: Record<string, string>;
}

/** Signs in through POST /dashboard/api/auth/login and keeps the cookies as a browser would. */
export async function staffLogin(
  app: TestApp,
  credentials: { email: string; password: string; companyId?: string },
): Promise<StaffBrowser> {
  const response = await app.request('/dashboard/api/auth/login', { method: 'POST', json: credentials });
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0]!)
    .join('; ');
  const csrf = response.body?.data?.csrfToken as string;
  return { response, cookie, csrf, writeHeaders: { Cookie: cookie, 'X-CSRF-Token': csrf } };
}
