import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sendOtp } from '../../../api/auth/otp.js';
import type { Config } from '../../../config/index.js';
import { createLogger } from '../../../config/logger.js';
import { failOnce } from '../../support/fail-once.js';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { startSmsVerifyFake } from '../../support/fakes/sms-verify.js';
import { useFakeSmtp } from '../../support/fakes/smtp.js';
import { useTestApp, type TestApp, type TestResponse } from '../../support/harness.js';

/**
 * SPEC "awaiting code | POST /auth/customer/verify-otp | code valid | active session": a sign-in
 * either happens whole or leaves nothing behind. The one-time code (or the identity provider's
 * nonce) is used up, the account created and the session written in one transaction, so a failure
 * of any of them (injected here with a trigger that fails one write, once) or a refusal leaves the
 * code usable, no account and no session: the retry is the same sign-in, a new user's included. A
 * wrong code still counts its attempt.
 */

/** A number in the reserved demo range (+963900...), which the pre-launch mode serves with a local code. */
const reservedPhone = () => `+9639007${String(randomInt(0, 100_000)).padStart(5, '0')}`;
const uniqueEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.test`;

const sms = await startSmsVerifyFake();
afterAll(() => sms.close());

const noLimits = {
  OTP_SEND_PER_IP_PER_HOUR: 0,
  OTP_SEND_PER_PHONE_PER_HOUR: 0,
  OTP_VERIFY_PER_IP_PER_HOUR: 0,
} satisfies Partial<Config>;

const expectError = (response: TestResponse, status: number, errorCode: string) => {
  expect({ status: response.status, errorCode: response.body?.errorCode }).toEqual({ status, errorCode });
};

/** Everything a sign-in by phone writes, to show a failed or refused one wrote nothing. */
async function phoneTrace(app: TestApp, phone: string) {
  return {
    users: await app.db.query('select id from users where phone = $1', [phone]),
    passengers: await app.db.query('select id from passengers where phone = $1', [phone]),
    sessions: await app.db.query(
      'select s.id from traveller_sessions s join users u on u.id = s.user_id where u.phone = $1',
      [phone],
    ),
    challenges: await app.db.query<{ consumed: boolean; attempts: number }>(
      'select consumed_at is not null as consumed, attempts from otp_challenges where phone = $1 order by created_at',
      [phone],
    ),
  };
}

/** One account and one session for the phone, its one code spent with no wrong entry. */
async function expectSignedInOnce(app: TestApp, phone: string) {
  const trace = await phoneTrace(app, phone);
  expect({
    users: trace.users.length,
    sessions: trace.sessions.length,
    challenges: trace.challenges,
  }).toEqual({
    users: 1,
    sessions: 1,
    challenges: [{ consumed: true, attempts: 0 }],
  });
}

/** The next session written for the account of this phone fails. */
const sessionOfPhoneFails = (app: TestApp, phone: string) =>
  failOnce(app.db, {
    table: 'traveller_sessions',
    event: 'insert',
    condition: `exists (select 1 from users u where u.id = new.user_id and u.phone = '${phone}')`,
  });

describe('verify-otp with a local code (pre-launch) that fails after the code was checked', () => {
  const mail = useFakeSmtp({ NODE_ENV: 'development', OTP_PRELAUNCH: true, ...noLimits });
  const app = useTestApp(mail.config);
  const send = (phone: string) =>
    app.request('/api/auth/customer/send-otp', { method: 'POST', json: { phone, method: 'sms' } });
  const verify = (json: Record<string, unknown>) =>
    app.request('/api/auth/customer/verify-otp', { method: 'POST', json });

  it('leaves the code usable and no account when the session cannot be written: the same code then signs up a new traveller, with the verification link', async () => {
    const phone = reservedPhone();
    const email = uniqueEmail('retry');
    const code = (await send(phone)).body.otpCode as string;
    const cleanUp = await sessionOfPhoneFails(app, phone);
    try {
      const failed = await verify({ phone, code, method: 'sms', name: 'Lina', email });
      expect(failed.status).toBe(500);
      expect(await phoneTrace(app, phone)).toEqual({
        users: [],
        passengers: [],
        sessions: [],
        challenges: [{ consumed: false, attempts: 0 }],
      });

      const retry = await verify({ phone, code, method: 'sms', name: 'Lina', email });
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.data).toMatchObject({
        isNewUser: true,
        emailVerificationPending: true,
        user: { name: 'Lina', email, phone },
      });
      expect((await mail.smtp.waitForMessage(email)).text).toContain('/auth/verify-email#token=');
      await expectSignedInOnce(app, phone);
      // Used up by the sign-in that succeeded.
      expectError(await verify({ phone, code, method: 'sms' }), 400, 'OTP_EXPIRED');
    } finally {
      await cleanUp();
    }
  });

  it('still counts a wrong code as a failed attempt; a sign-in that then fails adds none', async () => {
    const phone = reservedPhone();
    const code = (await send(phone)).body.otpCode as string;
    const wrong = code === '000000' ? '111111' : '000000';

    expectError(await verify({ phone, code: wrong, method: 'sms' }), 400, 'OTP_INVALID');
    expect((await phoneTrace(app, phone)).challenges).toEqual([{ consumed: false, attempts: 1 }]);

    const cleanUp = await sessionOfPhoneFails(app, phone);
    try {
      expect((await verify({ phone, code, method: 'sms' })).status).toBe(500);
      expect(await phoneTrace(app, phone)).toEqual({
        users: [],
        passengers: [],
        sessions: [],
        challenges: [{ consumed: false, attempts: 1 }],
      });
      const retry = await verify({ phone, code, method: 'sms' });
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.data.isNewUser).toBe(true);
    } finally {
      await cleanUp();
    }
  });

  it('signs in once when the same code is sent twice at once: the other attempt is OTP_EXPIRED', async () => {
    const phone = reservedPhone();
    const code = (await send(phone)).body.otpCode as string;

    const answers = await Promise.all([
      verify({ phone, code, method: 'sms', name: 'Lina' }),
      verify({ phone, code, method: 'sms', name: 'Lina' }),
    ]);

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.status === 400)!.body.errorCode).toBe('OTP_EXPIRED');
    await expectSignedInOnce(app, phone);
  });

  it('refuses a disabled account 403 ACCOUNT_DISABLED without using the code up or writing anything', async () => {
    const phone = reservedPhone();
    await app.db.query(`insert into users (phone, name, status) values ($1, 'Gone', 'DISABLED')`, [phone]);
    const code = (await send(phone)).body.otpCode as string;
    const before = await phoneTrace(app, phone);

    expectError(await verify({ phone, code, method: 'sms' }), 403, 'ACCOUNT_DISABLED');

    expect(await phoneTrace(app, phone)).toEqual(before);
    expect(before.challenges).toEqual([{ consumed: false, attempts: 0 }]);
  });
});

describe('verify-otp with the SMS verification provider that fails after the provider approved the code', () => {
  const app = useTestApp({
    ...noLimits,
    OTP_PRELAUNCH: false,
    SITE_MODE: 'live',
    SMS_VERIFY_URL: sms.url,
    SMS_VERIFY_API_KEY: sms.apiKey,
    OTP_PROVIDER_TIMEOUT_MS: 400,
  });
  const send = (phone: string) =>
    app.request('/api/auth/customer/send-otp', { method: 'POST', json: { phone, method: 'sms' } });
  const verify = (json: Record<string, unknown>) =>
    app.request('/api/auth/customer/verify-otp', { method: 'POST', json });
  const newPhone = () => `+96395${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;

  it('records no approval and no account: a new code then signs up a new traveller', async () => {
    const phone = newPhone();
    expect((await send(phone)).status).toBe(200);
    const cleanUp = await sessionOfPhoneFails(app, phone);
    try {
      expect((await verify({ phone, code: sms.lastCode(phone), method: 'sms', name: 'Sami' })).status).toBe(
        500,
      );
      expect(await phoneTrace(app, phone)).toEqual({
        users: [],
        passengers: [],
        sessions: [],
        challenges: [{ consumed: false, attempts: 0 }],
      });
      // The provider closed its verification when it approved the code: it refuses that code now.
      expectError(await verify({ phone, code: sms.lastCode(phone), method: 'sms' }), 400, 'OTP_EXPIRED');

      expect((await send(phone)).status).toBe(200);
      const retry = await verify({ phone, code: sms.lastCode(phone), method: 'sms', name: 'Sami' });
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.data).toMatchObject({ isNewUser: true, user: { name: 'Sami', phone } });
      expect((await phoneTrace(app, phone)).challenges).toEqual([
        { consumed: true, attempts: 0 },
        { consumed: true, attempts: 0 },
      ]);
    } finally {
      await cleanUp();
    }
  });
});

describe('complete-phone and identity-provider sign-in that fail part-way', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    SITE_ORIGIN: 'https://www.bus.test',
    OTP_PRELAUNCH: true,
    IDP_RATE_LIMIT_PER_IP: 100_000,
    IDP_RATE_LIMIT_PER_SUBJECT: 1000,
    ...noLimits,
  });
  const app = useTestApp(config);
  const siteHeaders = { Origin: 'https://www.bus.test', 'Sec-Fetch-Site': 'same-origin' };

  const mobileSignIn = (idToken: string) =>
    app.request('/api/auth/customer/idp/mobile', { method: 'POST', json: { idToken } });
  const codeFor = async (phone: string) => {
    const sent = await sendOtp(
      { config: app.config, db: app.db, logger: createLogger(app.config, 'test') },
      { phone, method: 'sms' },
    );
    return sent.localCode!;
  };
  const complete = (token: string, phone: string, code: string) =>
    app.request('/api/auth/customer/complete-phone', { method: 'POST', json: { phone, code }, token });
  /** A traveller signed in with the identity provider on the mobile app: no phone yet. */
  const idpTraveller = async () => {
    const response = await mobileSignIn(await idp.mint({ audience: idp.mobileClientId }));
    expect(response.status, response.text).toBe(200);
    return { userId: response.body.data.user.id as string, token: response.body.data.accessToken as string };
  };
  const accountOf = async (userId: string) =>
    (await app.db.query('select phone, passenger_id from users where id = $1', [userId]))[0];
  const identityTrace = async (email: string) => ({
    users: await app.db.query('select id from users where lower(email) = lower($1)', [email]),
    identities: await app.db.query('select user_id from user_identities where lower(email) = lower($1)', [
      email,
    ]),
  });
  /** The next session written for the account of this e-mail address fails. */
  const sessionOfEmailFails = (email: string) =>
    failOnce(app.db, {
      table: 'traveller_sessions',
      event: 'insert',
      condition: `exists (select 1 from users u where u.id = new.user_id and u.email = '${email}')`,
    });

  it('complete-phone that fails while writing the account changes nothing and leaves the code usable: the same code then completes the phone', async () => {
    const me = await idpTraveller();
    const phone = reservedPhone();
    const code = await codeFor(phone);
    const cleanUp = await failOnce(app.db, {
      table: 'users',
      event: 'update',
      condition: `new.phone = '${phone}' and old.phone is null`,
    });
    try {
      expect((await complete(me.token, phone, code)).status).toBe(500);
      expect(await accountOf(me.userId)).toEqual({ phone: null, passenger_id: null });
      expect(await phoneTrace(app, phone)).toEqual({
        users: [],
        passengers: [],
        sessions: [],
        challenges: [{ consumed: false, attempts: 0 }],
      });

      const retry = await complete(me.token, phone, code);
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.data).toMatchObject({ merged: false, user: { id: me.userId, phone } });
      expect(await accountOf(me.userId)).toEqual({ phone, passenger_id: retry.body.data.passengerId });
      expect((await phoneTrace(app, phone)).challenges).toEqual([{ consumed: true, attempts: 0 }]);
      expectError(await complete(me.token, phone, code), 400, 'OTP_EXPIRED');
    } finally {
      await cleanUp();
    }
  });

  it('complete-phone refused 409 PHONE_ALREADY_SET leaves the code of the other number usable; a wrong code still counts', async () => {
    const me = await idpTraveller();
    const mine = reservedPhone();
    expect((await complete(me.token, mine, await codeFor(mine))).status).toBe(200);
    const other = reservedPhone();
    const code = await codeFor(other);
    const wrong = code === '000000' ? '111111' : '000000';

    expectError(await complete(me.token, other, wrong), 400, 'OTP_INVALID');
    expectError(await complete(me.token, other, code), 409, 'PHONE_ALREADY_SET');

    expect(await accountOf(me.userId)).toMatchObject({ phone: mine });
    expect(await phoneTrace(app, other)).toEqual({
      users: [],
      passengers: [],
      sessions: [],
      challenges: [{ consumed: false, attempts: 1 }],
    });
  });

  it('an identity-provider sign-in whose session cannot be written creates no account: the same token then signs up', async () => {
    const email = uniqueEmail('idp-mobile');
    const idToken = await idp.mint({ audience: idp.mobileClientId, claims: { email, name: 'Rana' } });
    const cleanUp = await sessionOfEmailFails(email);
    try {
      expect((await mobileSignIn(idToken)).status).toBe(500);
      expect(await identityTrace(email)).toEqual({ users: [], identities: [] });

      const retry = await mobileSignIn(idToken);
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.data).toMatchObject({ isNewUser: true, user: { email, name: 'Rana' } });
    } finally {
      await cleanUp();
    }
  });

  it('a web identity-provider sign-in whose session cannot be written leaves its nonce usable: the same flow then signs in, once', async () => {
    const flowAnswer = await app.request('/api/auth/customer/idp/nonce?channel=web');
    expect(flowAnswer.status).toBe(200);
    const { flowId, nonce } = flowAnswer.body.data as { flowId: string; nonce: string };
    const cookie = (
      flowAnswer.headers.getSetCookie().find((value) => value.startsWith('bb_idp_')) ?? ''
    ).split(';')[0]!;
    const email = uniqueEmail('idp-web');
    const idToken = await idp.mint({ claims: { nonce, email } });
    const signIn = () =>
      app.request('/api/auth/customer/idp/web', {
        method: 'POST',
        json: { idToken, flowId, returnTo: '/' },
        headers: { ...siteHeaders, Cookie: cookie },
      });
    const cleanUp = await sessionOfEmailFails(email);
    try {
      expect((await signIn()).status).toBe(500);
      expect(await identityTrace(email)).toEqual({ users: [], identities: [] });
      expect(
        await app.db.query('select consumed_at is not null as consumed from idp_nonces where flow_id = $1', [
          flowId,
        ]),
      ).toEqual([{ consumed: false }]);

      const retry = await signIn();
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.data.isNewUser).toBe(true);
      expectError(await signIn(), 401, 'IDP_NONCE_INVALID');
    } finally {
      await cleanUp();
    }
  });
});
