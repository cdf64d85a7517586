import { afterAll, describe, expect, it } from 'vitest';
import { HttpSmsVerification, retryAfterOf, SmsVerifyUnavailable } from '../../providers/sms-verify.js';
import { startRedirectTarget } from '../support/fakes/redirect-target.js';
import { startSmsVerifyFake } from '../support/fakes/sms-verify.js';

/** The SMS provider's Retry-After: delay-seconds or one of the HTTP-date forms, else unreadable. */
describe("reading the SMS provider's Retry-After", () => {
  const now = Date.parse('2030-03-04T10:00:00Z');

  it.each([
    ['120', 120],
    ['0', 0],
    [' 45 ', 45],
    ['Mon, 04 Mar 2030 10:10:00 GMT', 600],
    ['Monday, 04-Mar-30 10:10:00 GMT', 600],
    ['Mon Mar  4 10:10:00 2030', 600],
    ['Mon, 04 Mar 2030 09:00:00 GMT', 0],
  ])('reads %j as %d s', (header, seconds) => {
    expect(retryAfterOf(header, now)).toBe(seconds);
  });

  it.each([null, '', 'soon', '1.5', '-5', '1e3', '30s', '2030-03-04T10:10:00Z', 'Mar 4 2030'])(
    'reads %j as unreadable (the caller then waits its own default)',
    (header) => {
      expect(retryAfterOf(header, now)).toBeUndefined();
    },
  );
});

/**
 * README (Travellers, OTP): the provider's redirects are not followed. A 307/308 would have fetch
 * repeat the POST, the number and on a check the traveller's code, at whatever its Location names.
 */
const sms = await startSmsVerifyFake();
const elsewhere = await startRedirectTarget();
afterAll(async () => {
  await sms.close();
  await elsewhere.close();
});

describe('the SMS provider answering with a redirect', () => {
  const client = new HttpSmsVerification({ baseUrl: sms.url, apiKey: sms.apiKey, timeoutMs: 2000 });
  const phone = '+963944123456';

  it.each([307, 308] as const)(
    'is not followed on sending (%d): the provider is unavailable and the other server hears nothing',
    async (status) => {
      elsewhere.requests.length = 0;
      sms.redirectNext(`${elsewhere.url}/v1/verifications`, status);
      const sent = sms.messages.length;
      const failure = await client.start(phone).catch((error: unknown) => error);
      expect(elsewhere.requests).toEqual([]);
      expect(failure).toBeInstanceOf(SmsVerifyUnavailable);
      expect((failure as SmsVerifyUnavailable).retryAfterSeconds).toBeUndefined();
      expect((failure as SmsVerifyUnavailable).detail).not.toContain(elsewhere.url);
      expect(sms.messages.length).toBe(sent);
    },
  );

  it.each([307, 308] as const)(
    "is not followed on checking (%d): the traveller's code goes nowhere else and stays open",
    async (status) => {
      await client.start(phone);
      const code = sms.lastCode(phone)!;
      elsewhere.requests.length = 0;
      sms.redirectNext(`${elsewhere.url}/v1/verifications/check`, status);
      const failure = await client.check(phone, code).catch((error: unknown) => error);
      expect(elsewhere.requests).toEqual([]);
      expect(failure).toBeInstanceOf(SmsVerifyUnavailable);
      expect(await client.check(phone, code)).toBe('approved');
    },
  );
});
