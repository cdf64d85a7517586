import { describe, expect, it, onTestFinished } from 'vitest';
import { hashSecret } from '../../../api/auth/secrets.js';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { createCity, createCompany, createCorridor, futureDay } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';
import { eventually, startedWithin } from '../../support/journeys.js';
import { usePrivateDatabase } from '../../support/private-database.js';
import { createStaffMember, staffLogin } from '../../support/staff.js';
import {
  auditRows,
  expectError,
  signedInAdmin,
  writeWhileAccountChanges,
  type AdminBrowser,
} from './helpers.js';

/**
 * Feature flags, maintenance windows, incidents and the waitlist. Flags and windows are global to
 * the platform, so this file runs against a database of its own; `app` and `other` are two API
 * processes on it (each with its own cache), polling the change counters every second.
 */
const database = usePrivateDatabase('platform_ops');
const POLL_SECONDS = 1;
const settings = {
  DATABASE_URL: database.url,
  PLATFORM_STATE_POLL_SECONDS: POLL_SECONDS,
  ADMIN_LOGIN_MAX_PER_IP: 10_000,
  STAFF_LOGIN_MAX_PER_IP: 10_000,
  STAFF_LOGIN_MAX_PER_EMAIL: 10_000,
  WAITLIST_RATE_LIMIT_PER_IP_PER_HOUR: 0,
};
const app = useTestApp(settings);
const other = useTestApp(settings);
const limited = useTestApp({ ...settings, WAITLIST_RATE_LIMIT_PER_IP_PER_HOUR: 2 });
/** Small limits of their own (a rule's counters are named by its points): requests a flag refuses count nothing. */
const switched = useTestApp({
  ...settings,
  WAITLIST_RATE_LIMIT_PER_IP_PER_HOUR: 3,
  SUPPORT_TICKET_RATE_LIMIT_PER_HOUR: 2,
});

const email = () => `someone-${crypto.randomUUID().slice(0, 8)}@example.com`;
const joinWaitlist = (on: TestApp, address = email()) =>
  on.request('/api/waitlist', { method: 'POST', json: { email: address } });

async function version(name: 'feature_flags' | 'maintenance'): Promise<string> {
  const [row] = await app.db.query<{ version: string }>(
    `select version from platform_state_versions where name = $1`,
    [name],
  );
  return row!.version;
}

/**
 * Sets a flag and waits past the poll interval, so every API process of this file has it; the flag
 * is switched back on when the test ends.
 */
async function switchFlag(browser: AdminBrowser, key: string, enabled: boolean): Promise<void> {
  const changed = await browser.send('PATCH', `/feature-flags/${key}`, { enabled, reason: 'Spam wave' });
  expect(changed.status, changed.text).toBe(200);
  if (!enabled) {
    onTestFinished(async () => {
      await browser.send('PATCH', `/feature-flags/${key}`, { enabled: true, reason: 'Back on' });
      await new Promise((resolve) => setTimeout(resolve, 2_500 * POLL_SECONDS));
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 2_500 * POLL_SECONDS));
}

async function auditCount(action: string): Promise<number> {
  const [row] = await app.db.query<{ n: number }>(
    `select count(*)::int as n from audit_log where action = $1`,
    [action],
  );
  return row!.n;
}

describe('feature flags', () => {
  it('lists every flag with its default; a change is recorded and in force in another API process within the poll interval', async () => {
    const { admin, browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const listed = await browser.get('/feature-flags');
    expect(listed.status).toBe(200);
    expect(listed.body.data.items).toContainEqual(
      expect.objectContaining({
        key: 'waitlist.signup',
        enabled: true,
        defaultEnabled: true,
        setByOperator: false,
      }),
    );
    expect((await joinWaitlist(other)).status).toBe(202);

    const off = await browser.send('PATCH', '/feature-flags/waitlist.signup', {
      enabled: false,
      reason: 'Launch postponed',
    });
    const changedAt = Date.now();
    expect(off.status, off.text).toBe(200);
    expect(off.body.data).toMatchObject({
      key: 'waitlist.signup',
      enabled: false,
      setByOperator: true,
      updatedBy: { id: admin.id },
    });
    expect(await auditRows(app.db, 'waitlist.signup')).toEqual([
      expect.objectContaining({
        actor_id: admin.id,
        action: 'feature_flags.update',
        target_kind: 'feature_flag',
        details: { reason: 'Launch postponed', before: true, after: false },
      }),
    ]);

    // From the answer (the change committed before it): in force in the other process within the
    // poll interval, with room for a loaded machine (three intervals), not never.
    const refused = await startedWithin(
      () => joinWaitlist(other),
      (response) => response.status === 503,
      changedAt,
      3 * POLL_SECONDS * 1000,
    );
    expectError(refused, 503, 'FEATURE_DISABLED');

    expect(
      (await browser.send('PATCH', '/feature-flags/waitlist.signup', { enabled: true, reason: 'Open' }))
        .status,
    ).toBe(200);
    const back = await eventually(
      () => joinWaitlist(other),
      (response) => response.status === 202,
      15_000,
    );
    expect(back.status).toBe(202);
  });

  it('two first changes of a flag at once are recorded one after the other, each with the value it replaced', async () => {
    const [first, second] = [
      await signedInAdmin(app, { role: 'ADMIN' }),
      await signedInAdmin(app, { role: 'ADMIN' }),
    ];
    const key = 'support.traveller_tickets';
    expect(await app.db.query(`select 1 from feature_flags where key = $1`, [key])).toEqual([]);
    // Neither change has found a stored value before both are under way: the test holds the table.
    const table = await holdLock(app.db, 'lock table feature_flags in share mode');
    const off = first.browser.send('PATCH', `/feature-flags/${key}`, {
      enabled: false,
      reason: 'Support overloaded',
    });
    await waitersOf(app.db, table.pid);
    const on = second.browser.send('PATCH', `/feature-flags/${key}`, { enabled: true, reason: 'Keep it on' });
    await waitersOf(app.db, table.pid, 2);
    await table.release();
    expect([(await off).status, (await on).status]).toEqual([200, 200]);

    const recorded = (await auditRows(app.db, key)).map((row) => row.details);
    expect(recorded).toHaveLength(2);
    expect(recorded[0]!.before).toBe(true);
    expect(recorded[1]!.before).toBe(recorded[0]!.after);
    const [stored] = await app.db.query<{ enabled: boolean }>(
      `select enabled from feature_flags where key = $1`,
      [key],
    );
    expect(stored!.enabled).toBe(recorded[1]!.after);
  });

  it('refuses without flags.manage, for an unknown flag or a bad body, and changes nothing', async () => {
    const { browser: supportBrowser } = await signedInAdmin(app, { role: 'SUPPORT' });
    const { browser } = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    const before = {
      version: await version('feature_flags'),
      audits: await auditCount('feature_flags.update'),
      flags: await app.db.query(`select * from feature_flags order by key`),
    };
    const denied = await supportBrowser.send('PATCH', '/feature-flags/waitlist.signup', {
      enabled: false,
      reason: 'No' + 'pe',
    });
    expectError(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.details).toEqual({ permission: 'flags.manage' });
    expectError(
      await browser.send('PATCH', '/feature-flags/no.such_flag', { enabled: false, reason: 'typo' }),
      404,
      'FEATURE_FLAG_NOT_FOUND',
    );
    expectError(
      await browser.send('PATCH', '/feature-flags/waitlist.signup', { enabled: 'no', reason: 'bad' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await browser.send('PATCH', '/feature-flags/waitlist.signup', {
        enabled: false,
        reason: 'ok',
        rollout: 50,
      }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await browser.send('PATCH', '/feature-flags/Bad Key', { enabled: false, reason: 'bad' }),
      400,
      'VALIDATION_FAILED',
    );
    expect({
      version: await version('feature_flags'),
      audits: await auditCount('feature_flags.update'),
      flags: await app.db.query(`select * from feature_flags order by key`),
    }).toEqual(before);
  });

  it('a PATCH answers the value it set, even when another change of the flag commits right after it', async () => {
    const { admin, browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const key = 'waitlist.signup';
    // The change waits a moment to write its audit row; meanwhile another writer asks for the flag
    // table, gets it as soon as the change commits, and turns the flag back on.
    const auditTable = await holdLock(app.db, 'lock table audit_log in share mode');
    const setting = browser.send('PATCH', `/feature-flags/${key}`, {
      enabled: false,
      reason: 'Pause sign-ups',
    });
    await waitersOf(app.db, auditTable.pid);
    const other = await app.db.pool.connect();
    try {
      const [{ pid }] = (await other.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [
        { pid: number },
      ];
      await other.query('begin');
      const taking = other.query('lock table feature_flags in access exclusive mode');
      await waitersOf(app.db, auditTable.pid, 2);
      await auditTable.release();
      await taking;
      await answeredOrWaiting(setting, app.db, pid);
      await other.query(`update feature_flags set enabled = true, updated_at = now() where key = $1`, [key]);
      await other.query(
        `update platform_state_versions set version = version + 1 where name = 'feature_flags'`,
      );
      await other.query('commit');
    } finally {
      await auditTable.release();
      other.release();
    }
    const answer = await setting;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toMatchObject({
      key,
      enabled: false,
      setByOperator: true,
      updatedBy: { id: admin.id },
    });
    const [stored] = await app.db.query<{ enabled: boolean }>(
      `select enabled from feature_flags where key = $1`,
      [key],
    );
    expect(stored!.enabled).toBe(true);
  });

  it('a PATCH that sets the value the flag has answers the flag unchanged and writes nothing', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const key = 'waitlist.signup';
    const current = await browser.send('PATCH', `/feature-flags/${key}`, { enabled: true, reason: 'Open' });
    expect(current.status, current.text).toBe(200);
    const state = async () => ({
      version: await version('feature_flags'),
      audits: await auditCount('feature_flags.update'),
      flags: await app.db.query(`select * from feature_flags order by key`),
    });
    const before = await state();
    const again = await browser.send('PATCH', `/feature-flags/${key}`, {
      enabled: true,
      reason: 'Open again',
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toEqual(current.body.data);
    expect(await state()).toEqual(before);
  });
});

describe('support.traveller_tickets switched off', () => {
  it('refuses opening a ticket and writing on one, writes nothing, and the refusals use up none of the traveller\u2019s hourly limit', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const traveller = await switched.signIn();
    const corridor = await createCorridor(app.db);
    const { bookingId } = await confirmedJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip: journeyTripOf(corridor),
      travellers: ['Rami Haddad'],
    });
    const open = () =>
      switched.request('/api/support-tickets', {
        method: 'POST',
        headers: traveller.writeHeaders,
        json: { bookingId, subject: 'Seat question', message: 'Can I change my seat?' },
      });
    const write = (ticketId: string) =>
      switched.request(`/api/support-tickets/${ticketId}/messages`, {
        method: 'POST',
        headers: traveller.writeHeaders,
        json: { message: 'Any news?' },
      });
    const written = async () => ({
      tickets: await app.db.query(`select * from support_tickets where booking_id = $1 order by id`, [
        bookingId,
      ]),
      messages: await app.db.query(
        `select m.* from support_ticket_messages m join support_tickets t on t.id = m.ticket_id
          where t.booking_id = $1 order by m.id`,
        [bookingId],
      ),
    });

    await switchFlag(browser, 'support.traveller_tickets', false);
    const before = await written();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const refused = await open();
      expectError(refused, 503, 'FEATURE_DISABLED');
      expect(refused.body.details).toEqual({ flag: 'support.traveller_tickets' });
    }
    expect(await written()).toEqual(before);

    await switchFlag(browser, 'support.traveller_tickets', true);
    const opened = await open();
    expect(opened.status, opened.text).toBe(201);
    const ticketId = opened.body.data.id as string;

    await switchFlag(browser, 'support.traveller_tickets', false);
    const withTicket = await written();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expectError(await write(ticketId), 503, 'FEATURE_DISABLED');
    }
    expect(await written()).toEqual(withTicket);

    await switchFlag(browser, 'support.traveller_tickets', true);
    const answered = await write(ticketId);
    expect(answered.status, answered.text).toBe(200);
    // The limit (2 an hour) still counts what the flag let through: the ticket and the message.
    expectError(await write(ticketId), 429, 'RATE_LIMITED');
  });
});

describe('maintenance windows', () => {
  async function companyOwner() {
    const company = await createCompany(app.db);
    const owner = await createStaffMember(app.db, company.id, 'OWNER');
    const credentials = { email: owner.email, password: owner.password };
    const browser = await staffLogin(app, credentials);
    expect(browser.response.status, browser.response.text).toBe(200);
    return { company, credentials, browser };
  }

  it('while a window is in force, customer and dashboard writes answer 503 MAINTENANCE with Retry-After; reads, sign-in and the administration keep working', async () => {
    const { browser } = await signedInAdmin(app);
    const staff = await companyOwner();
    const traveller = await app.signIn();
    const [from, to] = [await createCity(app.db), await createCity(app.db)];
    const favorite = { originCityId: from.id, destCityId: to.id };
    const saveFavorite = (on: TestApp) =>
      on.request('/api/favorites', { method: 'POST', headers: traveller.writeHeaders, json: favorite });

    const scheduled = await browser.send('POST', '/maintenance', {
      message: 'Database upgrade',
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() + 600_000).toISOString(),
    });
    expect(scheduled.status, scheduled.text).toBe(201);
    expect(scheduled.body.data).toMatchObject({ state: 'ACTIVE', message: 'Database upgrade' });
    const windowId = scheduled.body.data.id;
    onTestFinished(async () => {
      await app.db.query(
        `update maintenance_windows set cancelled_at = coalesce(cancelled_at, now()) where id = $1`,
        [windowId],
      );
      await app.db.query(
        `update platform_state_versions set version = version + 1 where name = 'maintenance'`,
      );
    });
    expect((await auditRows(app.db, windowId)).map((row) => row.action)).toEqual(['maintenance.create']);

    const refused = await eventually(
      () => saveFavorite(other),
      (response) => response.status === 503,
      15_000,
    );
    expectError(refused, 503, 'MAINTENANCE');
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(refused.body.details).toMatchObject({
      message: 'Database upgrade',
      endsAt: scheduled.body.data.endsAt,
    });

    expect((await app.request('/api/cities')).status).toBe(200);
    expect((await app.request('/api/favorites', { headers: { Cookie: traveller.cookie } })).status).toBe(200);
    const settingsWrite = await app.request('/dashboard/api/settings/booking-confirmation', {
      method: 'PUT',
      headers: staff.browser.writeHeaders,
      json: { mode: 'MANUAL_CONFIRM', decisionWindowMinutes: 30, channels: ['CUSTOMER_WEB'] },
    });
    expectError(settingsWrite, 503, 'MAINTENANCE');
    expect(
      (await app.request('/dashboard/api/auth/me', { headers: { Cookie: staff.browser.cookie } })).status,
    ).toBe(200);
    expect((await staffLogin(app, staff.credentials)).response.status).toBe(200);
    const search = await app.request('/api/journeys/search', {
      method: 'POST',
      json: {
        origin_city_id: from.id,
        destination_city_id: to.id,
        departure_date: futureDay(2),
        passengers: 1,
      },
    });
    expect(search.status, search.text).toBe(200);
    const incident = await browser.send('POST', '/incidents', {
      title: 'Upgrade running',
      severity: 'MINOR',
    });
    expect(incident.status).toBe(201);
    expect((await browser.get('/maintenance')).body.data.active).toMatchObject({
      id: windowId,
      state: 'ACTIVE',
    });

    const moved = await browser.send('PATCH', `/maintenance/${windowId}`, {
      startsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expectError(moved, 409, 'MAINTENANCE_WINDOW_ACTIVE');
    const cancelled = await browser.send('POST', `/maintenance/${windowId}/cancel`, {
      reason: 'Upgrade done early',
    });
    expect(cancelled.body.data).toMatchObject({ state: 'CANCELLED' });
    expect((await auditRows(app.db, windowId)).map((row) => row.action)).toEqual([
      'maintenance.create',
      'maintenance.cancel',
    ]);
    const open = await eventually(
      () => saveFavorite(other),
      (response) => response.status !== 503,
      15_000,
    );
    expect([200, 201]).toContain(open.status);
  });

  it('with overlapping windows in force, the active one listed is the one the gate enforces: the one ending last', async () => {
    const { browser } = await signedInAdmin(app);
    const schedule = async (message: string, startsIn: number, endsIn: number) => {
      const answer = await browser.send('POST', '/maintenance', {
        message,
        startsAt: new Date(Date.now() + startsIn).toISOString(),
        endsAt: new Date(Date.now() + endsIn).toISOString(),
      });
      expect(answer.status, answer.text).toBe(201);
      const id = answer.body.data.id as string;
      onTestFinished(async () => {
        await app.db.query(
          `update maintenance_windows set cancelled_at = coalesce(cancelled_at, now()) where id = $1`,
          [id],
        );
        await app.db.query(
          `update platform_state_versions set version = version + 1 where name = 'maintenance'`,
        );
      });
      return answer.body.data as { id: string; endsAt: string };
    };
    const long = await schedule('Long window', -2_000, 3 * 3_600_000);
    // Started later and ends sooner: the newest start, not the window in force.
    await schedule('Short window', -1_000, 30 * 60_000);

    const refused = await eventually(
      () => joinWaitlist(other),
      (response) => response.status === 503,
      15_000,
    );
    expectError(refused, 503, 'MAINTENANCE');
    const listed = await browser.get('/maintenance');
    expect(listed.status, listed.text).toBe(200);
    expect(refused.body.details).toMatchObject({ message: 'Long window', endsAt: long.endsAt });
    expect(listed.body.data.active).toMatchObject({
      id: long.id,
      message: 'Long window',
      endsAt: long.endsAt,
    });
  });

  /** A window in force now, cancelled when the test ends; resolves once `app` refuses writes. */
  async function windowInForce(traveller: { writeHeaders: Record<string, string> }): Promise<void> {
    const { browser } = await signedInAdmin(app);
    const scheduled = await browser.send('POST', '/maintenance', {
      message: 'Database upgrade',
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() + 600_000).toISOString(),
    });
    expect(scheduled.status, scheduled.text).toBe(201);
    onTestFinished(async () => {
      await app.db.query(
        `update maintenance_windows set cancelled_at = coalesce(cancelled_at, now()) where id = $1`,
        [scheduled.body.data.id],
      );
      await app.db.query(
        `update platform_state_versions set version = version + 1 where name = 'maintenance'`,
      );
    });
    const refused = await eventually(
      () => app.request('/api/favorites', { method: 'POST', headers: traveller.writeHeaders, json: {} }),
      (response) => response.status === 503,
      15_000,
    );
    expectError(refused, 503, 'MAINTENANCE');
  }

  it('keeps only sign-in, refresh and sign-out open under /api/auth: account writes answer 503 MAINTENANCE and write nothing', async () => {
    const traveller = await app.signIn();
    const leaving = await app.signIn();
    const address = email();
    await app.db.query(`update users set email = $2, email_verified_at = null where id = $1`, [
      traveller.userId,
      address,
    ]);
    // A verification link and a recovery link, as the e-mails would carry them.
    const link = (purpose: string) => {
      const token = `ops${purpose.toLowerCase()}${crypto.randomUUID().replaceAll('-', '')}`;
      return app.db
        .query(
          `insert into email_tokens (user_id, purpose, email, token_hash, created_at, expires_at)
           values ($1, $2, $3, $4, clock_timestamp(), clock_timestamp() + interval '1 hour')`,
          [traveller.userId, purpose, address, hashSecret(token)],
        )
        .then(() => token);
    };
    const [verifyToken, recoveryToken] = [await link('VERIFY_EMAIL'), await link('RESET_PASSWORD')];
    const accountState = async () => ({
      user: await app.db.query(
        `select email_verified_at, password_hash, phone, status from users where id = $1`,
        [traveller.userId],
      ),
      tokens: await app.db.query(`select * from email_tokens where user_id = $1 order by id`, [
        traveller.userId,
      ]),
    });
    await windowInForce(traveller);
    const before = await accountState();

    const post = (path: string, json?: unknown, headers?: Record<string, string>) =>
      app.request(`/api${path}`, { method: 'POST', ...(headers && { headers }), ...(json ? { json } : {}) });
    const refused = {
      resendVerification: await post('/auth/customer/resend-verification', undefined, traveller.writeHeaders),
      verifyEmail: await post('/auth/customer/verify-email', { token: verifyToken }),
      forgotPassword: await post('/auth/forgot-password', { email: address }),
      resetPassword: await post('/auth', { token: recoveryToken, password: 'a brand new password 1' }),
      completePhone: await post(
        '/auth/customer/complete-phone',
        { phone: '+963900000000', code: '000000' },
        traveller.writeHeaders,
      ),
    };
    for (const response of Object.values(refused)) expectError(response, 503, 'MAINTENANCE');
    expect(await accountState()).toEqual(before);

    // Signing in stays open, so do session refresh and sign-out, and reading one's own account.
    const refreshed = await post('/auth/customer/refresh', { refreshToken: leaving.refreshToken });
    expect(refreshed.status, refreshed.text).toBe(200);
    const me = await app.request('/api/auth/customer/me', { headers: { Cookie: traveller.cookie } });
    expect(me.status, me.text).toBe(200);
    const signedOut = await post('/auth/customer/logout', undefined, traveller.writeHeaders);
    expect(signedOut.status, signedOut.text).toBe(200);
  });

  it('schedules only sensible windows; a refused change writes nothing; a future window blocks nothing yet', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const { browser: analyst } = await signedInAdmin(app, { role: 'ANALYST' });
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    const rows = () => app.db.query(`select * from maintenance_windows order by id`);
    const before = {
      rows: await rows(),
      version: await version('maintenance'),
      audits: await auditCount('maintenance.create'),
    };
    expectError(
      await browser.send('POST', '/maintenance', { message: 'Reversed', startsAt: at(60), endsAt: at(30) }),
      400,
      'MAINTENANCE_WINDOW_INVALID',
    );
    expectError(
      await browser.send('POST', '/maintenance', { message: 'Over', startsAt: at(-60), endsAt: at(-30) }),
      400,
      'MAINTENANCE_WINDOW_INVALID',
    );
    expectError(
      await browser.send('POST', '/maintenance', {
        message: 'Too long',
        startsAt: at(60),
        endsAt: at(60 + 73 * 60),
      }),
      400,
      'MAINTENANCE_WINDOW_TOO_LONG',
    );
    expectError(
      await browser.send('POST', '/maintenance', { message: 'No end', startsAt: at(60) }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await browser.send('POST', '/maintenance', {
        message: 'Bad time',
        startsAt: 'tomorrow',
        endsAt: at(90),
      }),
      400,
      'VALIDATION_FAILED',
    );
    const denied = await analyst.send('POST', '/maintenance', {
      message: 'Analyst',
      startsAt: at(60),
      endsAt: at(90),
    });
    expectError(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.details).toEqual({ permission: 'maintenance.manage' });
    expect({
      rows: await rows(),
      version: await version('maintenance'),
      audits: await auditCount('maintenance.create'),
    }).toEqual(before);

    const future = await browser.send('POST', '/maintenance', {
      message: 'Later',
      startsAt: at(24 * 60),
      endsAt: at(25 * 60),
    });
    expect(future.body.data.state).toBe('SCHEDULED');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await joinWaitlist(other)).status).toBe(202);
    const changed = await browser.send('PATCH', `/maintenance/${future.body.data.id}`, {
      endsAt: at(26 * 60),
    });
    expect(changed.status).toBe(200);
    const [update] = (await auditRows(app.db, future.body.data.id)).filter(
      (row) => row.action === 'maintenance.update',
    );
    expect(update!.details.before.endsAt).toBe(future.body.data.endsAt);
    expect(update!.details.after.endsAt).toBe(changed.body.data.endsAt);
    expect(
      (await analyst.get('/maintenance?state=SCHEDULED')).body.data.items.map(
        (item: { id: string }) => item.id,
      ),
    ).toContain(future.body.data.id);
    expect(
      (await browser.send('POST', `/maintenance/${future.body.data.id}/cancel`, { reason: 'Not needed' }))
        .status,
    ).toBe(200);
    expectError(
      await browser.send('POST', `/maintenance/${future.body.data.id}/cancel`, { reason: 'Again' }),
      409,
      'MAINTENANCE_WINDOW_CLOSED',
    );
    expectError(
      await browser.send('POST', `/maintenance/${crypto.randomUUID()}/cancel`, { reason: 'Unknown' }),
      404,
      'MAINTENANCE_WINDOW_NOT_FOUND',
    );
  });

  it('a PATCH that changes nothing answers the window as it is and writes nothing', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    const scheduled = await browser.send('POST', '/maintenance', {
      message: 'Unchanged',
      startsAt: at(48 * 60),
      endsAt: at(49 * 60),
    });
    expect(scheduled.status, scheduled.text).toBe(201);
    const windowId = scheduled.body.data.id;
    const stored = async () => ({
      row: await app.db.query(`select * from maintenance_windows where id = $1`, [windowId]),
      version: await version('maintenance'),
      audits: await auditCount('maintenance.update'),
    });
    const before = await stored();

    const { message, startsAt, endsAt } = scheduled.body.data;
    for (const body of [{ message }, { startsAt, endsAt }, { message, startsAt, endsAt }]) {
      const same = await browser.send('PATCH', `/maintenance/${windowId}`, body);
      expect(same.status, same.text).toBe(200);
      expect(same.body.data).toEqual(scheduled.body.data);
    }
    expect(await stored()).toEqual(before);
  });
  it('an active window sent its own start back with a new message and end is changed, not refused as a move', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    const opened = await browser.send('POST', '/maintenance', {
      message: 'Database upgrade',
      startsAt: at(-1),
      endsAt: at(30),
    });
    expect(opened.status, opened.text).toBe(201);
    const windowId = opened.body.data.id;
    onTestFinished(async () => {
      await browser.send('POST', `/maintenance/${windowId}/cancel`, { reason: 'test over' });
    });
    expect(opened.body.data.state).toBe('ACTIVE');
    const { startsAt } = opened.body.data;

    const endsAt = at(20);
    const changed = await browser.send('PATCH', `/maintenance/${windowId}`, {
      message: 'Database upgrade, nearly done',
      startsAt,
      endsAt,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({
      state: 'ACTIVE',
      startsAt,
      endsAt,
      message: 'Database upgrade, nearly done',
    });
    // Moving the start of an active window is still refused, and writes nothing.
    const audits = await auditCount('maintenance.update');
    const moved = await browser.send('PATCH', `/maintenance/${windowId}`, { startsAt: at(-2) });
    expectError(moved, 409, 'MAINTENANCE_WINDOW_ACTIVE');
    expect(await auditCount('maintenance.update')).toBe(audits);
  });
});

describe('incidents', () => {
  it('opens, updates and resolves an incident, each change recorded; a resolved one is final', async () => {
    const { admin, browser } = await signedInAdmin(app, { role: 'SUPPORT' });
    const { browser: analyst } = await signedInAdmin(app, { role: 'ANALYST' });
    const opened = await browser.send('POST', '/incidents', {
      title: 'SMS codes late',
      severity: 'MAJOR',
      description: 'Provider slow',
    });
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.data).toMatchObject({
      status: 'INVESTIGATING',
      severity: 'MAJOR',
      createdBy: admin.id,
      resolvedAt: null,
    });
    const id = opened.body.data.id;
    const updated = await browser.send('PATCH', `/incidents/${id}`, {
      status: 'IDENTIFIED',
      severity: 'MINOR',
    });
    expect(updated.body.data).toMatchObject({
      status: 'IDENTIFIED',
      severity: 'MINOR',
      title: 'SMS codes late',
    });
    const resolved = await browser.send('POST', `/incidents/${id}/resolve`, {
      resolution: 'Provider fixed its queue',
    });
    expect(resolved.body.data).toMatchObject({
      status: 'RESOLVED',
      resolution: 'Provider fixed its queue',
      resolvedAt: expect.any(String),
    });
    const audits = await auditRows(app.db, id);
    expect(audits.map((row) => row.action)).toEqual([
      'incidents.create',
      'incidents.update',
      'incidents.resolve',
    ]);
    expect(audits[1]!.details).toMatchObject({
      before: { status: 'INVESTIGATING', severity: 'MAJOR' },
      after: { status: 'IDENTIFIED', severity: 'MINOR' },
    });

    expectError(
      await browser.send('PATCH', `/incidents/${id}`, { title: 'Reopened?' }),
      409,
      'INCIDENT_RESOLVED',
    );
    expectError(
      await browser.send('POST', `/incidents/${id}/resolve`, { resolution: 'Twice' }),
      409,
      'INCIDENT_RESOLVED',
    );
    expectError(
      await browser.send('PATCH', `/incidents/${id}`, { status: 'RESOLVED' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await browser.send('PATCH', `/incidents/${id}`, {}), 400, 'VALIDATION_FAILED');
    expectError(
      await browser.send('PATCH', `/incidents/${crypto.randomUUID()}`, { title: 'Nobody' }),
      404,
      'INCIDENT_NOT_FOUND',
    );
    expect((await auditRows(app.db, id)).length).toBe(3);

    const open = await analyst.get('/incidents?open=true');
    expect(open.body.data.items.map((item: { id: string }) => item.id)).not.toContain(id);
    const done = await analyst.get('/incidents?status=RESOLVED');
    expect(done.body.data.items.map((item: { id: string }) => item.id)).toContain(id);
    expectError(
      await analyst.send('POST', '/incidents', { title: 'Analyst', severity: 'MINOR' }),
      403,
      'PERMISSION_DENIED',
    );
  });
  it('a PATCH that changes nothing answers the incident as it is and writes nothing', async () => {
    const { browser } = await signedInAdmin(app, { role: 'SUPPORT' });
    const opened = await browser.send('POST', '/incidents', {
      title: 'Search slow',
      severity: 'MINOR',
      description: 'Looking',
    });
    expect(opened.status, opened.text).toBe(201);
    const id = opened.body.data.id;
    const stored = async () => ({
      row: await app.db.query('select * from incidents where id = $1', [id]),
      audits: (await auditRows(app.db, id)).map((row) => row.action),
    });
    const before = await stored();
    const { title, severity, description, status } = opened.body.data;
    for (const body of [{ title }, { severity, status }, { title, severity, description, status }]) {
      const same = await browser.send('PATCH', `/incidents/${id}`, body);
      expect(same.status, same.text).toBe(200);
      expect(same.body.data).toEqual(opened.body.data);
    }
    expect(await stored()).toEqual({ ...before, audits: ['incidents.create'] });
  });

  it('refuses an incident that starts in year 0 (in UTC too) or later than now, and records nothing', async () => {
    const { browser } = await signedInAdmin(app, { role: 'SUPPORT' });
    const title = `Clock ${crypto.randomUUID()}`;
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    // 0001-01-01T00:00:00+15:00 is 0000-12-31T09:00:00Z, before PostgreSQL's first year.
    for (const startedAt of ['0000-06-01T00:00:00Z', '0001-01-01T00:00:00+15:00', inAnHour]) {
      const opened = await browser.send('POST', '/incidents', { title, severity: 'MINOR', startedAt });
      expectError(opened, 400, 'VALIDATION_FAILED');
    }
    const earlier = new Date(Date.now() - 3_600_000).toISOString();
    const opened = await browser.send('POST', '/incidents', { title, severity: 'MINOR', startedAt: earlier });
    expect(opened.status, opened.text).toBe(201);
    const stored = await app.db.query(
      'select started_at = $2::timestamptz as as_sent from incidents where title = $1',
      [title, earlier],
    );
    expect(stored).toEqual([{ as_sent: true }]);
  });
});

describe('an administrator disabled or demoted while their change is in flight', () => {
  const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  const platformState = async () => ({
    flags: await app.db.query(`select * from feature_flags order by key`),
    windows: await app.db.query(`select id from maintenance_windows order by id`),
    incidents: await app.db.query(`select id from incidents order by id`),
    versions: await app.db.query(`select name, version from platform_state_versions order by name`),
  });
  const writes = [
    {
      name: 'a flag change',
      role: 'ADMIN',
      permission: 'flags.manage',
      send: (browser: AdminBrowser) =>
        browser.send('PATCH', '/feature-flags/waitlist.signup', {
          enabled: false,
          reason: 'Demoted meanwhile',
        }),
    },
    {
      name: 'a maintenance window',
      role: 'ADMIN',
      permission: 'maintenance.manage',
      send: (browser: AdminBrowser) =>
        browser.send('POST', '/maintenance', {
          message: 'Demoted meanwhile',
          startsAt: at(600),
          endsAt: at(660),
        }),
    },
    {
      name: 'an incident',
      role: 'SUPPORT',
      permission: 'incidents.manage',
      send: (browser: AdminBrowser) =>
        browser.send('POST', '/incidents', {
          title: 'Demoted meanwhile',
          severity: 'MINOR',
          description: 'x',
        }),
    },
  ] as const;

  for (const write of writes) {
    it(`${write.name}: demoted, 403 PERMISSION_DENIED naming ${write.permission}; disabled, 401; nothing written`, async () => {
      const { browser: boss } = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
      const before = await platformState();
      onTestFinished(async () => {
        await app.db.query(
          `update maintenance_windows set cancelled_at = now() where message = 'Demoted meanwhile'`,
        );
      });

      const demoted = await signedInAdmin(app, { role: write.role });
      const lost = await writeWhileAccountChanges(app, boss, demoted.admin.id, { role: 'ANALYST' }, () =>
        write.send(demoted.browser),
      );
      expect(lost.change.status, lost.change.text).toBe(200);
      expectError(lost.write, 403, 'PERMISSION_DENIED');
      expect(lost.write.body.details).toEqual({ permission: write.permission });

      const disabled = await signedInAdmin(app, { role: write.role });
      const gone = await writeWhileAccountChanges(app, boss, disabled.admin.id, { status: 'DISABLED' }, () =>
        write.send(disabled.browser),
      );
      expect(gone.change.status, gone.change.text).toBe(200);
      expectError(gone.write, 401, 'INVALID_CREDENTIAL');
      expect(await platformState()).toEqual(before);
    });
  }
});

describe('waitlist', () => {
  it('stores the lower-case address and the time only, once, and answers every sign-up alike', async () => {
    const address = email();
    const first = await joinWaitlist(app, address.toUpperCase());
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ success: true, data: { joined: true } });
    const again = await joinWaitlist(app, address);
    expect({ status: again.status, body: again.body }).toEqual({ status: first.status, body: first.body });
    const rows = await app.db.query(`select * from waitlist_entries where email = $1`, [address]);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!).sort()).toEqual(['created_at', 'email', 'id']);
  });

  it('refuses a bad address or extra fields and stores nothing', async () => {
    const count = async () =>
      (await app.db.query<{ n: number }>(`select count(*)::int as n from waitlist_entries`))[0]!.n;
    const before = await count();
    expectError(
      await app.request('/api/waitlist', { method: 'POST', json: { email: 'not-an-address' } }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await app.request('/api/waitlist', { method: 'POST', json: { email: email(), name: 'Lina' } }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await app.request('/api/waitlist', { method: 'POST', json: {} }), 400, 'VALIDATION_FAILED');
    expect(await count()).toBe(before);
  });

  it('limits sign-ups per client IP', async () => {
    expect((await joinWaitlist(limited)).status).toBe(202);
    expect((await joinWaitlist(limited)).status).toBe(202);
    const third = await joinWaitlist(limited);
    expectError(third, 429, 'RATE_LIMITED');
    expect(Number(third.headers.get('Retry-After'))).toBeGreaterThan(0);
  });

  it('refuses sign-ups while waitlist.signup is off and stores nothing; those refusals use up none of the IP limit', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const count = async () =>
      (await app.db.query<{ n: number }>(`select count(*)::int as n from waitlist_entries`))[0]!.n;
    await switchFlag(browser, 'waitlist.signup', false);
    const before = await count();
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const refused = await joinWaitlist(switched);
      expectError(refused, 503, 'FEATURE_DISABLED');
      expect(refused.body.details).toEqual({ flag: 'waitlist.signup' });
    }
    expect(await count()).toBe(before);

    await switchFlag(browser, 'waitlist.signup', true);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const joined = await joinWaitlist(switched);
      expect(joined.status, joined.text).toBe(202);
    }
    expectError(await joinWaitlist(switched), 429, 'RATE_LIMITED');
    expect(await count()).toBe(before + 3);
  });

  it('shows the sign-ups to waitlist.view, recording each read; others get 403 and no audit row', async () => {
    const address = email();
    await joinWaitlist(app, address);
    const { admin, browser } = await signedInAdmin(app, { role: 'ANALYST' });
    const found = await browser.get(`/waitlist?search=${address.slice(0, 16)}`);
    expect(found.status).toBe(200);
    expect(found.body.data).toMatchObject({
      total: 1,
      items: [{ email: address, createdAt: expect.any(String) }],
    });
    const [read] = await app.db.query<{ details: any }>(
      `select details from audit_log where actor_id = $1 and action = 'waitlist.list'`,
      [admin.id],
    );
    expect(read!.details).toMatchObject({ filter: { search: address.slice(0, 16) }, returned: 1 });

    const { admin: agent, browser: support } = await signedInAdmin(app, { role: 'SUPPORT' });
    const denied = await support.get('/waitlist');
    expectError(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.details).toEqual({ permission: 'waitlist.view' });
    expect(
      await app.db.query(`select 1 from audit_log where actor_id = $1 and action = 'waitlist.list'`, [
        agent.id,
      ]),
    ).toEqual([]);
  });
});
