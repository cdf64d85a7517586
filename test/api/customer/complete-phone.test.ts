import { randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sendOtp } from '../../../api/auth/otp.js';
import { issueTravellerSession } from '../../../api/auth/traveller-session.js';
import { createTravellerTokens } from '../../../api/auth/traveller-token.js';
import { createLogger } from '../../../config/logger.js';
import { createCity } from '../../support/factories.js';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';

/**
 * Codes come from the real OTP module in pre-launch mode, which serves only the reserved +963900
 * numbers with a local code; every phone here is one of them.
 */
const reservedPhone = () => `+963900${String(randomInt(100_000, 1_000_000))}`;

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
    const oldSession = await issueTravellerSession(
      { config: app.config, db: app.db, tokens: createTravellerTokens(app.config) },
      old.userId!,
      'mobile',
    );
    const response = await complete(traveller.token, {
      phone: old.phone,
      code: await codeFor(old.phone),
      method: 'sms',
    });

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
    const response = await complete(traveller.token, {
      phone: old.phone,
      code: await codeFor(old.phone),
      method: 'sms',
    });

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
