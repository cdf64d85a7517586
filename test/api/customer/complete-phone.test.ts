import { randomInt, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sendOtp } from '../../../api/auth/otp.js';
import { issueTravellerSession } from '../../../api/auth/traveller-session.js';
import { createTravellerTokens } from '../../../api/auth/traveller-token.js';
import { createLogger } from '../../../config/logger.js';
import { awardTripPoints, ensureAccount } from '../../../db/writes/loyalty/index.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { bookableTrip } from '../../support/bookings.js';
import { createCity, createCorridor } from '../../support/factories.js';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import { reservedPhone } from '../../support/otp-sign-up.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';
import {
  completedBooking,
  completeTripForEarning,
  creditPoints,
  giveReward,
  loyaltyProgram,
} from '../../support/loyalty.js';
import { signedInAdmin } from '../admin/helpers.js';

// Codes come from the real OTP module in pre-launch mode, which serves only the reserved +963900
// numbers with a local code; every phone here is one of them (reservedPhone).

const expectError = (response: TestResponse, status: number, errorCode: string) => {
  expect({ status: response.status, errorCode: response.body?.errorCode }).toEqual({ status, errorCode });
};

describe('POST /auth/customer/complete-phone', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    OTP_PRELAUNCH: true,
    IDP_RATE_LIMIT_PER_IP: 100_000,
  });
  const app = useTestApp(config);
  const cities: string[] = [];

  beforeAll(async () => {
    for (let index = 0; index < 4; index += 1) cities.push((await createCity(app.db)).id);
  });

  /** A traveller who signed in with the identity provider on the mobile app: no phone yet. */
  const idpTraveller = async () => {
    const idToken = await idp.mint({ audience: idp.mobileClientId });
    const response = await app.request('/api/auth/customer/idp/mobile', {
      method: 'POST',
      json: { idToken },
    });
    expect(response.body.data.needsPhone).toBe(true);
    return { userId: response.body.data.user.id as string, token: response.body.data.accessToken as string };
  };

  const codeFor = async (phone: string) => {
    const sent = await sendOtp(
      { config: app.config, db: app.db, logger: createLogger(app.config, 'test') },
      { phone, method: 'sms' },
    );
    return sent.localCode!;
  };

  const complete = (token: string, body: Record<string, unknown>) =>
    app.request('/api/auth/customer/complete-phone', { method: 'POST', json: body, token });

  const passengerWithFavorites = async (phone: string | null, favorites: number, age = '0 days') => {
    const [passenger] = await app.db.query<{ id: string }>(
      `insert into passengers (phone, name, created_at) values ($1, 'Old record', now() - $2::interval) returning id`,
      [phone, age],
    );
    for (let index = 0; index < favorites; index += 1) {
      await app.db.query(
        'insert into favorites (passenger_id, origin_city_id, dest_city_id) values ($1, $2, $3)',
        [passenger!.id, cities[index], cities[index + 1]],
      );
    }
    return passenger!.id;
  };

  /** A traveller known by phone from before (passenger record, and a phone-only user unless told otherwise). */
  const oldPhoneTraveller = async (
    options: {
      favorites?: number;
      password?: boolean;
      appMetadata?: object;
      withUser?: boolean;
      email?: string;
    } = {},
  ) => {
    const phone = reservedPhone();
    const passengerId = await passengerWithFavorites(phone, options.favorites ?? 0, '400 days');
    if (options.withUser === false) return { phone, passengerId, userId: null };
    const [user] = await app.db.query<{ id: string }>(
      `insert into users (phone, name, email, password_hash, passenger_id, app_metadata, created_at)
       values ($1, 'Old record', $2, $3, $4, $5, now() - interval '400 days') returning id`,
      [
        phone,
        options.email ?? null,
        options.password ? 'argon2-hash' : null,
        passengerId,
        JSON.stringify(options.appMetadata ?? {}),
      ],
    );
    return { phone, passengerId, userId: user!.id };
  };

  /** Every row a merge could touch, to prove a refusal moved nothing. */
  const snapshot = async (userIds: (string | null)[], passengerIds: (string | null)[]) => ({
    users: await app.db.query('select * from users where id = any($1::uuid[]) order by id', [
      userIds.filter(Boolean),
    ]),
    passengers: await app.db.query('select * from passengers where id = any($1::uuid[]) order by id', [
      passengerIds.filter(Boolean),
    ]),
    favorites: await app.db.query(
      'select * from favorites where passenger_id = any($1::uuid[]) order by id',
      [passengerIds.filter(Boolean)],
    ),
  });

  it('adds a new number and creates the traveller profile', async () => {
    const traveller = await idpTraveller();
    const phone = reservedPhone();
    const response = await complete(traveller.token, { phone, code: await codeFor(phone), method: 'sms' });

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      passengerId: expect.any(String),
      merged: false,
      needsSessionRefresh: false,
      user: { id: traveller.userId, name: 'Layla Haddad', email: expect.any(String), phone },
    });
    const [user] = await app.db.query('select phone, passenger_id from users where id = $1', [
      traveller.userId,
    ]);
    expect(user).toEqual({ phone, passenger_id: response.body.data.passengerId });
    const [passenger] = await app.db.query('select phone, merged_into_id from passengers where id = $1', [
      response.body.data.passengerId,
    ]);
    expect(passenger).toEqual({ phone, merged_into_id: null });

    const again = await complete(traveller.token, { phone, code: await codeFor(phone), method: 'sms' });
    expect(again.body.data).toMatchObject({ passengerId: response.body.data.passengerId, merged: false });
  });

  it('accepts the national form of a Syrian number and stores it in international form', async () => {
    const traveller = await idpTraveller();
    const phone = reservedPhone();
    const code = await codeFor(phone);
    const response = await complete(traveller.token, { phone: `0${phone.slice(4)}`, code, method: 'sms' });
    expect(response.status).toBe(200);
    expect(response.body.data.user.phone).toBe(phone);
  });

  it('changes nothing when the code is wrong', async () => {
    const traveller = await idpTraveller();
    const old = await oldPhoneTraveller({ favorites: 1 });
    const code = await codeFor(old.phone);
    const before = await snapshot([traveller.userId, old.userId], [old.passengerId]);
    const wrong = code === '000000' ? '111111' : '000000';

    expectError(
      await complete(traveller.token, { phone: old.phone, code: wrong, method: 'sms' }),
      400,
      'OTP_INVALID',
    );
    expect(await snapshot([traveller.userId, old.userId], [old.passengerId])).toEqual(before);
    expect(
      await app.db.query('select 1 from passengers where phone = $1 and id <> $2', [
        old.phone,
        old.passengerId,
      ]),
    ).toEqual([]);
  });

  it('merges an old phone-only traveller: its profile becomes canonical and its favorites stay', async () => {
    const traveller = await idpTraveller();
    const old = await oldPhoneTraveller({ favorites: 2, email: `old-${randomInt(1e9)}@example.test` });
    const oldSession = await sessionOf(old.userId!);
    const response = await mergeInto(traveller, old);

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      passengerId: old.passengerId,
      merged: true,
      needsSessionRefresh: true,
      user: { phone: old.phone },
    });
    const [me] = await app.db.query('select phone, passenger_id, status from users where id = $1', [
      traveller.userId,
    ]);
    expect(me).toEqual({ phone: old.phone, passenger_id: old.passengerId, status: 'ACTIVE' });
    const [retired] = await app.db.query(
      'select phone, email, passenger_id, status from users where id = $1',
      [old.userId],
    );
    expect(retired).toEqual({ phone: null, email: null, passenger_id: old.passengerId, status: 'DISABLED' });
    const [session] = await app.db.query('select revoked_reason from traveller_sessions where id = $1', [
      oldSession.sessionId,
    ]);
    expect(session).toEqual({ revoked_reason: 'ACCOUNT_MERGED' });
    const favorites = await app.db.query('select passenger_id from favorites where passenger_id = $1', [
      old.passengerId,
    ]);
    expect(favorites).toHaveLength(2);
    const [profile] = await app.db.query<{ email: string }>('select email from passengers where id = $1', [
      old.passengerId,
    ]);
    expect(profile!.email).toMatch(/^old-/);

    const listed = await app.request('/api/favorites', { token: traveller.token });
    expect(listed.status).toBe(200);
    expect(listed.body.favorites).toHaveLength(2);
  });

  it("keeps the older record canonical and moves the newer profile's favorites onto it", async () => {
    const traveller = await idpTraveller();
    const newer = await passengerWithFavorites(null, 1);
    await app.db.query('update users set passenger_id = $2 where id = $1', [traveller.userId, newer]);
    const old = await oldPhoneTraveller({ withUser: false });
    const response = await mergeInto(traveller, old);

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ passengerId: old.passengerId, merged: true });
    const passengers = await app.db.query(
      'select id, phone, merged_into_id from passengers where id = any($1::uuid[]) order by created_at',
      [[old.passengerId, newer]],
    );
    expect(passengers).toEqual([
      { id: old.passengerId, phone: old.phone, merged_into_id: null },
      { id: newer, phone: null, merged_into_id: old.passengerId },
    ]);
    expect(
      await app.db.query('select 1 from favorites where passenger_id = $1', [old.passengerId]),
    ).toHaveLength(1);
    expect(await app.db.query('select 1 from favorites where passenger_id = $1', [newer])).toEqual([]);
  });

  it('refuses two records with operational data with ACCOUNT_LINK_REQUIRES_RECOVERY and moves nothing', async () => {
    const traveller = await idpTraveller();
    const newer = await passengerWithFavorites(null, 1);
    await app.db.query('update users set passenger_id = $2 where id = $1', [traveller.userId, newer]);
    const old = await oldPhoneTraveller({ favorites: 2 });
    const code = await codeFor(old.phone);
    const before = await snapshot([traveller.userId, old.userId], [old.passengerId, newer]);

    expectError(
      await complete(traveller.token, { phone: old.phone, code, method: 'sms' }),
      409,
      'ACCOUNT_LINK_REQUIRES_RECOVERY',
    );
    expect(await snapshot([traveller.userId, old.userId], [old.passengerId, newer])).toEqual(before);
  });

  /** A confirmed journey (ticket and booking) of this account on a fresh corridor. */
  const bookedJourney = async (ownerUserId: string) =>
    confirmedJourneyRows(app.db, {
      ownerUserId,
      trip: journeyTripOf(await createCorridor(app.db)),
      travellers: ['Old Traveller'],
    });

  const ticketIdsOf = async (token: string) => {
    const tickets = await app.request('/api/tickets?limit=100', { token });
    expect(tickets.status, tickets.text).toBe(200);
    return tickets.body.data.tickets.map((ticket: { id: string }) => ticket.id) as string[];
  };

  /** A session of the old account, issued before the merge (a second device). */
  const sessionOf = (userId: string) =>
    issueTravellerSession(
      { config: app.config, db: app.db, tokens: createTravellerTokens(app.config) },
      userId,
      'mobile',
    );

  /**
   * Completes `phone` for the signed-in `token` while the test holds `lockSql`: the merge waits on
   * that lock first, then `request` (sent while its session was live) queues behind the merge. The
   * lock is let go; the merge answers 200. Answers the merge's answer and the request's.
   */
  async function whileMerging<Answer = TestResponse>(
    token: string,
    phone: string,
    code: string,
    lockSql: string,
    request: () => Promise<Answer>,
  ) {
    const lock = await holdLock(app.db, lockSql);
    try {
      const merging = complete(token, { phone, code, method: 'sms' });
      await waitersOf(app.db, lock.pid, 1);
      const racing = request();
      await waitersOf(app.db, lock.pid, 2);
      await lock.release();
      const merged = await merging;
      expect(merged.status, merged.text).toBe(200);
      return { merged, answer: await racing };
    } finally {
      await lock.release();
    }
  }

  /** complete-phone of `traveller` with the old account's number and a fresh code: the merge. */
  const mergeInto = async (traveller: { token: string }, old: { phone: string }) =>
    complete(traveller.token, { phone: old.phone, code: await codeFor(old.phone), method: 'sms' });

  /** whileMerging `old` into `traveller`, the merge waiting first on the old account's users row. */
  const whileMergingOld = <Answer = TestResponse>(
    traveller: { token: string },
    old: { userId: string | null; phone: string },
    code: string,
    request: () => Promise<Answer>,
  ) =>
    whileMerging(
      traveller.token,
      old.phone,
      code,
      `select id from users where id = '${old.userId}' for update`,
      request,
    );

  it('gives the merged traveller the journeys and tickets the old phone-only account booked', async () => {
    const old = await oldPhoneTraveller();
    const rows = await bookedJourney(old.userId!);
    const traveller = await idpTraveller();
    const merged = await mergeInto(traveller, old);

    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.data.merged).toBe(true);
    const [retired] = await app.db.query<{ status: string }>('select status from users where id = $1', [
      old.userId,
    ]);
    expect(retired!.status).toBe('DISABLED');
    expect(await ticketIdsOf(traveller.token)).toContain(rows.ticketIds[0]);
  });

  it("moves the old account's loyalty account and support tickets; an empty account of the same program gives way", async () => {
    const old = await oldPhoneTraveller();
    const rows = await bookedJourney(old.userId!);
    const [booking] = await app.db.query<{ company_id: string }>(
      'select company_id from bookings where id = $1',
      [rows.bookingId],
    );
    const companyId = booking!.company_id;
    await loyaltyProgram(app.db, companyId);
    await creditPoints(app.db, { companyId, userId: old.userId!, points: 40 });
    const [ticket] = await app.db.query<{ id: string }>(
      `insert into support_tickets (subject, opened_by_kind, opened_by, traveller_user_id, company_id, booking_id)
       values ('Lost bag', 'TRAVELLER', $1, $1, $2, $3) returning id`,
      [old.userId, companyId, rows.bookingId],
    );
    const traveller = await idpTraveller();
    await app.db.query(
      `insert into loyalty_accounts (company_id, user_id, referral_code) values ($1, $2, $3)`,
      [companyId, traveller.userId, `EMPTY${randomInt(1e9)}`],
    );

    const merged = await mergeInto(traveller, old);
    expect(merged.status, merged.text).toBe(200);
    expect(
      await app.db.query(
        'select user_id, balance from loyalty_accounts where company_id = $1 and user_id = any($2::uuid[])',
        [companyId, [old.userId, traveller.userId]],
      ),
    ).toEqual([{ user_id: traveller.userId, balance: 40 }]);
    const [moved] = await app.db.query(
      'select traveller_user_id, opened_by from support_tickets where id = $1',
      [ticket!.id],
    );
    expect(moved).toEqual({ traveller_user_id: traveller.userId, opened_by: traveller.userId });
  });

  it("answers the old account's redeem retried with its Idempotency-Key from the merged session with that voucher, spending nothing more", async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId);
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    const old = await oldPhoneTraveller();
    await creditPoints(app.db, { companyId: trip.companyId, userId: old.userId!, points: 300 });
    const redeem = (token: string) =>
      app.request('/api/loyalty/redeem', {
        method: 'POST',
        json: { companyId: trip.companyId, rewardCode: reward.code },
        token,
        headers: { 'Idempotency-Key': key },
      });
    const key = `redeem-${randomUUID()}`;
    const first = await redeem((await sessionOf(old.userId!)).token);
    expect(first.status, first.text).toBe(201);
    // A confirm the old account made is answered again the same way: its stored answer moves too.
    const confirmKey = `confirm-${randomUUID()}`;
    await app.db.query(
      `insert into idempotency_records (scope, key, request_hash, status_code, response)
       values ($1, $2, 'hash', 200, '{"success": true, "data": {}}')`,
      [`confirm:${old.userId}`, confirmKey],
    );

    // The app lost the answer; the traveller signs in with the identity provider and takes the number.
    const traveller = await idpTraveller();
    const merged = await mergeInto(traveller, old);
    expect(merged.status, merged.text).toBe(200);

    const retry = await redeem(traveller.token);
    expect({ status: retry.status, body: retry.body }, retry.text).toEqual({ status: 201, body: first.body });
    expect(
      await app.db.query(
        `select a.user_id, a.balance, (select count(*)::int from loyalty_redemptions r where r.account_id = a.id) as vouchers
           from loyalty_accounts a where a.company_id = $1 and a.user_id = any($2::uuid[])`,
        [trip.companyId, [old.userId, traveller.userId]],
      ),
    ).toEqual([{ user_id: traveller.userId, balance: 200, vouchers: 1 }]);
    expect(
      await app.db.query(`select scope from idempotency_records where key = any($1::text[]) order by scope`, [
        [key, confirmKey],
      ]),
    ).toEqual([{ scope: `confirm:${traveller.userId}` }, { scope: `loyalty-redeem:${traveller.userId}` }]);
  });

  it('refuses the merge when both sides carry operational data: favorites on mine, a booking on the old one', async () => {
    const traveller = await idpTraveller();
    const newer = await passengerWithFavorites(null, 1);
    await app.db.query('update users set passenger_id = $2 where id = $1', [traveller.userId, newer]);
    const old = await oldPhoneTraveller();
    const rows = await bookedJourney(old.userId!);
    await app.db.query('update bookings set passenger_id = $2 where id = $1', [
      rows.bookingId,
      old.passengerId,
    ]);
    const code = await codeFor(old.phone);
    const before = await snapshot([traveller.userId, old.userId], [old.passengerId, newer]);

    expectError(
      await complete(traveller.token, { phone: old.phone, code, method: 'sms' }),
      409,
      'ACCOUNT_LINK_REQUIRES_RECOVERY',
    );
    expect(await snapshot([traveller.userId, old.userId], [old.passengerId, newer])).toEqual(before);
    const [booking] = await app.db.query('select owner_user_id from bookings where id = $1', [
      rows.bookingId,
    ]);
    expect(booking).toEqual({ owner_user_id: old.userId });
  });

  it('merges when only the signed-in account has bookings, and they stay its own', async () => {
    const traveller = await idpTraveller();
    const rows = await bookedJourney(traveller.userId);
    const old = await oldPhoneTraveller();
    const merged = await mergeInto(traveller, old);

    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.data).toMatchObject({ passengerId: old.passengerId, merged: true });
    const [booking] = await app.db.query('select owner_user_id from bookings where id = $1', [
      rows.bookingId,
    ]);
    expect(booking).toEqual({ owner_user_id: traveller.userId });
    expect(await ticketIdsOf(traveller.token)).toContain(rows.ticketIds[0]);
  });

  it("refuses the old account's seat lock that waited on the merge, instead of leaving it on the disabled account", async () => {
    const old = await oldPhoneTraveller();
    const oldSession = await sessionOf(old.userId!);
    const trip = await bookableTrip(app.db);
    const traveller = await idpTraveller();
    const code = await codeFor(old.phone);

    // The old account's row is busy: the merge waits on it first, then the old session's seat lock
    // (authenticated while its session was live) queues behind the merge.
    const { answer: locking } = await whileMergingOld(traveller, old, code, () =>
      app.request('/api/seat-locks', {
        method: 'POST',
        token: oldSession.token,
        json: { trip_id: trip.tripId, seat_numbers: ['1'] },
      }),
    );
    expectError(locking, 401, 'AUTH_REQUIRED');
    expect(await app.db.query('select id from hold_batches where owner_user_id = $1', [old.userId])).toEqual(
      [],
    );
  }, 60_000);

  it("refuses the old account's identity-provider link that waited on the merge, instead of linking the disabled account", async () => {
    const old = await oldPhoneTraveller();
    const oldSession = await sessionOf(old.userId!);
    const traveller = await idpTraveller();
    const code = await codeFor(old.phone);
    // The old session starts linking another subject, with an address nobody holds.
    const flow = await app.request('/api/auth/customer/idp/nonce?channel=link');
    const sub = randomUUID();
    const email = `linked-${randomUUID().slice(0, 8)}@example.test`;
    const idToken = await idp.mint({
      audience: idp.mobileClientId,
      claims: { sub, email, nonce: flow.body.data.nonce },
    });

    // The old account's row is busy: the merge waits on it first, then the old session's link
    // (authenticated while its session was live) queues behind the merge.
    const { answer: linking } = await whileMergingOld(traveller, old, code, () =>
      app.request('/api/profile/security/identities/idp', {
        method: 'POST',
        token: oldSession.token,
        json: { idToken, flowId: flow.body.data.flowId },
      }),
    );
    expectError(linking, 401, 'AUTH_REQUIRED');
    // Nothing written: no subject on the disabled account, its address still released, the flow unused.
    expect({
      oldAccount: await app.db.query('select status, email, email_verified_at from users where id = $1', [
        old.userId,
      ]),
      identities: await app.db.query('select user_id from user_identities where subject = $1', [sub]),
      flow: await app.db.query('select consumed_at from idp_nonces where flow_id = $1', [
        flow.body.data.flowId,
      ]),
    }).toEqual({
      oldAccount: [{ status: 'DISABLED', email: null, email_verified_at: null }],
      identities: [],
      flow: [{ consumed_at: null }],
    });
    // The subject is not stuck on an account nobody can use: it signs in, to an account of its own.
    const later = await app.request('/api/auth/customer/idp/mobile', {
      method: 'POST',
      json: { idToken: await idp.mint({ audience: idp.mobileClientId, claims: { sub, email } }) },
    });
    expect([later.status, later.body.data?.isNewUser]).toEqual([200, true]);
  }, 60_000);

  it('opens no session on the old account once the merge has disabled it, also for a sign-in that found it before', async () => {
    const old = await oldPhoneTraveller();
    const traveller = await idpTraveller();
    const code = await codeFor(old.phone);
    /** What a sign-in that found the old account by its number does next: open its session. */
    const signIn = () =>
      sessionOf(old.userId!).then(
        () => 'session opened',
        (refusal: { status: number; errorCode: string }) => `${refusal.status} ${refusal.errorCode}`,
      );

    // The sign-in opens its session while the merge holds the old account: it waits for the merge.
    const { answer: racing } = await whileMergingOld(traveller, old, code, signIn);
    expect(racing).toBe('403 ACCOUNT_DISABLED');
    // And one that opens it after the merge ended.
    expect(await signIn()).toBe('403 ACCOUNT_DISABLED');
    expect(
      await app.db.query('select id from traveller_sessions where user_id = $1 and revoked_at is null', [
        old.userId,
      ]),
    ).toEqual([]);
  }, 60_000);

  it('refuses the refresh token and the access token of a session whose account was disabled', async () => {
    const old = await oldPhoneTraveller();
    const session = await sessionOf(old.userId!);
    // A session that outlived its account's disabling (opened before this release's merge rule).
    await app.db.query(`update users set status = 'DISABLED' where id = $1`, [old.userId]);

    const favorites = await app.request('/api/favorites', { token: session.token });
    const refreshed = await app.request('/api/auth/customer/refresh', {
      method: 'POST',
      json: { refreshToken: session.refreshToken },
    });
    expect({
      favorites: [favorites.status, favorites.body?.errorCode],
      refreshed: [refreshed.status, refreshed.body?.errorCode],
    }).toEqual({ favorites: [401, 'AUTH_REQUIRED'], refreshed: [401, 'INVALID_REFRESH_TOKEN'] });
  });

  it("refuses the old account's redeem that waited on the merge, instead of issuing a voucher to the disabled account", async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId);
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    const old = await oldPhoneTraveller();
    await creditPoints(app.db, { companyId: trip.companyId, userId: old.userId!, points: 100 });
    const [account] = await app.db.query<{ id: string }>(
      'select id from loyalty_accounts where company_id = $1 and user_id = $2',
      [trip.companyId, old.userId],
    );
    const oldSession = await sessionOf(old.userId!);
    const traveller = await idpTraveller();
    const code = await codeFor(old.phone);

    // The loyalty account is busy: the merge waits on it holding both users rows, then the old
    // session's redeem queues behind the merge.
    const { answer: redeemed } = await whileMerging(
      traveller.token,
      old.phone,
      code,
      `select id from loyalty_accounts where id = '${account!.id}' for update`,
      () =>
        app.request('/api/loyalty/redeem', {
          method: 'POST',
          json: { companyId: trip.companyId, rewardCode: reward.code },
          token: oldSession.token,
        }),
    );

    const vouchers = await app.db.query<{ voucher_user: string; account_user: string }>(
      `select r.user_id as voucher_user, a.user_id as account_user
         from loyalty_redemptions r join loyalty_accounts a on a.id = r.account_id
        where r.account_id = $1`,
      [account!.id],
    );
    const [balance] = await app.db.query('select user_id, balance from loyalty_accounts where id = $1', [
      account!.id,
    ]);
    const detail = `redeem ${redeemed.status} ${redeemed.text}; account now ${JSON.stringify(balance)}; vouchers ${JSON.stringify(vouchers)}; survivor ${traveller.userId}, old ${old.userId}`;
    for (const voucher of vouchers) expect(voucher.voucher_user, detail).toBe(voucher.account_user);
    if (redeemed.status === 201) {
      // The surviving traveller paid for it: they can use it.
      const preview = await app.request('/api/loyalty/preview', {
        method: 'POST',
        json: { redemptionCode: redeemed.body.redemption.code, subtotal: 10_000, tripIds: [trip.tripId] },
        token: traveller.token,
      });
      expect(preview.status, `${detail}; preview ${preview.text}`).toBe(200);
    }
  }, 60_000);

  it("refuses the old account's support ticket that waited on the merge, or the surviving account sees it", async () => {
    const old = await oldPhoneTraveller();
    const rows = await bookedJourney(old.userId!);
    const oldSession = await sessionOf(old.userId!);
    const traveller = await idpTraveller();
    const code = await codeFor(old.phone);

    const { answer: opened } = await whileMergingOld(traveller, old, code, () =>
      app.request('/api/support-tickets', {
        method: 'POST',
        json: { bookingId: rows.bookingId, subject: 'Lost bag', message: 'My bag stayed on the bus' },
        token: oldSession.token,
      }),
    );
    if (opened.status === 201) {
      const read = await app.request(`/api/support-tickets/${opened.body.data.id}`, {
        token: traveller.token,
      });
      const [row] = await app.db.query('select traveller_user_id from support_tickets where id = $1', [
        opened.body.data.id,
      ]);
      expect(read.status, `ticket ${JSON.stringify(row)}; old ${old.userId}; ${read.text}`).toBe(200);
    } else {
      expect(opened.status, opened.text).toBe(401);
    }
  }, 60_000);

  /**
   * A friend's POST /loyalty/referral with `referral`, queued behind the merge of `old` into
   * `traveller`, which waits first on the loyalty account `accountId`.
   */
  const friendsReferralWhileMerging = (
    merge: { traveller: { token: string }; old: { phone: string }; code: string },
    accountId: string,
    referral: { companyId: string; referralCode: string },
    friend: { token: string },
  ) =>
    whileMerging(
      merge.traveller.token,
      merge.old.phone,
      merge.code,
      `select id from loyalty_accounts where id = '${accountId}' for update`,
      () => app.request('/api/loyalty/referral', { method: 'POST', json: referral, token: friend.token }),
    );

  /** The referral code of a third traveller in the company's program. */
  const referralCodeIn = async (companyId: string) => {
    const referrer = await idpTraveller();
    const accountId = await ensureAccount(app.db.pool, companyId, referrer.userId);
    const [account] = await app.db.query<{ referral_code: string }>(
      'select referral_code from loyalty_accounts where id = $1',
      [accountId],
    );
    return account!.referral_code;
  };

  /** The referrals whose referred traveller's loyalty account belongs to `userId`. */
  const referralsOf = (userId: string) =>
    app.db.query(
      `select f.id from loyalty_referrals f join loyalty_accounts a on a.id = f.referee_account_id
        where a.user_id = $1`,
      [userId],
    );

  it("refuses the old account's referral that waited on the merge, instead of recording it on the disabled account", async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId);
    const referralCode = await referralCodeIn(trip.companyId);
    const old = await oldPhoneTraveller();
    const oldSession = await sessionOf(old.userId!);
    const traveller = await idpTraveller();
    const code = await codeFor(old.phone);

    // The old account's row is busy: the merge waits on it first, then the old session's referral
    // (authenticated while its session was live) queues behind the merge.
    const { answer: referring } = await whileMergingOld(traveller, old, code, () =>
      app.request('/api/loyalty/referral', {
        method: 'POST',
        json: { companyId: trip.companyId, referralCode },
        token: oldSession.token,
      }),
    );
    expectError(referring, 401, 'AUTH_REQUIRED');
    expect(await referralsOf(old.userId!)).toEqual([]);
  }, 60_000);

  it("refuses the old account's referral whose loyalty account the merge gave way, instead of failing", async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId);
    const referralCode = await referralCodeIn(trip.companyId);
    const old = await oldPhoneTraveller();
    const oldAccountId = await ensureAccount(app.db.pool, trip.companyId, old.userId!);
    const oldSession = await sessionOf(old.userId!);
    const traveller = await idpTraveller();
    await ensureAccount(app.db.pool, trip.companyId, traveller.userId);
    const code = await codeFor(old.phone);

    // Both accounts in the program are empty: the merge removes the old one, waiting on it while it
    // holds both users rows, and the old session's referral queues behind the merge.
    const { answer: referring } = await whileMerging(
      traveller.token,
      old.phone,
      code,
      `select id from loyalty_accounts where id = '${oldAccountId}' for update`,
      () =>
        app.request('/api/loyalty/referral', {
          method: 'POST',
          json: { companyId: trip.companyId, referralCode },
          token: oldSession.token,
        }),
    );
    expectError(referring, 401, 'AUTH_REQUIRED');
    expect(await referralsOf(old.userId!)).toEqual([]);
  }, 60_000);

  /** The EARN entries of a booking: whose account holds them, and the points. */
  const earningsOf = (bookingId: string) =>
    app.db.query<{ user_id: string; points: number }>(
      `select a.user_id, t.points from loyalty_transactions t join loyalty_accounts a on a.id = t.account_id
        where t.booking_id = $1 and t.kind = 'EARN'`,
      [bookingId],
    );

  it("credits the points of the old account's completed booking, awarded while the merge moves it, to the surviving account once", async () => {
    const world = await createCorridor(app.db);
    const trip = { tripId: world.trip.id, companyId: world.company.id };
    await loyaltyProgram(app.db, trip.companyId, { pointsPer100: 10 });
    const old = await oldPhoneTraveller();
    const bookingId = await completedBooking(app.db, trip, old.userId!, { totalPrice: 25_000 });
    await completeTripForEarning(app.db, trip.tripId);
    const traveller = await idpTraveller();
    const code = await codeFor(old.phone);

    // The old account's row is busy: the merge waits on it first, then the trip's award (which
    // listed the booking under its old owner) queues behind the merge.
    const { answer: awarded } = await whileMergingOld(traveller, old, code, () =>
      awardTripPoints(app.db, trip.tripId),
    );
    expect(awarded).toMatchObject({ bookingsCredited: 1, pointsCredited: 2500 });
    expect(await earningsOf(bookingId)).toEqual([{ user_id: traveller.userId, points: 2500 }]);
    expect(await app.db.query('select id from loyalty_accounts where user_id = $1', [old.userId])).toEqual(
      [],
    );
    const account = await app.request(`/api/loyalty/account?companyId=${trip.companyId}`, {
      token: traveller.token,
    });
    expect(account.status, account.text).toBe(200);
    expect(account.body.data.account).toMatchObject({ balance: 2500, lifetimePoints: 2500 });

    // A rerun (a replayed COMPLETE) credits the booking nothing more.
    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({
      bookingsCredited: 0,
      pointsCredited: 0,
    });
    expect(await earningsOf(bookingId)).toEqual([{ user_id: traveller.userId, points: 2500 }]);
  }, 60_000);

  /** A traveller in the company's program holding their referral code (GET /loyalty/referral). */
  const ownReferralCode = async (token: string, companyId: string) => {
    const answer = await app.request(`/api/loyalty/referral?companyId=${companyId}`, { token });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.referralCode as string;
  };

  /** The referrals a traveller entered (as the referred one). */
  const referralsEnteredBy = (userId: string) =>
    app.db.query(
      `select f.referrer_account_id from loyalty_referrals f join loyalty_accounts a on a.id = f.referee_account_id
        where a.user_id = $1`,
      [userId],
    );

  /**
   * A programme paying referrals; an old phone-only account with points in it, and a new account
   * whose loyalty account there is empty (its referral code asked for): the empty one gives way to
   * the old one's in a merge.
   */
  async function survivorWithEmptyAccount() {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { referralPoints: 500 });
    const old = await oldPhoneTraveller();
    await creditPoints(app.db, { companyId: trip.companyId, userId: old.userId!, points: 40 });
    const traveller = await idpTraveller();
    const survivorCode = await ownReferralCode(traveller.token, trip.companyId);
    const [empty] = await app.db.query<{ id: string }>(
      'select id from loyalty_accounts where company_id = $1 and user_id = $2',
      [trip.companyId, traveller.userId],
    );
    return { trip, old, traveller, survivorCode, empty: empty! };
  }

  it("refuses a friend's referral naming the surviving account's empty account, which the merge removes, 404 LOYALTY_REFERRAL_NOT_FOUND", async () => {
    const { trip, old, traveller, survivorCode, empty } = await survivorWithEmptyAccount();
    const friend = await app.signIn();
    const code = await codeFor(old.phone);

    // The surviving account's empty loyalty account is busy: the merge waits on it to remove it (the
    // old account's, which has points, takes its place), and the friend's referral naming its code
    // queues behind the merge.
    const { answer: referring } = await friendsReferralWhileMerging(
      { traveller, old, code },
      empty.id,
      { companyId: trip.companyId, referralCode: survivorCode },
      friend,
    );
    expectError(referring, 404, 'LOYALTY_REFERRAL_NOT_FOUND');
    expect(await referralsEnteredBy(friend.userId)).toEqual([]);
    expect(await app.db.query('select id from loyalty_accounts where id = $1', [empty.id])).toEqual([]);
  }, 60_000);

  /**
   * A friend's referral naming `referralCode` that already holds its referrer's account when the
   * merge of `phone` into the signed-in `token` starts: a referral of the friend by someone else,
   * not committed yet, makes the friend's own wait at its insert; the merge then starts and waits on
   * the friend's referral, and the other referral is let go, so the friend's is recorded first.
   * Answers the referral's answer and the merge's.
   */
  async function mergeBehindReferral(
    companyId: string,
    referralCode: string,
    merge: { token: string; phone: string; code: string },
  ) {
    const friend = await app.signIn();
    const friendAccountId = await ensureAccount(app.db.pool, companyId, friend.userId);
    const other = await app.signIn();
    const otherAccountId = await ensureAccount(app.db.pool, companyId, other.userId);
    const blocker = await holdLock(
      app.db,
      `insert into loyalty_referrals (company_id, referrer_account_id, referee_account_id)
       values ('${companyId}', '${otherAccountId}', '${friendAccountId}')`,
    );
    try {
      const referring = app.request('/api/loyalty/referral', {
        method: 'POST',
        json: { companyId, referralCode },
        token: friend.token,
      });
      await waitersOf(app.db, blocker.pid, 1);
      const merging = complete(merge.token, { phone: merge.phone, code: merge.code, method: 'sms' });
      await waitersOf(app.db, blocker.pid, 2);
      await blocker.release();
      return { friend, referred: await referring, merged: await merging };
    } finally {
      await blocker.release();
    }
  }

  /** The loyalty accounts (every column) of these travellers in a company. */
  const loyaltyAccountsOf = (companyId: string, userIds: string[]) =>
    app.db.query(
      'select * from loyalty_accounts where company_id = $1 and user_id = any($2::uuid[]) order by id',
      [companyId, userIds],
    );

  it("merges an old account with points elsewhere whose empty account a friend's referral, already under way, names: the referral stays, the surviving account's empty one gives way", async () => {
    const x = await bookableTrip(app.db);
    const y = await bookableTrip(app.db);
    await loyaltyProgram(app.db, x.companyId, { referralPoints: 500 });
    await loyaltyProgram(app.db, y.companyId);
    const old = await oldPhoneTraveller();
    await creditPoints(app.db, { companyId: y.companyId, userId: old.userId!, points: 40 });
    const oldX = await ensureAccount(app.db.pool, x.companyId, old.userId!);
    const [oldAccount] = await app.db.query<{ referral_code: string }>(
      'select referral_code from loyalty_accounts where id = $1',
      [oldX],
    );
    const traveller = await idpTraveller();
    await ensureAccount(app.db.pool, x.companyId, traveller.userId);
    const code = await codeFor(old.phone);

    // The old side has points (in Y), so its empty X account was not weighed as idle; once a referrer
    // it is no longer empty, and the surviving account's empty X account gives way instead.
    const { friend, referred, merged } = await mergeBehindReferral(x.companyId, oldAccount!.referral_code, {
      token: traveller.token,
      phone: old.phone,
      code,
    });
    expect(referred.status, referred.text).toBe(201);
    expect(merged.status, merged.text).toBe(200);
    expect(await referralsEnteredBy(friend.userId)).toEqual([{ referrer_account_id: oldX }]);
    expect(
      await app.db.query('select id from loyalty_accounts where company_id = $1 and user_id = $2', [
        x.companyId,
        traveller.userId,
      ]),
    ).toEqual([{ id: oldX }]);
  }, 60_000);

  it("refuses the merge 409 ACCOUNT_LINK_REQUIRES_RECOVERY once a friend's referral, already under way, names the surviving account's empty account, and moves nothing", async () => {
    const { trip, old, traveller, survivorCode, empty } = await survivorWithEmptyAccount();
    const code = await codeFor(old.phone);
    const state = async () => ({
      rows: await snapshot([traveller.userId, old.userId], [old.passengerId]),
      loyalty: await loyaltyAccountsOf(trip.companyId, [old.userId!, traveller.userId]),
    });
    const before = await state();

    // The empty account would give way to the old account's, which has points; once it is a
    // referrer both sides have loyalty activity in the program.
    const { friend, referred, merged } = await mergeBehindReferral(trip.companyId, survivorCode, {
      token: traveller.token,
      phone: old.phone,
      code,
    });
    expect(referred.status, referred.text).toBe(201);
    expectError(merged, 409, 'ACCOUNT_LINK_REQUIRES_RECOVERY');
    expect(await referralsEnteredBy(friend.userId)).toEqual([{ referrer_account_id: empty.id }]);
    expect(await state()).toEqual(before);
  }, 60_000);

  it("refuses the merge 409 ACCOUNT_LINK_REQUIRES_RECOVERY once a friend's referral, already under way, names the old account's empty account while the surviving account has bookings, and moves nothing", async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { referralPoints: 500 });
    const old = await oldPhoneTraveller();
    const oldAccountId = await ensureAccount(app.db.pool, trip.companyId, old.userId!);
    const [oldAccount] = await app.db.query<{ referral_code: string }>(
      'select referral_code from loyalty_accounts where id = $1',
      [oldAccountId],
    );
    const traveller = await idpTraveller();
    await bookedJourney(traveller.userId);
    await ensureAccount(app.db.pool, trip.companyId, traveller.userId);
    const code = await codeFor(old.phone);
    const state = async () => ({
      rows: await snapshot([traveller.userId, old.userId], [old.passengerId]),
      loyalty: await loyaltyAccountsOf(trip.companyId, [old.userId!, traveller.userId]),
    });
    const before = await state();

    // The old account had nothing but an empty account, which would give way to the surviving
    // account's; once it is a referrer the old side has loyalty activity and this side bookings.
    const { friend, referred, merged } = await mergeBehindReferral(
      trip.companyId,
      oldAccount!.referral_code,
      { token: traveller.token, phone: old.phone, code },
    );
    expect(referred.status, referred.text).toBe(201);
    expectError(merged, 409, 'ACCOUNT_LINK_REQUIRES_RECOVERY');
    expect(await referralsEnteredBy(friend.userId)).toEqual([{ referrer_account_id: oldAccountId }]);
    expect(await state()).toEqual(before);
  }, 60_000);

  it("records a friend's referral naming the old account's code, which the merge moves, as referred by the surviving account", async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { referralPoints: 500 });
    const old = await oldPhoneTraveller();
    await creditPoints(app.db, { companyId: trip.companyId, userId: old.userId!, points: 40 });
    const [oldAccount] = await app.db.query<{ id: string; referral_code: string }>(
      'select id, referral_code from loyalty_accounts where company_id = $1 and user_id = $2',
      [trip.companyId, old.userId],
    );
    const traveller = await idpTraveller();
    const friend = await app.signIn();
    const code = await codeFor(old.phone);

    // The old account's loyalty account is busy: the merge waits on it to give it to the surviving
    // account, and the friend's referral naming its code queues behind the merge.
    const { answer: referring } = await friendsReferralWhileMerging(
      { traveller, old, code },
      oldAccount!.id,
      { companyId: trip.companyId, referralCode: oldAccount!.referral_code },
      friend,
    );
    expect(referring.status, referring.text).toBe(201);
    expect(await referralsEnteredBy(friend.userId)).toEqual([{ referrer_account_id: oldAccount!.id }]);
    const [moved] = await app.db.query<{ user_id: string }>(
      'select user_id from loyalty_accounts where id = $1',
      [oldAccount!.id],
    );
    expect(moved!.user_id).toBe(traveller.userId);
  }, 60_000);

  it("answers the old account's ticket message that waited on the merge 404, or the surviving account sees it", async () => {
    const old = await oldPhoneTraveller();
    const rows = await bookedJourney(old.userId!);
    const [ticket] = await app.db.query<{ id: string }>(
      `insert into support_tickets (subject, opened_by_kind, opened_by, traveller_user_id, booking_id)
       values ('Lost bag', 'TRAVELLER', $1, $1, $2) returning id`,
      [old.userId, rows.bookingId],
    );
    const oldSession = await sessionOf(old.userId!);
    const traveller = await idpTraveller();
    const code = await codeFor(old.phone);

    // The ticket is busy: the merge waits on it holding both users rows, then the old session's
    // message queues behind the merge.
    const { answer: written } = await whileMerging(
      traveller.token,
      old.phone,
      code,
      `select id from support_tickets where id = '${ticket!.id}' for update`,
      () =>
        app.request(`/api/support-tickets/${ticket!.id}/messages`, {
          method: 'POST',
          json: { message: 'It was a blue suitcase' },
          token: oldSession.token,
        }),
    );
    if (written.status === 200) {
      const read = await app.request(`/api/support-tickets/${ticket!.id}`, { token: traveller.token });
      expect(read.status, read.text).toBe(200);
    } else {
      expectError(written, 404, 'TICKET_NOT_FOUND');
    }
    expect(
      await app.db.query(
        `select id from support_ticket_messages where author_kind = 'TRAVELLER' and author_id = $1`,
        [old.userId],
      ),
    ).toEqual([]);
  }, 60_000);

  it.each<[string, (oldUserId: string) => Record<string, string>, number, string | null]>([
    ['naming the booking: the surviving account gets it', () => ({}), 201, null],
    [
      'naming the booking and the old account: refused, the booking is no longer theirs',
      (oldUserId) => ({ travellerId: oldUserId }),
      400,
      'TICKET_SUBJECT_MISMATCH',
    ],
  ])(
    "support's ticket %s, never the account the merge disabled while the ticket waited",
    async (_label, naming, status, errorCode) => {
      const support = await signedInAdmin(app, { role: 'SUPPORT' });
      const old = await oldPhoneTraveller();
      const rows = await bookedJourney(old.userId!);
      const traveller = await idpTraveller();
      const code = await codeFor(old.phone);

      // The old account's row is busy: the merge waits on it first, then support's ticket about the
      // old account's booking (its traveller follows) queues behind the merge.
      const { answer: opened } = await whileMergingOld(traveller, old, code, () =>
        support.browser.send('POST', '/tickets', {
          subject: 'Lost bag',
          message: 'The traveller phoned about a bag left on the bus',
          bookingId: rows.bookingId,
          ...naming(old.userId!),
        }),
      );
      expect({ status: opened.status, errorCode: opened.body?.errorCode ?? null }, opened.text).toEqual({
        status,
        errorCode,
      });
      if (opened.status === 201) {
        const ticketId = opened.body.data.ticket.id as string;
        const read = await app.request(`/api/support-tickets/${ticketId}`, { token: traveller.token });
        const listed = await support.browser.get(`/tickets?travellerId=${traveller.userId}`);
        expect({
          answered: opened.body.data.ticket.traveller,
          survivorReads: read.status,
          supportListsForSurvivor: listed.body.data.items.map((item: { id: string }) => item.id),
        }).toEqual({
          answered: expect.objectContaining({ id: traveller.userId }),
          survivorReads: 200,
          supportListsForSurvivor: [ticketId],
        });
      }
      expect(
        await app.db.query('select id from support_tickets where traveller_user_id = $1', [old.userId]),
      ).toEqual([]);
    },
    60_000,
  );

  it('keeps a favorite saved while the merge moves the profile: the route saved is listed afterwards', async () => {
    const traveller = await idpTraveller();
    const newer = await passengerWithFavorites(null, 0);
    await app.db.query('update users set passenger_id = $2 where id = $1', [traveller.userId, newer]);
    const old = await oldPhoneTraveller({ withUser: false });
    const code = await codeFor(old.phone);

    // The newer profile is busy: the merge waits on it, then the favorite's write queues behind it.
    const { merged, answer: saved } = await whileMerging(
      traveller.token,
      old.phone,
      code,
      `select id from passengers where id = '${newer}' for update`,
      () =>
        app.request('/api/favorites', {
          method: 'POST',
          json: { originCityId: cities[2], destCityId: cities[3] },
          token: traveller.token,
        }),
    );
    expect(merged.body.data).toMatchObject({ passengerId: old.passengerId, merged: true });
    expect([200, 201]).toContain(saved.status);

    const listed = await app.request('/api/favorites', { token: traveller.token });
    expect(listed.status).toBe(200);
    const stored = await app.db.query('select passenger_id from favorites where id = $1', [
      saved.body.favorite.id,
    ]);
    expect(
      listed.body.favorites.map((favorite: { id: string }) => favorite.id),
      `POST answered ${saved.status}; stored on ${JSON.stringify(stored)}; canonical ${old.passengerId}, merged-away ${newer}`,
    ).toContain(saved.body.favorite.id);
  }, 60_000);

  it.each<[string, { password?: boolean; appMetadata?: object }]>([
    ['has a password', { password: true }],
    ['sees another inventory scope', { appMetadata: { inventory_scope: 'INTERNAL' } }],
  ])('refuses to absorb an old account that %s', async (_label, options) => {
    const traveller = await idpTraveller();
    const old = await oldPhoneTraveller(options);
    const code = await codeFor(old.phone);
    const before = await snapshot([traveller.userId, old.userId], [old.passengerId]);
    expectError(
      await complete(traveller.token, { phone: old.phone, code, method: 'sms' }),
      409,
      'ACCOUNT_LINK_REQUIRES_RECOVERY',
    );
    expect(await snapshot([traveller.userId, old.userId], [old.passengerId])).toEqual(before);
  });

  it('refuses to absorb an old account that has its own identity-provider sign-in', async () => {
    const traveller = await idpTraveller();
    const other = await idpTraveller();
    const phone = reservedPhone();
    expect((await complete(other.token, { phone, code: await codeFor(phone), method: 'sms' })).status).toBe(
      200,
    );
    const code = await codeFor(phone);
    const before = await snapshot([traveller.userId, other.userId], []);
    expectError(
      await complete(traveller.token, { phone, code, method: 'sms' }),
      409,
      'ACCOUNT_LINK_REQUIRES_RECOVERY',
    );
    expect(await snapshot([traveller.userId, other.userId], [])).toEqual(before);
  });

  it('refuses a second, different number', async () => {
    const traveller = await idpTraveller();
    const first = reservedPhone();
    await complete(traveller.token, { phone: first, code: await codeFor(first), method: 'sms' });
    const second = reservedPhone();
    expectError(
      await complete(traveller.token, { phone: second, code: await codeFor(second), method: 'sms' }),
      409,
      'PHONE_ALREADY_SET',
    );
    const [user] = await app.db.query('select phone from users where id = $1', [traveller.userId]);
    expect(user).toEqual({ phone: first });
  });

  it('needs a traveller session, and the CSRF header with cookies', async () => {
    const phone = reservedPhone();
    const code = await codeFor(phone);
    const anonymous = await app.request('/api/auth/customer/complete-phone', {
      method: 'POST',
      json: { phone, code, method: 'sms' },
    });
    expectError(anonymous, 401, 'AUTH_REQUIRED');
    const web = await app.signIn(undefined, { phone: null });
    const noCsrf = await app.request('/api/auth/customer/complete-phone', {
      method: 'POST',
      json: { phone, code, method: 'sms' },
      headers: { Cookie: web.cookie },
    });
    expectError(noCsrf, 403, 'CSRF_TOKEN_INVALID');
    expect(await app.db.query('select 1 from users where phone = $1', [phone])).toEqual([]);
  });

  it('refuses extra fields', async () => {
    const traveller = await idpTraveller();
    const phone = reservedPhone();
    const response = await complete(traveller.token, {
      phone,
      code: '123456',
      method: 'sms',
      passengerId: crypto.randomUUID(),
    });
    expectError(response, 400, 'VALIDATION_FAILED');
  });
});
