import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { hashAdminPassword } from '../../../api/auth/admin-sign-in.js';
import { newTotpSecret } from '../../../api/auth/admin-second-factor.js';
import type { Database } from '../../../db/orm.js';
import type { AdminPermission, AdminRole } from '../../../domain/permissions.js';
import { base32Decode, hotp, totpStep } from '../../../domain/totp.js';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import type { TestApp, TestResponse } from '../../support/harness.js';

/** Administrators and their sessions for the administration API tests. */
export const ADMIN_PASSWORD = 'correct horse battery staple';

/** Hashing costs ~100 ms: every test administrator shares one hash of the one password. */
let passwordHash: Promise<string> | undefined;

export interface TestAdmin {
  id: string;
  email: string;
  password: string;
  totpSecret: string | null;
}

export async function createAdmin(
  db: Database,
  options: {
    role?: AdminRole;
    grantedPermissions?: AdminPermission[];
    totpRequired?: boolean;
    /** Set up and confirm an authenticator with a new secret. */
    totp?: boolean;
    recoveryCodeHashes?: string[];
    status?: 'ACTIVE' | 'DISABLED';
  } = {},
): Promise<TestAdmin> {
  passwordHash ??= hashAdminPassword(ADMIN_PASSWORD);
  const email = `admin-${randomUUID().slice(0, 8)}@test.example`;
  const totpSecret = options.totp ? newTotpSecret() : null;
  const [row] = await db.query<{ id: string }>(
    `insert into admins (email, name, password_hash, role, permissions, totp_required, totp_secret, totp_confirmed_at,
       recovery_code_hashes, status)
     values ($1, 'Test Admin', $2, $3, $4, $5, $6, case when $6::text is not null then now() end, $7, $8) returning id`,
    [
      email,
      await passwordHash,
      options.role ?? 'SUPER_ADMIN',
      options.grantedPermissions ?? [],
      options.totpRequired ?? false,
      totpSecret,
      options.recoveryCodeHashes ?? [],
      options.status ?? 'ACTIVE',
    ],
  );
  return { id: row!.id, email, password: ADMIN_PASSWORD, totpSecret };
}

/** The code an authenticator shows now, or `steps` steps from now. */
export function totpCode(secret: string, steps = 0): string {
  return hotp(base32Decode(secret)!, totpStep(Date.now()) + steps);
}

/** What a browser holds for an administrator session: the session cookie and the CSRF token. */
export class AdminBrowser {
  token = '';
  csrf = '';

  /** `ip`: the client IP the requests claim (X-Forwarded-For; the app must trust one proxy hop). */
  constructor(
    private readonly app: TestApp,
    private readonly ip?: string,
  ) {}

  private get via(): Record<string, string> {
    return this.ip ? { 'X-Forwarded-For': this.ip } : {};
  }

  /** Takes the cookies a response sets (sign-in, second factor, enrolment confirmation). */
  keep(response: TestResponse): TestResponse {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=');
      if (name === 'bb_admin') this.token = value ?? '';
      if (name === 'bb_admin_csrf') this.csrf = value ?? '';
    }
    return response;
  }

  async signIn(admin: Pick<TestAdmin, 'email' | 'password'>): Promise<TestResponse> {
    return this.keep(
      await this.app.request('/admin/api/auth/login', {
        method: 'POST',
        json: { email: admin.email, password: admin.password },
        headers: this.via,
      }),
    );
  }

  get(path: string): Promise<TestResponse> {
    return this.app.request(`/admin/api${path}`, {
      headers: { ...this.via, Cookie: `bb_admin=${this.token}` },
    });
  }

  /** Suspends a company (POST /companies/{id}/suspend) with a reason. */
  suspend(companyId: string, reason = 'Licence expired'): Promise<TestResponse> {
    return this.send('POST', `/companies/${companyId}/suspend`, { reason });
  }

  /** Lifts a company's suspension (POST /companies/{id}/unsuspend). */
  unsuspend(companyId: string): Promise<TestResponse> {
    return this.send('POST', `/companies/${companyId}/unsuspend`, { reason: 'Licence renewed' });
  }

  /** A write with the session cookie and its CSRF token (pass csrf: null to leave the header out). */
  async send(
    method: string,
    path: string,
    json?: unknown,
    options: { csrf?: string | null } = {},
  ): Promise<TestResponse> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const headers: Record<string, string> = { ...this.via, Cookie: `bb_admin=${this.token}` };
    if (csrf !== null) headers['X-CSRF-Token'] = csrf;
    return this.keep(
      await this.app.request(`/admin/api${path}`, {
        method,
        headers,
        ...(json === undefined ? {} : { json }),
      }),
    );
  }
}

/** A fully signed-in browser of a new administrator (second factor given when the account has one). */
export async function signedInAdmin(
  app: TestApp,
  options: Parameters<typeof createAdmin>[1] = {},
): Promise<{ admin: TestAdmin; browser: AdminBrowser }> {
  const admin = await createAdmin(app.db, options);
  const browser = new AdminBrowser(app);
  const login = await browser.signIn(admin);
  expect(login.status).toBe(200);
  if (login.body.data.secondFactorRequired) {
    expect((await browser.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) })).status).toBe(200);
  }
  return { admin, browser };
}

export function expectError(response: TestResponse, status: number, errorCode: string): void {
  expect({ status: response.status, errorCode: response.body?.errorCode }).toEqual({ status, errorCode });
  expect(response.body).toMatchObject({
    success: false,
    message: expect.any(String),
    requestId: expect.any(String),
  });
}

/** Audit rows about one target, oldest first. */
export async function auditRows(db: Database, targetId: string) {
  return db.query<{
    actor_kind: string;
    actor_id: string | null;
    action: string;
    target_kind: string;
    target_id: string;
    details: any;
    created_at: Date;
  }>(
    `select actor_kind, actor_id, action, target_kind, target_id, details, created_at from audit_log where target_id = $1 order by id`,
    [targetId],
  );
}

/** Everything an action on the company (warn, suspend, unsuspend, verify, unverify) could change. */
export async function companySnapshot(db: Database, companyId: string) {
  return {
    company: await db.query(`select status, verified from companies where id = $1`, [companyId]),
    history: await db.query(`select id from company_admin_actions where company_id = $1`, [companyId]),
    audit: await db.query(`select id from audit_log where target_id = $1 and action like 'companies.%'`, [
      companyId,
    ]),
  };
}

/**
 * An administrator's `write` while `boss` changes their account (PATCH /admins/{id} with `change`):
 * the account's row is busy a moment (any other change of it would do the same), so the change is
 * in flight first; the write, sent then, is answered at once or queued behind it; then both go on.
 * In a serial order the write comes after the change, and is judged by the account as changed.
 */
export async function writeWhileAccountChanges(
  app: TestApp,
  boss: AdminBrowser,
  adminId: string,
  change: Record<string, unknown>,
  write: () => Promise<TestResponse>,
): Promise<{ change: TestResponse; write: TestResponse }> {
  const held = await holdLock(app.db, `select 1 from admins where id = '${adminId}' for update`);
  try {
    const changing = boss.send('PATCH', `/admins/${adminId}`, change);
    await waitersOf(app.db, held.pid, 1);
    const writing = write();
    await answeredOrWaiting(writing, app.db, held.pid, 2);
    await held.release();
    return { change: await changing, write: await writing };
  } finally {
    await held.release();
  }
}

/**
 * `delayed` (an administrator's write) is sent first and waits, its transaction begun, for the
 * account's row (busy a moment, as any change of the account holds it); `meanwhile` runs to its end;
 * then `delayed` goes on and commits last. Answers `delayed`'s answer.
 */
export async function writeWaitingForAccount(
  app: TestApp,
  adminId: string,
  delayed: () => Promise<TestResponse>,
  meanwhile: () => Promise<void>,
): Promise<TestResponse> {
  const held = await holdLock(app.db, `select 1 from admins where id = '${adminId}' for update`);
  let answer: Promise<TestResponse> | undefined;
  try {
    answer = delayed();
    await waitersOf(app.db, held.pid, 1);
    // The clock moves on between the delayed transaction's start and the writes meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await meanwhile();
  } finally {
    await held.release();
  }
  return answer;
}
