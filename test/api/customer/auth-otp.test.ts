import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../../config/index.js';
import { DEMO_COMPANY_ID } from '../../../db/seed/demo-identities.js';
import { arabicDuration, englishDuration } from '../../../domain/account-email.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { startChatappFake } from '../../support/fakes/chatapp.js';
import { startRedirectTarget } from '../../support/fakes/redirect-target.js';
import { startSmsVerifyFake } from '../../support/fakes/sms-verify.js';
import { useTestApp, type TestApp } from '../../support/harness.js';

/**
 * SPEC "Customer authentication": send-otp and verify-otp against local imitations of the SMS
 * verification provider and the chat bot API, plus the pre-launch mode.
 */

const sms = await startSmsVerifyFake();
const bot = await startChatappFake();
afterAll(async () => {
  await sms.close();
  await bot.close();
});

let counter = 0;
const pid = process.pid % 1000;
/** A real-looking Syrian mobile number no other test uses. */
const newPhone = () => `+96394${String(pid).padStart(3, '0')}${String(++counter).padStart(4, '0')}`;
/** A number in the reserved demo range (+963900...), clear of the seeded personas. */
const reservedPhone = () =>
  `+9639009${String(pid % 100).padStart(2, '0')}${String(++counter).padStart(3, '0')}`;

const noLimits = {
  OTP_SEND_PER_IP_PER_HOUR: 0,
  OTP_SEND_PER_PHONE_PER_HOUR: 0,
  OTP_VERIFY_PER_IP_PER_HOUR: 0,
} satisfies Partial<Config>;

/** The site is live and both providers are the local fakes. */
const providerMode = {
  ...noLimits,
  OTP_PRELAUNCH: false,
  SITE_MODE: 'live',
  SMS_VERIFY_URL: sms.url,
  SMS_VERIFY_API_KEY: sms.apiKey,
  CHATAPP_API_URL: bot.url,
  CHATAPP_BOT_TOKEN: bot.botToken,
  OTP_PROVIDER_TIMEOUT_MS: 400,
} satisfies Partial<Config>;

/** Coming-soon site with pre-launch codes; the providers are configured but must stay untouched. */
const prelaunchMode = {
  ...providerMode,
  OTP_PRELAUNCH: true,
  SITE_MODE: 'coming_soon',
} satisfies Partial<Config>;

function otpRoutes(app: TestApp) {
  return {
    send: (json: Record<string, unknown>, headers: Record<string, string> = {}) =>
      app.request('/api/auth/customer/send-otp', { method: 'POST', json, headers }),
    verify: (json: Record<string, unknown>, headers: Record<string, string> = {}) =>
      app.request('/api/auth/customer/verify-otp', { method: 'POST', json, headers }),
    userByPhone: async (phone: string) =>
      (
        await app.db.query<{
          id: string;
          name: string;
          email: string | null;
          passenger_id: string | null;
          app_metadata: unknown;
        }>('select id, name, email, passenger_id, app_metadata from users where phone = $1', [phone])
      )[0],
    challenges: (phone: string) =>
      app.db.query<any>('select * from otp_challenges where phone = $1', [phone]),
  };
}

/** Nothing in an error answer may name the provider, its key, its address or its own words. */
function expectNoProviderDetails(text: string) {
  for (const secret of [
    sms.apiKey,
    sms.leakMarker,
    sms.url,
    bot.botToken,
    bot.url,
    'trace',
    'VerifyService',
    'Bad Gateway',
    'blocked',
  ]) {
    expect(text).not.toContain(secret);
  }
}

describe('send-otp and verify-otp with the SMS verification provider', () => {
  const app = useTestApp(providerMode);
  const { send, verify, userByPhone, challenges } = otpRoutes(app);

  it('sends by SMS, then signs a new traveller in with the code the provider delivered', async () => {
    const phone = newPhone();
    const sent = await send({ phone, method: 'sms' });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      success: true,
      message: expect.any(String),
      fallbackToSms: false,
      actualChannel: 'sms',
    });
    const code = sms.lastCode(phone)!;
    expect(code).toMatch(/^\d{6}$/);
    const [challenge] = await challenges(phone);
    expect(challenge).toMatchObject({
      channel: 'sms',
      code_hash: null,
      provider_reference: expect.stringMatching(/^VE/),
    });

    const verified = await verify({ phone, code, method: 'sms', name: 'Lina Haddad' });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      success: true,
      data: {
        user: { id: expect.any(String), phone, name: 'Lina Haddad', email: null },
        isNewUser: true,
        emailVerificationPending: false,
      },
    });
    const user = await userByPhone(phone);
    expect(user).toMatchObject({ id: verified.body.data.user.id, name: 'Lina Haddad', app_metadata: {} });
    const [passenger] = await app.db.query('select phone, name from passengers where id = $1', [
      user!.passenger_id,
    ]);
    expect(passenger).toEqual({ phone, name: 'Lina Haddad' });
    expect(
      verified.headers
        .getSetCookie()
        .map((cookie) => cookie.split('=')[0])
        .sort(),
    ).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);
  });

  it('finds the same account again (isNewUser false) and ignores name and email on later sign-ins', async () => {
    const phone = newPhone();
    await send({ phone, method: 'sms' });
    const first = await verify({ phone, code: sms.lastCode(phone)!, method: 'sms', name: 'First Name' });
    await send({ phone, method: 'sms' });
    const again = await verify({
      phone,
      code: sms.lastCode(phone)!,
      method: 'sms',
      name: 'Other Name',
      email: 'other@example.com',
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      isNewUser: false,
      user: { id: first.body.data.user.id, name: 'First Name', email: null },
    });
    expect(await app.db.query('select 1 from users where phone = $1', [phone])).toHaveLength(1);
  });

  it('reads national and 00-prefixed spellings of a number as the same E.164 phone', async () => {
    const phone = newPhone();
    const national = `0${phone.slice(4)}`;
    expect((await send({ phone: national, method: 'sms' })).status).toBe(200);
    expect(sms.messages.at(-1)!.to).toBe(phone);
    const verified = await verify({
      phone: `00${phone.slice(1)}`,
      code: sms.lastCode(phone)!,
      method: 'sms',
    });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user.phone).toBe(phone);
  });

  it('refuses a wrong code with 400 OTP_INVALID and creates nothing; the right code still works', async () => {
    const phone = newPhone();
    await send({ phone, method: 'sms' });
    const code = sms.lastCode(phone)!;
    const wrong = await verify({ phone, code: code === '000000' ? '111111' : '000000', method: 'sms' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errorCode).toBe('OTP_INVALID');
    expect(await userByPhone(phone)).toBeUndefined();
    expect(wrong.headers.getSetCookie()).toEqual([]);
    expect((await verify({ phone, code, method: 'sms' })).status).toBe(200);
  });

  it('refuses a code the provider let expire with 400 OTP_EXPIRED', async () => {
    const phone = newPhone();
    await send({ phone, method: 'sms' });
    const code = sms.lastCode(phone)!;
    sms.expire(phone);
    const response = await verify({ phone, code, method: 'sms' });
    expect(response.status).toBe(400);
    expect(response.body.errorCode).toBe('OTP_EXPIRED');
    expect(await userByPhone(phone)).toBeUndefined();
  });

  it('answers 429 OTP_TOO_MANY_ATTEMPTS once the provider burns the code, which then never works', async () => {
    const phone = newPhone();
    await send({ phone, method: 'sms' });
    const code = sms.lastCode(phone)!;
    const wrongCode = code === '999999' ? '888888' : '999999';
    const answers = [];
    for (let attempt = 0; attempt < 5; attempt++)
      answers.push((await verify({ phone, code: wrongCode, method: 'sms' })).body.errorCode);
    expect(answers).toEqual([
      'OTP_INVALID',
      'OTP_INVALID',
      'OTP_INVALID',
      'OTP_INVALID',
      'OTP_TOO_MANY_ATTEMPTS',
    ]);
    const late = await verify({ phone, code, method: 'sms' });
    expect(late.status).toBe(400);
    expect(late.body.errorCode).toBe('OTP_EXPIRED');
    expect(await userByPhone(phone)).toBeUndefined();
  });

  it('uses a code once: the same code again is OTP_EXPIRED', async () => {
    const phone = newPhone();
    await send({ phone, method: 'sms' });
    const code = sms.lastCode(phone)!;
    expect((await verify({ phone, code, method: 'sms' })).status).toBe(200);
    const replay = await verify({ phone, code, method: 'sms' });
    expect(replay.status).toBe(400);
    expect(replay.body.errorCode).toBe('OTP_EXPIRED');
  });

  it('answers OTP_EXPIRED when no code was ever sent to the number', async () => {
    const response = await verify({ phone: newPhone(), code: '123456', method: 'sms' });
    expect(response.status).toBe(400);
    expect(response.body.errorCode).toBe('OTP_EXPIRED');
  });

  it.each([
    ['a 500 answer quoting its internals', 'error'],
    ['no answer before the timeout', 'hang'],
    ['an answer that is not JSON', 'garbage'],
  ] as const)(
    'turns a provider failure (%s) on sending into a clean 503 OTP_UNAVAILABLE with Retry-After',
    async (_case, failure) => {
      const phone = newPhone();
      sms.failNext(failure);
      const started = Date.now();
      const response = await send({ phone, method: 'sms' });
      expect(response.status).toBe(503);
      expect(response.body).toEqual({
        success: false,
        errorCode: 'OTP_UNAVAILABLE',
        message: expect.any(String),
        details: { retryAfterSeconds: 60 },
        requestId: expect.any(String),
      });
      // The provider asked for no wait: a minute.
      expect(response.headers.get('Retry-After')).toBe('60');
      expectNoProviderDetails(response.text);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await challenges(phone)).toEqual([]);
    },
  );

  it('turns a provider failure while checking into 503 and keeps the code usable', async () => {
    const phone = newPhone();
    await send({ phone, method: 'sms' });
    const code = sms.lastCode(phone)!;
    sms.failNext('error');
    const failed = await verify({ phone, code, method: 'sms' });
    expect(failed.status).toBe(503);
    expect(failed.body.errorCode).toBe('OTP_UNAVAILABLE');
    expect(failed.headers.get('Retry-After')).toBe('60');
    expectNoProviderDetails(failed.text);
    expect(await userByPhone(phone)).toBeUndefined();
    expect((await verify({ phone, code, method: 'sms' })).status).toBe(200);
  });

  it.each([
    ['TOO_MANY_REQUESTS', 'too_many'],
    ['with a code the protocol does not list', 'throttled'],
  ] as const)(
    'a provider 429 while checking that is not MAX_ATTEMPTS_REACHED (%s: its limit on our account) is 503 OTP_UNAVAILABLE with its Retry-After; the challenge stays open and the right code then signs in',
    async (_case, failure) => {
      const phone = newPhone();
      await send({ phone, method: 'sms' });
      const code = sms.lastCode(phone)!;
      const before = await challenges(phone);
      sms.failNext(failure, 1, '30');
      const throttled = await verify({ phone, code, method: 'sms' });
      expect([throttled.status, throttled.body.errorCode], throttled.text).toEqual([503, 'OTP_UNAVAILABLE']);
      expect(throttled.headers.get('Retry-After')).toBe('30');
      expect(throttled.body.details).toEqual({ retryAfterSeconds: 30 });
      expectNoProviderDetails(throttled.text);
      expect(await challenges(phone)).toEqual(before);
      expect(await userByPhone(phone)).toBeUndefined();
      expect((await verify({ phone, code, method: 'sms' })).status).toBe(200);
    },
  );

  it('a provider 429 on sending with a code the protocol does not list (its limit on our account) is 503 OTP_UNAVAILABLE with its Retry-After, storing nothing', async () => {
    const phone = newPhone();
    sms.failNext('throttled', 1, '30');
    const refused = await send({ phone, method: 'sms' });
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([503, 'OTP_UNAVAILABLE']);
    expect(refused.headers.get('Retry-After')).toBe('30');
    expectNoProviderDetails(refused.text);
    expect(await challenges(phone)).toEqual([]);
  });

  it("answers 429 RATE_LIMITED with the provider's Retry-After (1 s to 1 h, else 60 s) when it will not send again, storing nothing", async () => {
    const cases: [retryAfter: string | undefined, expected: string][] = [
      ['120', '120'],
      [undefined, '60'],
      ['86400', '3600'],
      ['0', '1'],
      ['soon', '60'],
      // Neither whole seconds nor an HTTP date: unreadable, so the minute.
      ['1.5', '60'],
      ['-5', '60'],
      [new Date(Date.now() + 600_000).toUTCString(), '600'],
    ];
    for (const [retryAfter, expected] of cases) {
      const phone = newPhone();
      sms.failNext('too_many', 1, retryAfter);
      const refused = await send({ phone, method: 'sms' });
      expect([refused.status, refused.body.errorCode], refused.text).toEqual([429, 'RATE_LIMITED']);
      // An HTTP date is counted from when the provider answered: a second either way.
      const seconds = Number(refused.headers.get('Retry-After'));
      expect(Math.abs(seconds - Number(expected)), `Retry-After for ${retryAfter}`).toBeLessThanOrEqual(1);
      expect(refused.body.details).toEqual({ retryAfterSeconds: seconds });
      expectNoProviderDetails(refused.text);
      expect(await challenges(phone)).toEqual([]);
    }
  });

  it("answers 503 OTP_UNAVAILABLE with the provider's Retry-After when it is down, storing nothing", async () => {
    const phone = newPhone();
    sms.failNext('down', 1, '30');
    const refused = await send({ phone, method: 'sms' });
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([503, 'OTP_UNAVAILABLE']);
    expect(refused.headers.get('Retry-After')).toBe('30');
    expectNoProviderDetails(refused.text);
    expect(await challenges(phone)).toEqual([]);
  });

  it('sends the legacy whatsapp method by SMS without contacting the chat bot', async () => {
    const phone = newPhone();
    const botCalls = bot.requests.length;
    const response = await send({ phone, method: 'whatsapp' });
    expect(response.body).toEqual({
      success: true,
      message: expect.any(String),
      fallbackToSms: true,
      actualChannel: 'sms',
    });
    expect(sms.lastCode(phone)).toBeDefined();
    expect(bot.requests.length).toBe(botCalls);
    expect((await verify({ phone, code: sms.lastCode(phone)!, method: 'whatsapp' })).status).toBe(200);
  });

  it('treats a missing method as the legacy value: by SMS, on send and on verify', async () => {
    const phone = newPhone();
    const botCalls = bot.requests.length;
    const response = await send({ phone });
    expect(response.body).toMatchObject({ fallbackToSms: true, actualChannel: 'sms' });
    expect(bot.requests.length).toBe(botCalls);
    expect((await verify({ phone, code: sms.lastCode(phone)! })).status).toBe(200);
  });

  describe('method chatapp', () => {
    const link = async (phone: string, chatId: string) =>
      app.db.query('insert into chatapp_links (phone, chat_id) values ($1, $2)', [phone, chatId]);

    it('sends a code of our own to the chat linked to the number, and that code signs in', async () => {
      const phone = newPhone();
      const chatId = String(700_000_000 + counter);
      await link(phone, chatId);
      const smsCount = sms.messages.length;
      const response = await send({ phone, method: 'chatapp' });
      expect(response.body).toEqual({
        success: true,
        message: expect.any(String),
        fallbackToSms: false,
        actualChannel: 'chatapp',
      });
      expect(sms.messages.length).toBe(smsCount);
      const code = bot.lastCode(chatId)!;
      expect(code).toMatch(/^\d{6}$/);
      const [challenge] = await challenges(phone);
      expect(challenge).toMatchObject({ channel: 'chatapp', provider_reference: null });
      expect(challenge.code_hash).not.toContain(code);
      expect((await verify({ phone, code, method: 'chatapp' })).status).toBe(200);
    });

    it('accepts chatappChatId when it is the linked chat', async () => {
      const phone = newPhone();
      const chatId = String(710_000_000 + counter);
      await link(phone, chatId);
      const response = await send({ phone, method: 'chatapp', chatappChatId: chatId });
      expect(response.body.actualChannel).toBe('chatapp');
      expect(bot.lastCode(chatId)).toBeDefined();
    });

    it('falls back to SMS when the number has no linked chat', async () => {
      const phone = newPhone();
      const botCalls = bot.requests.length;
      const response = await send({ phone, method: 'chatapp' });
      expect(response.body).toMatchObject({ fallbackToSms: true, actualChannel: 'sms' });
      expect(bot.requests.length).toBe(botCalls);
      expect((await verify({ phone, code: sms.lastCode(phone)!, method: 'chatapp' })).status).toBe(200);
    });

    it('never sends a code to a chat the client names unless it is the one linked to the number', async () => {
      const phone = newPhone();
      await link(phone, String(720_000_000 + counter));
      const strangersChat = '123456789';
      const botCalls = bot.requests.length;
      const response = await send({ phone, method: 'chatapp', chatappChatId: strangersChat });
      expect(response.body).toMatchObject({ fallbackToSms: true, actualChannel: 'sms' });
      expect(bot.requests.length).toBe(botCalls);
      expect(bot.messages.some((message) => message.chatId === strangersChat)).toBe(false);
    });

    it('falls back to SMS when the bot fails, and the undelivered chat code is void', async () => {
      const phone = newPhone();
      const chatId = String(730_000_000 + counter);
      await link(phone, chatId);
      bot.failNext('blocked');
      const response = await send({ phone, method: 'chatapp' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ fallbackToSms: true, actualChannel: 'sms' });
      expectNoProviderDetails(response.text);
      expect((await verify({ phone, code: sms.lastCode(phone)!, method: 'chatapp' })).status).toBe(200);
    });

    it('burns a chat code after 5 wrong entries (429) and expires it after its validity', async () => {
      const phone = newPhone();
      const chatId = String(740_000_000 + counter);
      await link(phone, chatId);
      await send({ phone, method: 'chatapp' });
      const code = bot.lastCode(chatId)!;
      const wrongCode = code === '000000' ? '000001' : '000000';
      const answers = [];
      for (let attempt = 0; attempt < 5; attempt++)
        answers.push((await verify({ phone, code: wrongCode, method: 'chatapp' })).body.errorCode);
      expect(answers).toEqual([
        'OTP_INVALID',
        'OTP_INVALID',
        'OTP_INVALID',
        'OTP_INVALID',
        'OTP_TOO_MANY_ATTEMPTS',
      ]);
      const burnt = await verify({ phone, code, method: 'chatapp' });
      expect(burnt.status).toBe(429);
      expect(burnt.body.errorCode).toBe('OTP_TOO_MANY_ATTEMPTS');

      await send({ phone, method: 'chatapp' });
      const fresh = bot.lastCode(chatId)!;
      // The code's validity has run out (moved into the past rather than waiting five minutes).
      await app.db.query(
        `update otp_challenges set expires_at = now() - interval '1 second' where phone = $1 and consumed_at is null`,
        [phone],
      );
      const expired = await verify({ phone, code: fresh, method: 'chatapp' });
      expect(expired.status).toBe(400);
      expect(expired.body.errorCode).toBe('OTP_EXPIRED');
      expect(await userByPhone(phone)).toBeUndefined();
    });
  });

  describe('bad input', () => {
    it.each([
      ['a phone that is not a number', { phone: 'call me', method: 'sms' }, 'INVALID_PHONE'],
      ['a phone without country or trunk prefix', { phone: '944123456', method: 'sms' }, 'INVALID_PHONE'],
      ['a missing phone', { method: 'sms' }, 'INVALID_PHONE'],
      ['an unknown method', { phone: '+963944000000', method: 'telegram' }, 'VALIDATION_FAILED'],
      ['the old field name channel', { phone: '+963944000000', channel: 'sms' }, 'VALIDATION_FAILED'],
      ['an extra field', { phone: '+963944000000', method: 'sms', devMode: true }, 'VALIDATION_FAILED'],
    ])('send-otp refuses %s with 400 and contacts no provider', async (_case, json, errorCode) => {
      const calls = sms.requests.length + bot.requests.length;
      const response = await send(json);
      expect(response.status).toBe(400);
      expect(response.body.errorCode).toBe(errorCode);
      expect(sms.requests.length + bot.requests.length).toBe(calls);
      expect(await challenges('+963944000000')).toEqual([]);
    });

    it.each([
      ['a code with letters', { code: '12ab56' }],
      ['a code that is too short', { code: '12' }],
      ['a numeric code', { code: 123456 }],
      ['an invalid e-mail', { email: 'not-an-email' }],
      ['app_metadata', { app_metadata: { inventory_scope: 'INTERNAL' } }],
      ['user_metadata', { user_metadata: { inventory_scope: 'INTERNAL' } }],
      ['a passenger id', { passenger_id: '0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c' }],
    ])('verify-otp refuses %s with 400 and writes nothing', async (_case, change) => {
      const phone = newPhone();
      await send({ phone, method: 'sms' });
      const checks = sms.requests.length;
      const response = await verify({ phone, code: sms.lastCode(phone)!, method: 'sms', ...change });
      expect(response.status).toBe(400);
      expect(response.body.errorCode).toBe('VALIDATION_FAILED');
      expect(sms.requests.length).toBe(checks);
      expect(await userByPhone(phone)).toBeUndefined();
      expect((await challenges(phone))[0]).toMatchObject({ consumed_at: null });
    });

    it('verify-otp refuses a malformed phone with 400 INVALID_PHONE', async () => {
      const response = await verify({ phone: '+12', code: '123456', method: 'sms' });
      expect(response.status).toBe(400);
      expect(response.body.errorCode).toBe('INVALID_PHONE');
    });
  });

  describe('e-mail at sign-up', () => {
    it('keeps the e-mail of a new traveller unverified (emailVerificationPending)', async () => {
      const phone = newPhone();
      const email = `traveller-${counter}-${pid}@example.com`;
      await send({ phone, method: 'sms' });
      const response = await verify({ phone, code: sms.lastCode(phone)!, method: 'sms', email });
      expect(response.body.data).toMatchObject({ user: { email }, emailVerificationPending: true });
      const [row] = await app.db.query('select email, email_verified_at from users where phone = $1', [
        phone,
      ]);
      expect(row).toEqual({ email, email_verified_at: null });
    });

    it('does not give a new account an e-mail another account holds, and still signs in', async () => {
      const email = `taken-${counter}-${pid}@example.com`;
      const first = newPhone();
      await send({ phone: first, method: 'sms' });
      await verify({ phone: first, code: sms.lastCode(first)!, method: 'sms', email });
      const second = newPhone();
      await send({ phone: second, method: 'sms' });
      const response = await verify({
        phone: second,
        code: sms.lastCode(second)!,
        method: 'sms',
        email: email.toUpperCase(),
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        user: { email: null },
        emailVerificationPending: false,
        isNewUser: true,
      });
      const user = await userByPhone(second);
      const [passenger] = await app.db.query('select email from passengers where id = $1', [
        user!.passenger_id,
      ]);
      // Kept as typed before the @; the domain is stored in lower case (domain/email-address.ts).
      expect(passenger).toEqual({ email: `${email.toUpperCase().split('@')[0]}@example.com` });
    });
  });
});

describe('chatapp without a bot token on the server', () => {
  const app = useTestApp({ ...providerMode, CHATAPP_BOT_TOKEN: undefined });
  const { send } = otpRoutes(app);

  it('sends by SMS even for a linked number', async () => {
    const phone = newPhone();
    await app.db.query('insert into chatapp_links (phone, chat_id) values ($1, $2)', [phone, '750000000']);
    const botCalls = bot.requests.length;
    const response = await send({ phone, method: 'chatapp' });
    expect(response.body).toMatchObject({ fallbackToSms: true, actualChannel: 'sms' });
    expect(bot.requests.length).toBe(botCalls);
  });
});

/**
 * The chat bot message carrying a sign-in code states how long the code is valid. README: "Local
 * codes (chat bot, pre-launch) ... live 5 minutes" by default (OTP_LOCAL_CODE_TTL_SECONDS, 30-3600 s).
 * The message states the real validity (never a longer one) in correct English and Arabic, as the
 * e-mails do (domain/account-email.ts englishDuration / arabicDuration).
 */
for (const ttl of [90, 900]) {
  describe(`chat bot code message with OTP_LOCAL_CODE_TTL_SECONDS=${ttl}`, () => {
    const app = useTestApp({ ...providerMode, OTP_LOCAL_CODE_TTL_SECONDS: ttl });
    const { send } = otpRoutes(app);

    it('states the real validity of the code, in English and in Arabic', async () => {
      const phone = newPhone();
      const chatId = String(760_000_000 + counter);
      await app.db.query('insert into chatapp_links (phone, chat_id) values ($1, $2)', [phone, chatId]);
      const response = await send({ phone, method: 'chatapp' });
      expect(response.body.actualChannel).toBe('chatapp');
      const text = bot.messages.filter((message) => message.chatId === chatId).at(-1)!.text;
      expect(text).toContain(`Valid for ${englishDuration(ttl)}`);
      expect(text).toContain(`صالح لمدة ${arabicDuration(ttl)}`);
    });
  });
}

describe('pre-launch mode (development)', () => {
  const app = useTestApp({ ...prelaunchMode, NODE_ENV: 'development' });
  const { send, verify, userByPhone, challenges } = otpRoutes(app);

  it('gives a reserved demo number a local code, shown because the mode is development, and contacts no provider', async () => {
    const phone = reservedPhone();
    const calls = sms.requests.length + bot.requests.length;
    for (const method of ['sms', 'chatapp', 'whatsapp', undefined]) {
      const response = await send({ phone, method });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        message: expect.any(String),
        fallbackToSms: false,
        actualChannel: 'local',
        devMode: true,
        otpCode: expect.stringMatching(/^\d{6}$/),
      });
    }
    expect(sms.requests.length + bot.requests.length).toBe(calls);
    const { body } = await send({ phone, method: 'sms' });
    const verified = await verify({ phone, code: body.otpCode, method: 'sms' });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user.phone).toBe(phone);
  });

  it('answers 503 to any real number, on send and on verify, and stores nothing', async () => {
    const phone = newPhone();
    const calls = sms.requests.length + bot.requests.length;
    const sent = await send({ phone, method: 'sms' });
    expect(sent.status).toBe(503);
    expect(sent.body).toMatchObject({ success: false, errorCode: 'PRELAUNCH_PHONE_NOT_ALLOWED' });
    expect(sent.body.otpCode).toBeUndefined();
    const verified = await verify({ phone, code: '123456', method: 'sms' });
    expect(verified.status).toBe(503);
    expect(verified.body.errorCode).toBe('PRELAUNCH_PHONE_NOT_ALLOWED');
    expect(sms.requests.length + bot.requests.length).toBe(calls);
    expect(await challenges(phone)).toEqual([]);
    expect(await userByPhone(phone)).toBeUndefined();
  });

  it('limits wrong entries of a local code to 5, after which even the right code is refused', async () => {
    const phone = reservedPhone();
    const code: string = (await send({ phone, method: 'sms' })).body.otpCode;
    const wrongCode = code === '000000' ? '000001' : '000000';
    const answers = [];
    for (let attempt = 0; attempt < 5; attempt++)
      answers.push((await verify({ phone, code: wrongCode, method: 'sms' })).status);
    expect(answers).toEqual([400, 400, 400, 400, 429]);
    const right = await verify({ phone, code, method: 'sms' });
    expect(right.status).toBe(429);
    expect(right.body.errorCode).toBe('OTP_TOO_MANY_ATTEMPTS');
    expect(await userByPhone(phone)).toBeUndefined();
  });

  it('expires a local code after its validity', async () => {
    const phone = reservedPhone();
    const code: string = (await send({ phone, method: 'sms' })).body.otpCode;
    const [challenge] = await app.db.query<{ id: string; seconds: number }>(
      'select id, extract(epoch from expires_at - created_at)::int as seconds from otp_challenges where phone = $1',
      [phone],
    );
    expect(challenge!.seconds).toBe(300);
    await app.db.query(`update otp_challenges set expires_at = now() - interval '1 second' where id = $1`, [
      challenge!.id,
    ]);
    const response = await verify({ phone, code, method: 'sms' });
    expect(response.status).toBe(400);
    expect(response.body.errorCode).toBe('OTP_EXPIRED');
  });

  it('replaces the previous code when a new one is sent', async () => {
    const phone = reservedPhone();
    const first: string = (await send({ phone, method: 'sms' })).body.otpCode;
    let second: string = (await send({ phone, method: 'sms' })).body.otpCode;
    while (second === first) second = (await send({ phone, method: 'sms' })).body.otpCode;
    expect((await verify({ phone, code: first, method: 'sms' })).body.errorCode).toBe('OTP_INVALID');
    expect((await verify({ phone, code: second, method: 'sms' })).status).toBe(200);
  });

  it('two codes sent at once for one number: only the one sent last stays open, the other is closed', async () => {
    const phone = reservedPhone();
    // Both sends queue at their first write of the challenges, then go on together.
    const table = await holdLock(app.db, 'lock table otp_challenges in share mode');
    const sends = [send({ phone, method: 'sms' }), send({ phone, method: 'sms' })];
    await waitersOf(app.db, table.pid, 2);
    await table.release();
    const codes = (await Promise.all(sends)).map((answer) => answer.body.otpCode as string);
    const open = await app.db.query<{ id: string }>(
      'select id from otp_challenges where phone = $1 and consumed_at is null',
      [phone],
    );
    expect(open, `codes ${codes.join(', ')}`).toHaveLength(1);
  });

  describe('inventory scope comes from server-side metadata only', () => {
    const signIn = async (phone: string, extra: Record<string, unknown> = {}) => {
      const code: string = (await send({ phone, method: 'sms' })).body.otpCode;
      return verify({ phone, code, method: 'sms', ...extra }, { 'X-Client': 'mobile' });
    };
    const scopeOf = (token: string) => decodeJwt(token).app_metadata;

    it('gives the reserved personas their scope (+963900000002 INTERNAL, +963900000003 DEMO)', async () => {
      const internal = await signIn('+963900000002');
      expect(internal.status).toBe(200);
      expect(scopeOf(internal.body.data.token)).toEqual({ inventory_scope: 'INTERNAL' });
      const demo = await signIn('+963900000003');
      expect(scopeOf(demo.body.data.token)).toEqual({
        inventory_scope: 'DEMO',
        demo_company_id: DEMO_COMPANY_ID,
      });
      expect((await userByPhone('+963900000003'))!.app_metadata).toEqual({
        inventory_scope: 'DEMO',
        demo_company_id: DEMO_COMPANY_ID,
      });
      const production = await signIn('+963900000001');
      expect(scopeOf(production.body.data.token)).toEqual({ inventory_scope: 'PRODUCTION' });
    });

    it("restores a persona's metadata at sign-in even if it was changed", async () => {
      await signIn('+963900000002');
      await app.db.query(`update users set app_metadata = '{}' where phone = '+963900000002'`);
      const again = await signIn('+963900000002');
      expect(scopeOf(again.body.data.token)).toEqual({ inventory_scope: 'INTERNAL' });
    });

    it('refuses metadata sent in the request and never widens an ordinary account', async () => {
      const phone = reservedPhone();
      const code: string = (await send({ phone, method: 'sms' })).body.otpCode;
      for (const extra of [
        { app_metadata: { inventory_scope: 'INTERNAL' } },
        { user_metadata: { inventory_scope: 'INTERNAL' } },
        { scope: 'INTERNAL' },
      ]) {
        const refused = await verify({ phone, code, method: 'sms', ...extra });
        expect(refused.status).toBe(400);
      }
      expect(await userByPhone(phone)).toBeUndefined();
      const signedIn = await verify(
        { phone, code, method: 'sms', name: 'INTERNAL', email: `internal-${counter}@example.com` },
        { 'X-Client': 'mobile' },
      );
      expect(signedIn.status).toBe(200);
      expect(scopeOf(signedIn.body.data.token)).toEqual({ inventory_scope: 'PRODUCTION' });
      expect((await userByPhone(phone))!.app_metadata).toEqual({});
    });
  });
});

describe('pre-launch mode outside development', () => {
  for (const NODE_ENV of ['test', 'production'] as const) {
    describe(NODE_ENV, () => {
      const app = useTestApp({ ...prelaunchMode, NODE_ENV });
      const { send, verify } = otpRoutes(app);

      it('never shows devMode or the code', async () => {
        const response = await send({ phone: reservedPhone(), method: 'sms' });
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          success: true,
          message: expect.any(String),
          fallbackToSms: false,
          actualChannel: 'local',
        });
        expect(response.text).not.toMatch(/\d{6}/);
        expect((await verify({ phone: newPhone(), code: '123456', method: 'sms' })).status).toBe(503);
      });
    });
  }
});

describe('rate limits', () => {
  const app = useTestApp({
    ...prelaunchMode,
    OTP_SEND_PER_IP_PER_HOUR: 5,
    OTP_SEND_PER_PHONE_PER_HOUR: 2,
    OTP_VERIFY_PER_IP_PER_HOUR: 2,
  });
  const { send, verify, challenges } = otpRoutes(app);

  it('limits codes per phone number and per client IP (429 RATE_LIMITED with Retry-After)', async () => {
    const phone = reservedPhone();
    expect((await send({ phone, method: 'sms' })).status).toBe(200);
    expect((await send({ phone, method: 'sms' })).status).toBe(200);
    const perPhone = await send({ phone, method: 'sms' });
    expect(perPhone.status).toBe(429);
    expect(perPhone.body.errorCode).toBe('RATE_LIMITED');
    expect(Number(perPhone.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await challenges(phone)).toHaveLength(2);

    expect((await send({ phone: reservedPhone(), method: 'sms' })).status).toBe(200);
    expect((await send({ phone: reservedPhone(), method: 'sms' })).status).toBe(200);
    const other = reservedPhone();
    const perIp = await send({ phone: other, method: 'sms' });
    expect(perIp.status).toBe(429);
    expect(perIp.body.errorCode).toBe('RATE_LIMITED');
    expect(await challenges(other)).toEqual([]);
  });

  it('limits code checks per client IP', async () => {
    const phone = reservedPhone();
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt++)
      statuses.push((await verify({ phone, code: '123456', method: 'sms' })).status);
    expect(statuses).toEqual([400, 400, 429]);
  });
});

describe('configuration of the OTP modes', () => {
  const secret = {
    ACCESS_TOKEN_SECRET: 'a-production-secret-that-is-long-enough-000',
    PUBLIC_ORIGIN: 'https://bus.example',
    MAIL_FROM: 'no-reply@bus.example',
    SIGNING_PRIVATE_KEY_PEM: generateKeyPairSync('ed25519')
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString(),
  };

  it('refuses to start with the pre-launch mode while the site is live', () => {
    expect(() => loadConfig({ OTP_PRELAUNCH: 'true', SITE_MODE: 'live' })).toThrow(/OTP_PRELAUNCH/);
    expect(() =>
      loadConfig({ NODE_ENV: 'production', ...secret, OTP_PRELAUNCH: 'true', SITE_MODE: 'live' }),
    ).toThrow(/OTP_PRELAUNCH/);
  });

  it('turns pre-launch on by default in development while coming soon, and off once live or in production', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).OTP_PRELAUNCH).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development', SITE_MODE: 'live' }).OTP_PRELAUNCH).toBe(false);
    const production = loadConfig({
      NODE_ENV: 'production',
      ...secret,
      SMS_VERIFY_URL: 'https://verify.example',
      SMS_VERIFY_API_KEY: 'k',
    });
    expect(production.OTP_PRELAUNCH).toBe(false);
  });

  it('refuses production with neither an SMS provider nor pre-launch, and a provider URL without its key', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ...secret })).toThrow(/SMS_VERIFY_URL/);
    expect(() => loadConfig({ SMS_VERIFY_URL: 'https://verify.example' })).toThrow(/SMS_VERIFY_API_KEY/);
  });
});

/**
 * README (Travellers, OTP): the providers' redirects are not followed. A 307 to another origin would
 * have fetch repeat the POST there: the number, on a check the traveller's code, the chat code in
 * the bot's message. The other server answers as an obliging provider would (started, approved,
 * sent), so a client that followed it would carry on as if the provider had.
 */
const elsewhere = await startRedirectTarget();
afterAll(() => elsewhere.close());

describe('send-otp and verify-otp when a provider answers with a redirect', () => {
  const app = useTestApp(providerMode);
  const { send, verify, userByPhone, challenges } = otpRoutes(app);

  function expectProviderUnavailable(response: Awaited<ReturnType<typeof send>>) {
    expect([response.status, response.body.errorCode], response.text).toEqual([503, 'OTP_UNAVAILABLE']);
    // The redirect asked for no wait: a minute, as for any other provider failure.
    expect(response.headers.get('Retry-After')).toBe('60');
    expect(response.body.details).toEqual({ retryAfterSeconds: 60 });
    expectNoProviderDetails(response.text);
    expect(response.text).not.toContain(elsewhere.url);
  }

  it('a 307 from the SMS provider on sending is 503 OTP_UNAVAILABLE: the number goes nowhere else and nothing is stored', async () => {
    const phone = newPhone();
    elsewhere.requests.length = 0;
    sms.redirectNext(`${elsewhere.url}/v1/verifications`);
    const response = await send({ phone, method: 'sms' });
    expect(elsewhere.requests).toEqual([]);
    expectProviderUnavailable(response);
    expect(await challenges(phone)).toEqual([]);
    expect(sms.lastCode(phone)).toBeUndefined();
  });

  it("a 307 from the SMS provider on checking is 503 OTP_UNAVAILABLE: the traveller's code goes nowhere else, no account is made, and the code still signs in", async () => {
    const phone = newPhone();
    await send({ phone, method: 'sms' });
    const code = sms.lastCode(phone)!;
    const before = await challenges(phone);
    elsewhere.requests.length = 0;
    sms.redirectNext(`${elsewhere.url}/v1/verifications/check`);
    const response = await verify({ phone, code, method: 'sms', name: 'Rami Saleh' });
    expect(elsewhere.requests).toEqual([]);
    expectProviderUnavailable(response);
    expect(await challenges(phone)).toEqual(before);
    expect(await userByPhone(phone)).toBeUndefined();
    expect((await verify({ phone, code, method: 'sms' })).status).toBe(200);
  });

  it('a 307 from the chat bot is the bot unavailable: the code goes by SMS (fallbackToSms), and the chat code goes nowhere and is void', async () => {
    const phone = newPhone();
    const chatId = String(760_000_000 + counter);
    await app.db.query('insert into chatapp_links (phone, chat_id) values ($1, $2)', [phone, chatId]);
    elsewhere.requests.length = 0;
    bot.redirectNext(`${elsewhere.url}/collect`);
    const response = await send({ phone, method: 'chatapp' });
    expect(elsewhere.requests).toEqual([]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: expect.any(String),
      fallbackToSms: true,
      actualChannel: 'sms',
    });
    expectNoProviderDetails(response.text);
    expect(response.text).not.toContain(elsewhere.url);
    expect(bot.messages.some((message) => message.chatId === chatId)).toBe(false);
    const open = await app.db.query(
      'select channel from otp_challenges where phone = $1 and consumed_at is null',
      [phone],
    );
    expect(open).toEqual([{ channel: 'sms' }]);
    expect((await verify({ phone, code: sms.lastCode(phone)!, method: 'chatapp' })).status).toBe(200);
  });
});

/**
 * README (Travellers, OTP): five codes a phone an hour (OTP_SEND_PER_PHONE_PER_HOUR) count the codes
 * the provider may have sent. A send it answered it did not perform (down, failing, limiting our
 * calls, refusing the number) gives the phone its send back; one whose outcome is unknown (a
 * timeout, an unreadable success) stays counted, as the SMS may have gone out. The client IP's sends
 * count either way.
 */
const closedProviderUrl = await new Promise<string>((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => resolve(`http://127.0.0.1:${port}`));
  });
});

describe('send-otp: a send the SMS provider did not perform does not count against the phone', () => {
  const app = useTestApp({ ...providerMode, OTP_SEND_PER_PHONE_PER_HOUR: 2 });
  const { send, challenges } = otpRoutes(app);
  const delivered = (phone: string) => sms.messages.filter((message) => message.to === phone);

  async function expectRefused(phone: string, status: number, errorCode: string) {
    const response = await send({ phone, method: 'sms' });
    expect([response.status, response.body.errorCode], response.text).toEqual([status, errorCode]);
  }

  /** The phone's limit (2) still holds for codes that went out: two more, then 429. */
  async function expectTwoCodesLeft(phone: string) {
    expect((await send({ phone, method: 'sms' })).status).toBe(200);
    expect((await send({ phone, method: 'sms' })).status).toBe(200);
    await expectRefused(phone, 429, 'RATE_LIMITED');
    expect(delivered(phone)).toHaveLength(2);
    expect(await challenges(phone)).toHaveLength(2);
  }

  it('after the provider answered 503 to as many sends as the limit, the next send gets a code (200, not 429)', async () => {
    const phone = newPhone();
    sms.failNext('down', 2);
    await expectRefused(phone, 503, 'OTP_UNAVAILABLE');
    await expectRefused(phone, 503, 'OTP_UNAVAILABLE');
    expect(delivered(phone)).toEqual([]);
    const response = await send({ phone, method: 'sms' });
    expect([response.status, response.body.errorCode], response.text).toEqual([200, undefined]);
    expect(delivered(phone)).toHaveLength(1);
    expect((await send({ phone, method: 'sms' })).status).toBe(200);
    await expectRefused(phone, 429, 'RATE_LIMITED');
    expect(delivered(phone)).toHaveLength(2);
  });

  it('a provider error (500) or its limit on our own calls (429) gives the send back', async () => {
    const phone = newPhone();
    sms.failNext('error');
    sms.failNext('throttled');
    await expectRefused(phone, 503, 'OTP_UNAVAILABLE');
    await expectRefused(phone, 503, 'OTP_UNAVAILABLE');
    await expectTwoCodesLeft(phone);
  });

  it('the provider refusing to send to the number again (its own limit) gives the send back', async () => {
    const phone = newPhone();
    sms.failNext('too_many', 2, '1');
    await expectRefused(phone, 429, 'RATE_LIMITED');
    await expectRefused(phone, 429, 'RATE_LIMITED');
    await expectTwoCodesLeft(phone);
  });

  it('a send that timed out or whose success was unreadable stays counted: the SMS may have gone out', async () => {
    const phone = newPhone();
    sms.failNext('hang');
    await expectRefused(phone, 503, 'OTP_UNAVAILABLE');
    sms.failNext('garbage');
    await expectRefused(phone, 503, 'OTP_UNAVAILABLE');
    const asked = sms.requests.length;
    await expectRefused(phone, 429, 'RATE_LIMITED');
    expect(sms.requests).toHaveLength(asked);
    expect(await challenges(phone)).toEqual([]);
  });

  it('a chat message that failed before the SMS provider did stays counted: it may have reached the chat', async () => {
    const phone = newPhone();
    const chatId = String(770_000_000 + counter);
    await app.db.query('insert into chatapp_links (phone, chat_id) values ($1, $2)', [phone, chatId]);
    for (let attempt = 0; attempt < 2; attempt++) {
      bot.failNext('hang');
      sms.failNext('down');
      const response = await send({ phone, method: 'chatapp' });
      expect([response.status, response.body.errorCode]).toEqual([503, 'OTP_UNAVAILABLE']);
    }
    await expectRefused(phone, 429, 'RATE_LIMITED');
  });

  describe('with the provider unreachable (connection refused)', () => {
    const unreachable = useTestApp({
      ...providerMode,
      OTP_SEND_PER_PHONE_PER_HOUR: 2,
      SMS_VERIFY_URL: closedProviderUrl,
    });

    it('the sends are not counted: a third send still goes to the provider (503, not 429)', async () => {
      const phone = newPhone();
      const statuses = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await otpRoutes(unreachable).send({ phone, method: 'sms' });
        statuses.push([response.status, response.body.errorCode]);
      }
      expect(statuses).toEqual(Array(3).fill([503, 'OTP_UNAVAILABLE']));
      expect(await otpRoutes(unreachable).challenges(phone)).toEqual([]);
    });
  });

  describe("the client IP's sends", () => {
    const limitedIp = useTestApp({
      ...providerMode,
      OTP_SEND_PER_IP_PER_HOUR: 3,
      OTP_SEND_PER_PHONE_PER_HOUR: 2,
    });

    it('stay counted when the provider sent nothing (429 RATE_LIMITED, nothing sent)', async () => {
      const { send: sendFromIp, challenges: challengesOf } = otpRoutes(limitedIp);
      sms.failNext('down', 3);
      for (let attempt = 0; attempt < 3; attempt++)
        expect((await sendFromIp({ phone: newPhone(), method: 'sms' })).status).toBe(503);
      const phone = newPhone();
      const response = await sendFromIp({ phone, method: 'sms' });
      expect([response.status, response.body.errorCode]).toEqual([429, 'RATE_LIMITED']);
      expect(delivered(phone)).toEqual([]);
      expect(await challengesOf(phone)).toEqual([]);
    });
  });
});
