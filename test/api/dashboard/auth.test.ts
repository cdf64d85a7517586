import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { failOnce } from '../../support/fail-once.js';
import { useTestApp, type TestApp, type TestResponse } from '../../support/harness.js';
import {
  addMembership,
  createStaffMember,
  createStaffUser,
  staffLogin,
  STAFF_PASSWORD,
  type StaffMember,
} from '../../support/staff.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The parts of an answer a caller can compare: everything but the per-request id. */
const answer = (response: TestResponse) => {
  const { requestId: _requestId, ...body } = response.body;
  return { status: response.status, body, setCookie: response.headers.getSetCookie() };
};

const sessionsOf = async (app: TestApp, userId: string) =>
  app.db.query<{ id: string; token_hash: string; csrf_token_hash: string; revoked_at: Date | null }>(
    'select id, token_hash, csrf_token_hash, revoked_at from staff_sessions where staff_user_id = $1',
    [userId],
  );

describe('company dashboard sign-in and session', () => {
  // Every request of this file comes from 127.0.0.1: the per-IP limit is proved in its own block below.
  const app = useTestApp({ STAFF_LOGIN_MAX_PER_IP: 10_000, STAFF_LOGIN_MAX_PER_EMAIL: 10_000 });
  let company: { id: string; nameEn: string };
  let owner: StaffMember;

  beforeAll(async () => {
    company = await createCompany(app.db, { verified: true });
    owner = await createStaffMember(app.db, company.id, 'OWNER', { name: 'Rana Haddad' });
  });

  describe('POST /auth/login', () => {
    it('opens a session for the right e-mail and password and returns user, membership, company and CSRF token', async () => {
      const { response, csrf } = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        data: {
          user: { id: owner.userId, email: owner.email, name: 'Rana Haddad' },
          membership: { companyId: company.id, role: 'OWNER' },
          company: {
            id: company.id,
            name_en: company.nameEn,
            name_ar: `شركة ${company.nameEn}`,
            status: 'ACTIVE',
            verified: true,
          },
          csrfToken: expect.any(String),
        },
      });
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      // Only hashes of the session token and the CSRF secret are stored.
      const token = response.headers
        .getSetCookie()
        .find((c) => c.startsWith('bb_staff='))!
        .split(';')[0]!
        .slice('bb_staff='.length);
      const [session] = (await sessionsOf(app, owner.userId)).filter(
        (row) => row.token_hash === sha256(token),
      );
      expect(session).toMatchObject({ csrf_token_hash: sha256(csrf), revoked_at: null });
    });

    it('sets the session cookie HttpOnly, Secure, SameSite=Strict on /dashboard, and a readable CSRF cookie', async () => {
      const { response, csrf } = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
      const cookies = response.headers.getSetCookie();
      const session = cookies.find((cookie) => cookie.startsWith('bb_staff='))!;
      const csrfCookie = cookies.find((cookie) => cookie.startsWith('bb_staff_csrf='))!;
      for (const cookie of [session, csrfCookie]) {
        expect(cookie).toMatch(/; path=\/dashboard(;|$)/);
        expect(cookie).toMatch(/; secure(;|$)/);
        expect(cookie).toMatch(/; samesite=strict(;|$)/);
        // Both last as long as the session can: 12 hours.
        const expires = Date.parse(/; expires=([^;]+)/.exec(cookie)![1]!);
        expect(Math.abs(expires - Date.now() - 12 * 3_600_000)).toBeLessThan(60_000);
      }
      expect(session).toMatch(/; httponly(;|$)/);
      expect(csrfCookie).not.toMatch(/httponly/);
      expect(csrfCookie.split(';')[0]).toBe(`bb_staff_csrf=${csrf}`);
    });

    it('accepts the e-mail in any letter case', async () => {
      const { response } = await staffLogin(app, {
        email: owner.email.toUpperCase(),
        password: STAFF_PASSWORD,
      });
      expect(response.status).toBe(200);
      expect(response.body.data.user.id).toBe(owner.userId);
    });

    it('refuses a wrong password with 401 INVALID_CREDENTIALS and opens no session', async () => {
      const before = await sessionsOf(app, owner.userId);
      const { response } = await staffLogin(app, { email: owner.email, password: 'not the password' });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ success: false, errorCode: 'INVALID_CREDENTIALS' });
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(await sessionsOf(app, owner.userId)).toHaveLength(before.length);
    });

    it('answers an unknown e-mail, a disabled user and a user without an active membership exactly like a wrong password', async () => {
      const member = await createStaffMember(app.db, company.id, 'STAFF');
      const disabled = await createStaffMember(app.db, company.id, 'ADMIN', { status: 'DISABLED' });
      const deactivated = await createStaffMember(app.db, company.id, 'DISPATCHER', { active: false });
      const noMembership = await createStaffUser(app.db);
      const driver = await createStaffMember(app.db, company.id, 'DRIVER');

      const wrongPassword = answer(
        (await staffLogin(app, { email: member.email, password: 'wrong-password' })).response,
      );
      expect(wrongPassword.status).toBe(401);
      for (const credentials of [
        { email: `nobody-${Date.now()}@company.test`, password: STAFF_PASSWORD },
        { email: disabled.email, password: STAFF_PASSWORD },
        { email: deactivated.email, password: STAFF_PASSWORD },
        { email: noMembership.email, password: STAFF_PASSWORD },
        // Drivers use the driver app; the dashboard is not theirs.
        { email: driver.email, password: STAFF_PASSWORD },
      ]) {
        expect(answer((await staffLogin(app, credentials)).response)).toEqual(wrongPassword);
      }
      for (const userId of [disabled.userId, deactivated.userId, noMembership.userId, driver.userId]) {
        expect(await sessionsOf(app, userId)).toEqual([]);
      }
    });

    it('signs in to the company named by companyId, else to the oldest membership', async () => {
      const second = await createCompany(app.db);
      const member = await createStaffMember(app.db, company.id, 'DISPATCHER');
      await addMembership(app.db, member.userId, second.id, 'ACCOUNTANT');

      const byDefault = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
      expect(byDefault.response.body.data.membership).toEqual({ companyId: company.id, role: 'DISPATCHER' });
      const chosen = await staffLogin(app, {
        email: member.email,
        password: STAFF_PASSWORD,
        companyId: second.id,
      });
      expect(chosen.response.body.data.membership).toEqual({ companyId: second.id, role: 'ACCOUNTANT' });

      const me = await app.request('/dashboard/api/auth/me', { headers: { Cookie: chosen.cookie } });
      expect(me.body.data.memberships).toEqual([
        {
          companyId: company.id,
          role: 'DISPATCHER',
          name_en: company.nameEn,
          name_ar: `شركة ${company.nameEn}`,
        },
        {
          companyId: second.id,
          role: 'ACCOUNTANT',
          name_en: second.nameEn,
          name_ar: `شركة ${second.nameEn}`,
        },
      ]);
    });

    it('refuses a companyId the user is not a member of like any other failed sign-in', async () => {
      const other = await createCompany(app.db);
      const { response } = await staffLogin(app, {
        email: owner.email,
        password: STAFF_PASSWORD,
        companyId: other.id,
      });
      expect(response.status).toBe(401);
      expect(response.body.errorCode).toBe('INVALID_CREDENTIALS');
    });

    it('refuses malformed input with 400 before checking anything', async () => {
      for (const json of [
        { email: owner.email },
        { email: 'not-an-email', password: STAFF_PASSWORD },
        { email: owner.email, password: STAFF_PASSWORD, role: 'OWNER' },
        { email: owner.email, password: STAFF_PASSWORD, companyId: 'abc' },
      ]) {
        const response = await app.request('/dashboard/api/auth/login', { method: 'POST', json });
        expect(response.status).toBe(400);
        expect(response.body.errorCode).toBe('VALIDATION_FAILED');
      }
    });

    it('an audit row that cannot be written leaves no session behind; the next sign-in opens one and records it', async () => {
      const member = await createStaffMember(app.db, company.id, 'STAFF');
      const signIns = () =>
        app.db.query<{ session_id: string }>(
          `select details->>'sessionId' as session_id from audit_log
           where actor_id = $1 and action = 'STAFF_SIGNED_IN'`,
          [member.userId],
        );
      // The next STAFF_SIGNED_IN row of this user fails (the server gets an error from PostgreSQL).
      const cleanUp = await failOnce(app.db, {
        table: 'audit_log',
        event: 'insert',
        condition: `new.action = 'STAFF_SIGNED_IN' and new.actor_id::text = '${member.userId}'`,
      });
      try {
        const failed = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
        expect(failed.response.status).toBe(500);
        expect(failed.response.headers.getSetCookie()).toEqual([]);
        expect(await sessionsOf(app, member.userId)).toEqual([]);
        expect(await signIns()).toEqual([]);

        const retry = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
        expect(retry.response.status, retry.response.text).toBe(200);
        const sessions = await sessionsOf(app, member.userId);
        expect(sessions).toHaveLength(1);
        expect(await signIns()).toEqual([{ session_id: sessions[0]!.id }]);
      } finally {
        await cleanUp();
      }
    });
  });

  describe('session', () => {
    it('GET /auth/me returns the signed-in user and membership', async () => {
      const { cookie } = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
      const me = await app.request('/dashboard/api/auth/me', { headers: { Cookie: cookie } });
      expect(me.status).toBe(200);
      expect(me.body.data).toMatchObject({
        user: { id: owner.userId, email: owner.email },
        membership: { companyId: company.id, role: 'OWNER' },
        company: { id: company.id, status: 'ACTIVE', verified: true },
      });
    });

    it('needs a dashboard session: none gives 401 AUTH_REQUIRED', async () => {
      const response = await app.request('/dashboard/api/auth/me');
      expect(response.status).toBe(401);
      expect(response.body.errorCode).toBe('AUTH_REQUIRED');
    });

    it('does not take a traveller token (bearer or cookie) as a dashboard session', async () => {
      const token = await app.tokenFor({ kind: 'PRODUCTION' });
      const traveller = await app.signIn();
      for (const init of [{ token }, { headers: { Cookie: traveller.cookie } }]) {
        const response = await app.request('/dashboard/api/team', init);
        expect(response.status).toBe(401);
        expect(response.body.errorCode).toBe('AUTH_REQUIRED');
      }
    });

    it("does not take a driver app session as a dashboard session, and leaves the driver app's session alive", async () => {
      // An OWNER may sign in to the driver app; its bearer token is not a session of the dashboard.
      const signedIn = await app.request('/driver/api/auth/login', {
        method: 'POST',
        json: { email: owner.email, password: STAFF_PASSWORD },
      });
      expect(signedIn.status).toBe(200);
      const token = signedIn.body.data.token as string;
      const cookie = `bb_staff=${token}`;
      for (const path of ['/dashboard/api/auth/me', '/dashboard/api/payments', '/dashboard/api/team']) {
        const response = await app.request(path, { headers: { Cookie: cookie } });
        expect({ path, status: response.status, errorCode: response.body.errorCode }).toEqual({
          path,
          status: 401,
          errorCode: 'INVALID_CREDENTIAL',
        });
      }
      // Nor does a dashboard sign-in sent with it end it: it is not this browser's dashboard session.
      const dashboard = await app.request('/dashboard/api/auth/login', {
        method: 'POST',
        headers: { Cookie: cookie },
        json: { email: owner.email, password: STAFF_PASSWORD },
      });
      expect(dashboard.status).toBe(200);
      const [session] = (await sessionsOf(app, owner.userId)).filter(
        (row) => row.token_hash === sha256(token),
      );
      expect(session!.revoked_at).toBeNull();
      expect((await app.request('/driver/api/auth/me', { token })).status).toBe(200);
    });

    it('refuses an unknown session cookie with 401 and clears it', async () => {
      const response = await app.request('/dashboard/api/auth/me', {
        headers: { Cookie: 'bb_staff=forged-session-token' },
      });
      expect(response.status).toBe(401);
      expect(response.body.errorCode).toBe('INVALID_CREDENTIAL');
      expect(response.headers.getSetCookie().find((c) => c.startsWith('bb_staff='))).toMatch(
        /^bb_staff=;.*expires=Thu, 01 Jan 1970/,
      );
    });

    it('ends after 60 minutes without a request', async () => {
      const { cookie } = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
      const token = cookie.split('; ')[0]!.slice('bb_staff='.length);
      await app.db.query(
        `update staff_sessions set last_seen_at = now() - interval '59 minutes' where token_hash = $1`,
        [sha256(token)],
      );
      expect((await app.request('/dashboard/api/auth/me', { headers: { Cookie: cookie } })).status).toBe(200);
      // That request counted as activity.
      const [seen] = await app.db.query<{ idle: boolean }>(
        `select last_seen_at > now() - interval '1 minute' as idle from staff_sessions where token_hash = $1`,
        [sha256(token)],
      );
      expect(seen!.idle).toBe(true);
      await app.db.query(
        `update staff_sessions set last_seen_at = now() - interval '61 minutes' where token_hash = $1`,
        [sha256(token)],
      );
      const response = await app.request('/dashboard/api/auth/me', { headers: { Cookie: cookie } });
      expect(response.status).toBe(401);
    });

    it('lasts 60 idle minutes after a request that was not recorded (activity is written once a minute)', async () => {
      const { cookie } = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
      const hash = sha256(cookie.split('; ')[0]!.slice('bb_staff='.length));
      const moveBack = (interval: string) =>
        app.db.query(
          `update staff_sessions set last_seen_at = last_seen_at - $2::interval,
             created_at = created_at - $2::interval, expires_at = expires_at - $2::interval
           where token_hash = $1`,
          [hash, interval],
        );
      // A request 50 seconds after sign-in, too soon to be recorded ...
      await moveBack('50 seconds');
      expect((await app.request('/dashboard/api/auth/me', { headers: { Cookie: cookie } })).status).toBe(200);
      // ... then 59 minutes 30 seconds without one: the clock moving on, as every stored instant moving back.
      await moveBack('59 minutes 30 seconds');
      expect((await app.request('/dashboard/api/auth/me', { headers: { Cookie: cookie } })).status).toBe(200);
    });

    it('ends 12 hours after sign-in whatever the activity', async () => {
      const { cookie } = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
      const token = cookie.split('; ')[0]!.slice('bb_staff='.length);
      const [row] = await app.db.query<{ hours: number }>(
        `select round(extract(epoch from expires_at - created_at) / 3600)::int as hours from staff_sessions where token_hash = $1`,
        [sha256(token)],
      );
      expect(row!.hours).toBe(12);
      await app.db.query(
        `update staff_sessions set expires_at = now() - interval '1 second' where token_hash = $1`,
        [sha256(token)],
      );
      expect((await app.request('/dashboard/api/auth/me', { headers: { Cookie: cookie } })).status).toBe(401);
    });

    it('ends at once when the user is disabled or the membership deactivated', async () => {
      const member = await createStaffMember(app.db, company.id, 'STAFF');
      const first = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
      await app.db.query(`update company_memberships set active = false where id = $1`, [
        member.membershipId,
      ]);
      expect(
        (await app.request('/dashboard/api/auth/me', { headers: { Cookie: first.cookie } })).status,
      ).toBe(401);
      await app.db.query(`update company_memberships set active = true where id = $1`, [member.membershipId]);
      const second = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
      await app.db.query(`update staff_users set status = 'DISABLED' where id = $1`, [member.userId]);
      expect(
        (await app.request('/dashboard/api/auth/me', { headers: { Cookie: second.cookie } })).status,
      ).toBe(401);
    });
  });

  describe('POST /auth/logout', () => {
    it('revokes the session; the same cookie is refused afterwards', async () => {
      const member = await createStaffMember(app.db, company.id, 'ADMIN');
      const browser = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
      const response = await app.request('/dashboard/api/auth/logout', {
        method: 'POST',
        headers: browser.writeHeaders,
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true });
      expect(response.headers.getSetCookie().map((cookie) => cookie.split(';')[0])).toEqual([
        'bb_staff=',
        'bb_staff_csrf=',
      ]);
      const [session] = await sessionsOf(app, member.userId);
      expect(session!.revoked_at).not.toBeNull();

      const reused = await app.request('/dashboard/api/auth/me', { headers: { Cookie: browser.cookie } });
      expect(reused.status).toBe(401);
      expect(reused.body.errorCode).toBe('INVALID_CREDENTIAL');
      const again = await app.request('/dashboard/api/auth/logout', {
        method: 'POST',
        headers: browser.writeHeaders,
      });
      expect(again.status).toBe(401);
    });

    it('records a sign-out sent several times at once (a retry, a double click) once: one STAFF_SIGNED_OUT per session', async () => {
      // The duplicates that pass authentication before the first sign-out commits still answer
      // 200 (the session is ended), the later ones 401; only the one that ended it is recorded.
      // The race is run on several sessions: each must end with one row.
      const member = await createStaffMember(app.db, company.id, 'ADMIN');
      for (let round = 0; round < 5; round++) {
        const browser = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
        expect(browser.response.status, browser.response.text).toBe(200);
        const answers = await Promise.all(
          Array.from({ length: 8 }, () =>
            app.request('/dashboard/api/auth/logout', { method: 'POST', headers: browser.writeHeaders }),
          ),
        );
        expect(answers.map((answer) => answer.status)).toContain(200);
        for (const answer of answers) expect([200, 401]).toContain(answer.status);
      }
      const sessions = await sessionsOf(app, member.userId);
      expect(sessions).toHaveLength(5);
      expect(sessions.filter((session) => session.revoked_at === null)).toEqual([]);
      const signOuts = await app.db.query<{ session_id: string; n: number }>(
        `select details->>'sessionId' as session_id, count(*)::int as n from audit_log
          where actor_id = $1 and action = 'STAFF_SIGNED_OUT' group by 1`,
        [member.userId],
      );
      expect(Object.fromEntries(signOuts.map((row) => [row.session_id, row.n]))).toEqual(
        Object.fromEntries(sessions.map((session) => [session.id, 1])),
      );
    });

    it('is a write: without the CSRF header, or with a wrong one, it is refused with 403 and the session lives on', async () => {
      const member = await createStaffMember(app.db, company.id, 'ADMIN');
      const browser = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
      const other = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
      for (const headers of [
        { Cookie: browser.cookie } as Record<string, string>,
        { Cookie: browser.cookie, 'X-CSRF-Token': 'wrong' },
        // Another session's CSRF token does not fit this session.
        { Cookie: browser.cookie, 'X-CSRF-Token': other.csrf },
      ]) {
        const response = await app.request('/dashboard/api/auth/logout', { method: 'POST', headers });
        expect(response.status).toBe(403);
        expect(response.body.errorCode).toBe('CSRF_TOKEN_INVALID');
      }
      const [session] = await sessionsOf(app, member.userId);
      expect(session!.revoked_at).toBeNull();
      expect(
        (await app.request('/dashboard/api/auth/me', { headers: { Cookie: browser.cookie } })).status,
      ).toBe(200);
    });

    it('a new sign-in in the same browser ends the previous session', async () => {
      const member = await createStaffMember(app.db, company.id, 'STAFF');
      const first = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
      const response = await app.request('/dashboard/api/auth/login', {
        method: 'POST',
        headers: { Cookie: first.cookie },
        json: { email: member.email, password: STAFF_PASSWORD },
      });
      expect(response.status).toBe(200);
      expect(
        (await app.request('/dashboard/api/auth/me', { headers: { Cookie: first.cookie } })).status,
      ).toBe(401);
    });
  });

  describe('GET /team', () => {
    it("lists the members of the session's company only, with role and status, paginated", async () => {
      const teamCompany = await createCompany(app.db);
      const otherCompany = await createCompany(app.db);
      const boss = await createStaffMember(app.db, teamCompany.id, 'OWNER', { name: 'A Owner' });
      const accountant = await createStaffMember(app.db, teamCompany.id, 'ACCOUNTANT', {
        name: 'B Accountant',
      });
      const former = await createStaffMember(app.db, teamCompany.id, 'STAFF', {
        name: 'C Former',
        active: false,
      });
      const outsider = await createStaffMember(app.db, otherCompany.id, 'OWNER');
      const { cookie } = await staffLogin(app, { email: accountant.email, password: STAFF_PASSWORD });

      const all = await app.request('/dashboard/api/team', { headers: { Cookie: cookie } });
      expect(all.status).toBe(200);
      expect(all.body.data).toEqual([
        expect.objectContaining({
          membershipId: boss.membershipId,
          userId: boss.userId,
          email: boss.email,
          role: 'OWNER',
          status: 'ACTIVE',
        }),
        expect.objectContaining({
          userId: accountant.userId,
          name: 'B Accountant',
          role: 'ACCOUNTANT',
          status: 'ACTIVE',
        }),
        expect.objectContaining({ userId: former.userId, role: 'STAFF', status: 'INACTIVE' }),
      ]);
      expect(all.body.data.map((member: any) => member.userId)).not.toContain(outsider.userId);
      expect(all.body.pagination).toEqual({ limit: 20, offset: 0, total: 3 });

      const page = await app.request('/dashboard/api/team?limit=1&offset=1', { headers: { Cookie: cookie } });
      expect(page.body.data.map((member: any) => member.userId)).toEqual([accountant.userId]);
      expect(page.body.pagination).toEqual({ limit: 1, offset: 1, total: 3 });
      const beyond = await app.request('/dashboard/api/team?offset=10', { headers: { Cookie: cookie } });
      expect(beyond.body).toMatchObject({ data: [], pagination: { total: 3 } });
    });

    it('refuses a bad page with 400 and takes no company id from the query', async () => {
      const { cookie } = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
      for (const query of ['limit=0', 'limit=101', 'offset=-1', `companyId=${company.id}`]) {
        const response = await app.request(`/dashboard/api/team?${query}`, { headers: { Cookie: cookie } });
        expect(response.status).toBe(400);
        expect(response.body.errorCode).toBe('VALIDATION_FAILED');
      }
    });

    it('stays readable for a suspended company (reads need membership only)', async () => {
      const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
      const member = await createStaffMember(app.db, suspended.id, 'OWNER');
      const { response, cookie } = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
      expect(response.body.data.company.status).toBe('SUSPENDED');
      const team = await app.request('/dashboard/api/team', { headers: { Cookie: cookie } });
      expect(team.status).toBe(200);
      expect(team.body.data.map((row: any) => row.userId)).toEqual([member.userId]);
    });
  });
});

describe('company dashboard sign-in: per-IP limit', () => {
  const app = useTestApp({ STAFF_LOGIN_MAX_PER_IP: 4 });

  it('refuses the client IP with 429 after 4 attempts in the window, whatever the e-mail', async () => {
    const company = await createCompany(app.db);
    const member = await createStaffMember(app.db, company.id, 'OWNER');
    for (let attempt = 0; attempt < 3; attempt++) {
      const { response } = await staffLogin(app, {
        email: `guess-${attempt}-${Date.now()}@company.test`,
        password: 'guess',
      });
      expect(response.status).toBe(401);
    }
    // Malformed attempts count too.
    expect((await app.request('/dashboard/api/auth/login', { method: 'POST', json: {} })).status).toBe(400);
    const { response } = await staffLogin(app, { email: member.email, password: STAFF_PASSWORD });
    expect(response.status).toBe(429);
    expect(response.body.errorCode).toBe('RATE_LIMITED');
    expect(
      await app.db.query('select 1 from staff_sessions where staff_user_id = $1', [member.userId]),
    ).toEqual([]);
  });
});

describe('company dashboard sign-in: per-IP limit for an office behind one address', () => {
  // X-Forwarded-For names the client (as behind the load balancer): one address per test.
  const app = useTestApp({ STAFF_LOGIN_MAX_PER_IP: 4, TRUSTED_PROXY_HOPS: 1 });
  const officeAddress = () => `10.${randomOctet()}.${randomOctet()}.${randomOctet()}`;
  const randomOctet = () => Math.floor(Math.random() * 254) + 1;
  const signIn = (address: string, email: string, password: string) =>
    app.request('/dashboard/api/auth/login', {
      method: 'POST',
      headers: { 'X-Forwarded-For': address },
      json: { email, password },
    });

  it('signs in more clerks than the limit from one address, as successes never count; wrong passwords still use it up', async () => {
    const company = await createCompany(app.db);
    const office = officeAddress();
    const clerks = [];
    for (let n = 0; n < 7; n++) clerks.push(await createStaffMember(app.db, company.id, 'STAFF'));
    const statuses: number[] = [];
    for (const clerk of clerks.slice(0, 6))
      statuses.push((await signIn(office, clerk.email, STAFF_PASSWORD)).status);
    expect(statuses).toEqual(Array(6).fill(200));

    for (let attempt = 0; attempt < 4; attempt++) {
      expect((await signIn(office, `guess-${attempt}-${randomUUID()}@company.test`, 'guess')).status).toBe(
        401,
      );
    }
    const late = clerks[6]!;
    const refused = await signIn(office, late.email, STAFF_PASSWORD);
    expect([refused.status, refused.body.errorCode]).toEqual([429, 'RATE_LIMITED']);
    expect(
      await app.db.query('select 1 from staff_sessions where staff_user_id = $1', [late.userId]),
    ).toEqual([]);
  });

  it('lets the next clerk in after five sign in at once: only the one refused counts, in every process', async () => {
    const company = await createCompany(app.db);
    const office = officeAddress();
    const clerks = [];
    for (let n = 0; n < 6; n++) clerks.push(await createStaffMember(app.db, company.id, 'STAFF'));
    // Five at once against a limit of 4: each counted first, so one is refused; four give their points back.
    const burst = await Promise.all(
      clerks.slice(0, 5).map((clerk) => signIn(office, clerk.email, STAFF_PASSWORD)),
    );
    expect(burst.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 429]);
    const late = await signIn(office, clerks[5]!.email, STAFF_PASSWORD);
    expect([late.status, late.body.errorCode]).toEqual([200, undefined]);
  });

  it('still answers at most 4 wrong passwords sent together from one address, while its clerks sign in', async () => {
    const company = await createCompany(app.db);
    const office = officeAddress();
    const clerk = await createStaffMember(app.db, company.id, 'STAFF');
    expect((await signIn(office, clerk.email, STAFF_PASSWORD)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, attempt) =>
        signIn(office, `guess-${attempt}-${randomUUID()}@company.test`, 'guess'),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect({
      checked: statuses.filter((status) => status === 401).length,
      limited: statuses.filter((status) => status === 429).length,
    }).toEqual({ checked: 4, limited: 8 });
    // Spent: the right password is refused too, and opens no session.
    const other = await createStaffMember(app.db, company.id, 'STAFF');
    expect((await signIn(office, other.email, STAFF_PASSWORD)).status).toBe(429);
    expect(
      await app.db.query('select 1 from staff_sessions where staff_user_id = $1', [other.userId]),
    ).toEqual([]);
  });
});

describe('company dashboard sign-in: per-e-mail limit', () => {
  const app = useTestApp({ STAFF_LOGIN_MAX_PER_IP: 10_000 });
  let company: { id: string };
  let owner: StaffMember;

  beforeAll(async () => {
    company = await createCompany(app.db);
    owner = await createStaffMember(app.db, company.id, 'OWNER');
  });

  it('limits attempts per e-mail address: after 10 in the window even the right password gets 429', async () => {
    const member = await createStaffMember(app.db, company.id, 'STAFF');
    for (let attempt = 0; attempt < 10; attempt++) {
      expect(
        (await staffLogin(app, { email: member.email, password: `wrong-${attempt}` })).response.status,
      ).toBe(401);
    }
    const { response } = await staffLogin(app, {
      email: member.email.toUpperCase(),
      password: STAFF_PASSWORD,
    });
    expect(response.status).toBe(429);
    expect(response.body.errorCode).toBe('RATE_LIMITED');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await sessionsOf(app, member.userId)).toEqual([]);
    // Other addresses from the same client are unaffected.
    expect((await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD })).response.status).toBe(
      200,
    );
  });

  it('answers at most 10 wrong-password guesses for one address, even when they arrive together', async () => {
    const member = await createStaffMember(app.db, company.id, 'OWNER');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, attempt) =>
        staffLogin(app, { email: member.email, password: `wrong-${attempt}-${randomUUID()}` }),
      ),
    );
    expect(answers.filter(({ response }) => response.status === 401).length).toBeLessThanOrEqual(10);
  });

  it('counts only failures: 12 right passwords of one address sent together all sign in', async () => {
    const member = await createStaffMember(app.db, company.id, 'OWNER');
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => staffLogin(app, { email: member.email, password: STAFF_PASSWORD })),
    );
    expect(answers.map(({ response }) => [response.status, response.body.errorCode ?? null])).toEqual(
      Array.from({ length: 12 }, () => [200, null]),
    );
    expect((await sessionsOf(app, member.userId)).length).toBe(12);
    // Nothing was counted against the address: 10 wrong guesses are still each judged.
    for (let attempt = 0; attempt < 10; attempt++) {
      expect(
        (await staffLogin(app, { email: member.email, password: `wrong-${attempt}` })).response.status,
      ).toBe(401);
    }
    expect((await staffLogin(app, { email: member.email, password: 'wrong-11' })).response.status).toBe(429);
  });
});
