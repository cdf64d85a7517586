import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTravellerTokens } from '../../api/auth/traveller-token.js';
import { rateLimitAddress } from '../../api/http/client-address.js';
import { createCompany } from '../support/factories.js';
import { useTestApp, type TestApp } from '../support/harness.js';
import {
  bookableTrip,
  bookingBody,
  createBooking,
  lockSeats,
  postBooking,
  requestSeatLock,
} from '../support/bookings.js';
import { mobileTraveller, webTraveller } from '../support/journeys.js';
import { createStaffMember, STAFF_PASSWORD, staffLogin, type StaffMember } from '../support/staff.js';
import { ADMIN_PASSWORD, createAdmin } from './admin/helpers.js';

/**
 * Trust boundaries found by trying the API as an attacker would (issue 18): forged client IPs,
 * path case, NUL characters, names that print as something else, tokens naming another
 * traveller's session, lockouts by e-mail alone, and the development conveniences production refuses.
 */

/** An OWNER's session, its POST /dashboard/api/drivers with `name` sent as these bytes, and what that stored. */
async function newDriverSender(app: TestApp) {
  const company = await createCompany(app.db);
  const owner = await createStaffMember(app.db, company.id, 'OWNER');
  const session = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
  const email = `driver-${randomUUID().slice(0, 8)}@company.test`;
  const send = (name: Buffer, contentType: string) =>
    app.request('/dashboard/api/drivers', {
      method: 'POST',
      headers: { ...session.writeHeaders, 'Content-Type': contentType },
      body: Buffer.concat([
        Buffer.from(`{"email":"${email}","password":"long enough secret","name":"`),
        name,
        Buffer.from('"}'),
      ]),
    });
  const stored = () => app.db.query(`select name from staff_users where email = $1`, [email]);
  return { send, stored, session };
}

const reservedPhone = () => `+963900${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
const prelaunch = { OTP_PRELAUNCH: true, SITE_MODE: 'coming_soon' as const };

function verifyOtp(app: TestApp, headers: Record<string, string> = {}) {
  return app.request('/api/auth/customer/verify-otp', {
    method: 'POST',
    headers,
    json: { phone: reservedPhone(), code: '123456', method: 'sms' },
  });
}

describe('client IP behind proxies: TRUSTED_PROXY_HOPS=0 (the default) trusts no X-Forwarded-For', () => {
  // Rule sizes of their own: counters are named by rule, and other files limit 127.0.0.1 at 2.
  const app = useTestApp({ ...prelaunch, OTP_VERIFY_PER_IP_PER_HOUR: 3 });

  it('keeps counting one client whatever X-Forwarded-For it writes', async () => {
    const statuses = [];
    for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4'])
      statuses.push((await verifyOtp(app, { 'X-Forwarded-For': forged })).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
  });
});

describe('client IP behind one proxy: TRUSTED_PROXY_HOPS=1 takes the entry the proxy appended', () => {
  const app = useTestApp({ ...prelaunch, OTP_VERIFY_PER_IP_PER_HOUR: 2, TRUSTED_PROXY_HOPS: 1 });

  it('ignores what the client wrote to the left of it', async () => {
    const client = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const statuses = [];
    for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3'])
      statuses.push((await verifyOtp(app, { 'X-Forwarded-For': `${forged}, ${client}` })).status);
    expect(statuses).toEqual([400, 400, 429]);
    // Another client behind the same proxy has its own counter.
    expect((await verifyOtp(app, { 'X-Forwarded-For': `${client}, 192.0.2.77` })).status).toBe(400);
  });
});

describe('client IP behind one proxy: a per-IP limit counts an IPv6 client by its /64', () => {
  const app = useTestApp({
    ...prelaunch,
    TRUSTED_PROXY_HOPS: 1,
    OTP_SEND_PER_IP_PER_HOUR: 2,
    OTP_SEND_PER_PHONE_PER_HOUR: 0,
  });
  const hex = () => Math.floor(Math.random() * 0xffff).toString(16);
  /** A /64 of its own for each run (counters live for an hour in the shared database). */
  const prefix = () => `2001:db8:${hex()}:${hex()}`;
  const sendFrom = async (ip: string) =>
    (
      await app.request('/api/auth/customer/send-otp', {
        method: 'POST',
        headers: { 'X-Forwarded-For': ip },
        json: { phone: reservedPhone(), method: 'sms' },
      })
    ).status;

  it('refuses the third send-otp from one /64 however its addresses rotate', async () => {
    const net = prefix();
    const statuses = [];
    for (const host of ['::1', '::2', ':1:2:3:4', ':ffff:ffff:ffff:ffff'])
      statuses.push(await sendFrom(`${net}${host}`));
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('counts two /64s apart', async () => {
    const [one, two] = [prefix(), prefix()];
    expect([await sendFrom(`${one}::1`), await sendFrom(`${one}::2`)]).toEqual([200, 200]);
    expect([await sendFrom(`${two}::1`), await sendFrom(`${two}::2`)]).toEqual([200, 200]);
    expect([await sendFrom(`${one}::3`), await sendFrom(`${two}::3`)]).toEqual([429, 429]);
  });

  it('counts an IPv4-mapped address with its IPv4 form', async () => {
    const ipv4 = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const statuses = [await sendFrom(ipv4), await sendFrom(`::ffff:${ipv4}`), await sendFrom(ipv4)];
    expect(statuses).toEqual([200, 200, 429]);
    expect(await sendFrom(`::FFFF:${ipv4}`)).toBe(429);
  });

  it('keys an address as a rate limit counts it', () => {
    expect(rateLimitAddress('2001:0db8:0051:0007:ffff::4')).toBe('2001:db8:51:7::/64');
    expect(rateLimitAddress('2001:db8:51:7::1')).toBe('2001:db8:51:7::/64');
    expect(rateLimitAddress('2001:db8:51:8::1')).toBe('2001:db8:51:8::/64');
    expect(rateLimitAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(rateLimitAddress('::ffff:c000:201')).toBe('192.0.2.1');
    expect(rateLimitAddress('192.0.2.1')).toBe('192.0.2.1');
    expect(rateLimitAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(rateLimitAddress('not-an-address')).toBe('not-an-address');
  });
});

describe('complete-phone draws on the verify-otp limit per client IP', () => {
  const app = useTestApp({ ...prelaunch, OTP_VERIFY_PER_IP_PER_HOUR: 4 });

  it('refuses the next code check once complete-phone has used the client IP up', async () => {
    const traveller = await app.signIn({ kind: 'PRODUCTION' }, { phone: null });
    const completePhone = () =>
      app.request('/api/auth/customer/complete-phone', {
        method: 'POST',
        token: traveller.token,
        json: { phone: reservedPhone(), code: '123456', method: 'sms' },
      });
    const statuses = [
      (await completePhone()).status,
      (await completePhone()).status,
      (await completePhone()).status,
    ];
    expect(statuses.every((status) => status === 400)).toBe(true);
    expect((await verifyOtp(app)).status).toBe(400);
    const limited = await completePhone();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await verifyOtp(app)).status).toBe(429);
  });
});

describe('paths, characters and names', () => {
  const app = useTestApp();

  it('routes exactly as written: another case is no route, so no guard is skipped', async () => {
    const grant = randomUUID();
    const lower = await app.request(`/api/document-shares/${grant}/session`);
    expect(lower.status).toBe(401);
    expect(lower.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    for (const path of [`/api/Document-Shares/${grant}/session`, '/API/cities', '/api/Cities']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
    }
  });

  it('refuses U+0000 in a body or a query string with 400 NUL_CHARACTER and writes nothing', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    const locked = await requestSeatLock(app, traveller, trip.tripId, ['1\u0000']);
    expect(locked.status).toBe(400);
    expect(locked.body.errorCode).toBe('NUL_CHARACTER');
    const booking = await postBooking(
      app,
      traveller,
      bookingBody({
        tripId: trip.tripId,
        seatNumbers: ['2'],
        seatLockSessionId: randomUUID(),
        passengerName: 'Rami\u0000',
      }),
    );
    expect(booking.body.errorCode).toBe('NUL_CHARACTER');
    const search = await app.request('/api/cities?search=Dam%00ascus');
    expect(search.status).toBe(400);
    expect(search.body.errorCode).toBe('NUL_CHARACTER');
    const written = await app.db.query(`select 1 from hold_batches where owner_user_id = $1`, [
      traveller.userId,
    ]);
    expect(written).toEqual([]);
  });

  it('refuses a query parameter given twice with different values: a proxy reading the first and the API the last would see two requests', async () => {
    const trip = await bookableTrip(app.db);
    const search = `to=${trip.to.cityId}&date=${trip.departAt.toISOString().slice(0, 10)}`;
    const twice = await app.request(`/api/trips?from=${randomUUID()}&from=${trip.from.cityId}&${search}`);
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({
      errorCode: 'VALIDATION_FAILED',
      details: { issues: [{ path: 'query.from', code: 'conflicting_values' }] },
    });
    const same = await app.request(`/api/trips?from=${trip.from.cityId}&from=${trip.from.cityId}&${search}`);
    const once = await app.request(`/api/trips?from=${trip.from.cityId}&${search}`);
    expect(same.status).toBe(200);
    expect(same.body).toEqual(once.body);
  });

  it('refuses half of a surrogate pair (a name cut in an emoji) with 400 INVALID_UNICODE and books nothing', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    const seatLockSessionId = await lockSeats(app, traveller, trip.tripId, ['4']);
    for (const passengerName of ['Ali \ud83d', 'Ali \ude00 Haddad']) {
      const booking = await postBooking(
        app,
        traveller,
        bookingBody({ tripId: trip.tripId, seatNumbers: ['4'], seatLockSessionId, passengerName }),
      );
      expect([booking.status, booking.body.errorCode], booking.text).toEqual([400, 'INVALID_UNICODE']);
    }
    expect(await app.db.query(`select 1 from bookings where trip_id = $1`, [trip.tripId])).toEqual([]);
    const whole = await postBooking(
      app,
      traveller,
      bookingBody({
        tripId: trip.tripId,
        seatNumbers: ['4'],
        seatLockSessionId,
        passengerName: 'Ali \ud83d\ude00',
      }),
    );
    expect(whole.status, whole.text).toBe(201);
  });

  it('refuses a JSON body whose bytes are not UTF-8 with 400 INVALID_UNICODE and stores nothing', async () => {
    const driver = await newDriverSender(app);
    // A Latin-1 client's "José": 0xE9 alone is no UTF-8 (it was stored as "Jos\ufffd Haddad").
    const latin1 = await driver.send(Buffer.from('José Haddad', 'latin1'), 'application/json');
    expect([latin1.status, latin1.body.errorCode, await driver.stored()]).toEqual([
      400,
      'INVALID_UNICODE',
      [],
    ]);
    const utf8 = await driver.send(Buffer.from('José Haddad'), 'application/json; charset=UTF-8');
    expect(utf8.status, utf8.text).toBe(201);
    expect(await driver.stored()).toEqual([{ name: 'José Haddad' }]);
  });

  it('refuses a JSON body that names a charset other than UTF-8 with 415 and stores nothing', async () => {
    const driver = await newDriverSender(app);
    const sent = await driver.send(Buffer.from('José Haddad'), 'application/json; charset=ISO-8859-1');
    expect([sent.status, sent.body.errorCode, await driver.stored()]).toEqual([
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      [],
    ]);
    // US-ASCII is a subset of UTF-8: a client that labels its plain-ASCII JSON so is read as UTF-8.
    const ascii = await driver.send(Buffer.from('Rami Haddad'), 'application/json; charset=US-ASCII');
    expect(ascii.status, ascii.text).toBe(201);
    expect(await driver.stored()).toEqual([{ name: 'Rami Haddad' }]);
  });

  it('refuses a query string whose percent-encoded bytes are not UTF-8 with 400 INVALID_UNICODE', async () => {
    const { session } = await newDriverSender(app);
    const ledger = (search: string) =>
      app.request(`/dashboard/api/payments?search=${search}`, { headers: { Cookie: session.cookie } });
    for (const search of ['Jos%E9', 'Ali%20%ED%A0%BD']) {
      const response = await ledger(search);
      expect([search, response.status, response.body.errorCode]).toEqual([search, 400, 'INVALID_UNICODE']);
    }
    for (const search of ['Jos%C3%A9', '100%25', '100%']) {
      const response = await ledger(search);
      expect([search, response.status], response.text).toEqual([search, 200]);
    }
  });

  it('refuses passenger names with control or bidirectional-override characters', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await webTraveller(app);
    for (const name of ['Rami\u202Eyzal', 'Rami\u2066x', 'Ra\u0007mi', 'Rami\u009b']) {
      const response = await postBooking(
        app,
        traveller,
        bookingBody({
          tripId: trip.tripId,
          seatNumbers: ['3'],
          seatLockSessionId: randomUUID(),
          passengerName: name,
        }),
      );
      expect(response.status, JSON.stringify(name)).toBe(400);
    }
    const written = await app.db.query(`select 1 from hold_batches where owner_user_id = $1`, [
      traveller.userId,
    ]);
    expect(written).toEqual([]);
    const arabic = await createBooking(app, traveller, {
      tripId: trip.tripId,
      seatNumbers: ['3'],
      passengerName: 'رامي الحلبي',
    });
    expect(arabic.booking_code).toEqual(expect.any(String));
  });
});

describe('traveller access tokens are bound to their session row', () => {
  const app = useTestApp();

  it('refuses a token naming another traveller, or a scope the traveller no longer has', async () => {
    const victim = await app.signIn({ kind: 'PRODUCTION' });
    const attacker = await app.signIn({ kind: 'PRODUCTION' });
    const tokens = createTravellerTokens(app.config);
    const me = (token: string) => app.request('/api/auth/customer/me', { token });
    expect((await me(victim.token)).status).toBe(200);

    // A token whose subject is the victim but whose session is the attacker's.
    const crossed = await tokens.sign(
      { userId: victim.userId, sessionId: attacker.sessionId, scope: { kind: 'PRODUCTION' } },
      900,
    );
    expect((await me(crossed.token)).status).toBe(401);

    // A wider scope than the traveller has on the server.
    const internal = await tokens.sign(
      { userId: attacker.userId, sessionId: attacker.sessionId, scope: { kind: 'INTERNAL' } },
      900,
    );
    expect((await me(internal.token)).status).toBe(401);
    expect((await me(attacker.token)).status).toBe(200);
  });
});

describe('staff and administrator lockout counts failures per e-mail address and client IP', () => {
  const app = useTestApp({
    TRUSTED_PROXY_HOPS: 1,
    STAFF_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_EMAIL: 3,
  });
  let member: StaffMember;
  const from = (ip: string) => ({ 'X-Forwarded-For': ip });
  const login = (password: string, ip: string) =>
    app.request('/dashboard/api/auth/login', {
      method: 'POST',
      headers: from(ip),
      json: { email: member.email, password },
    });

  beforeAll(async () => {
    const company = await createCompany(app.db);
    member = await createStaffMember(app.db, company.id, 'STAFF');
  });

  it('never counts successful sign-ins', async () => {
    for (let attempt = 0; attempt < 6; attempt++)
      expect((await login(STAFF_PASSWORD, '192.0.2.10')).status).toBe(200);
  });

  it("locks out the guesser's address only: the owner still signs in from elsewhere", async () => {
    for (let attempt = 0; attempt < 3; attempt++)
      expect((await login(`guess-${attempt}`, '192.0.2.66')).status).toBe(401);
    const locked = await login(STAFF_PASSWORD, '192.0.2.66');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login(STAFF_PASSWORD, '192.0.2.10')).status).toBe(200);
  });

  it('forgets failures after a success from the same address', async () => {
    const ip = '192.0.2.20';
    for (let attempt = 0; attempt < 2; attempt++)
      expect((await login(`typo-${attempt}`, ip)).status).toBe(401);
    expect((await login(STAFF_PASSWORD, ip)).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++)
      expect((await login(`typo-${attempt}`, ip)).status).toBe(401);
    expect((await login(STAFF_PASSWORD, ip)).status).toBe(200);
  });
});

describe('production: administrators who can change the platform must give a second factor', () => {
  const app = useTestApp({ NODE_ENV: 'production', COOKIE_SECURE: true });

  it('asks ADMIN and SUPER_ADMIN for a second factor even when their account does not require one', async () => {
    for (const [role, expected] of [
      ['SUPER_ADMIN', true],
      ['ADMIN', true],
      ['SUPPORT', false],
    ] as const) {
      const admin = await createAdmin(app.db, { role, totpRequired: false });
      const response = await app.request('/admin/api/auth/login', {
        method: 'POST',
        json: { email: admin.email, password: ADMIN_PASSWORD },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.secondFactorRequired, role).toBe(expected);
      const cookie = response.headers
        .getSetCookie()
        .map((header) => header.split(';')[0]!)
        .join('; ');
      const audit = await app.request('/admin/api/audit-log', { headers: { Cookie: cookie } });
      expect(audit.status === 403 && audit.body.errorCode.startsWith('SECOND_FACTOR'), role).toBe(expected);
    }
  });
});

describe('identity-provider sign-in starts over plain HTTP behind a TLS proxy', () => {
  const app = useTestApp({ COOKIE_SECURE: true });

  it('sets the Secure flow cookie instead of failing with 500', async () => {
    const response = await app.request('/api/auth/customer/idp/nonce?channel=web');
    expect(response.status, response.text).toBe(200);
    const cookies = response.headers.getSetCookie();
    expect(cookies.some((cookie) => /secure/i.test(cookie) && /httponly/i.test(cookie))).toBe(true);
  });
});
