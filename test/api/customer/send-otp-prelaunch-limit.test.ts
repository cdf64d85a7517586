import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../config/index.js';
import { startSmsVerifyFake } from '../../support/fakes/sms-verify.js';
import { useTestApp, type TestApp } from '../../support/harness.js';

/**
 * README (Travellers, OTP): five codes a phone an hour count the codes that may have gone out. A real
 * number refused in pre-launch mode (503 PRELAUNCH_PHONE_NOT_ALLOWED) was sent nothing, so the
 * refusal does not count against the phone: at launch the number gets its codes.
 */
const sms = await startSmsVerifyFake();
afterAll(() => sms.close());

const limits = {
  OTP_SEND_PER_IP_PER_HOUR: 0,
  OTP_SEND_PER_PHONE_PER_HOUR: 2,
  OTP_VERIFY_PER_IP_PER_HOUR: 0,
} satisfies Partial<Config>;

/** Both apps share the test database, so they count the same phone's sends. */
const launched = {
  ...limits,
  OTP_PRELAUNCH: false,
  SITE_MODE: 'live',
  SMS_VERIFY_URL: sms.url,
  SMS_VERIFY_API_KEY: sms.apiKey,
} satisfies Partial<Config>;
const prelaunch = { ...launched, OTP_PRELAUNCH: true, SITE_MODE: 'coming_soon' } satisfies Partial<Config>;

const realPhone = () => `+96394${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;

const send = (app: TestApp, phone: string) =>
  app.request('/api/auth/customer/send-otp', { method: 'POST', json: { phone, method: 'sms' } });
const outcome = async (app: TestApp, phone: string) => {
  const response = await send(app, phone);
  return [response.status, response.body.errorCode];
};

describe('send-otp: a real number refused in pre-launch mode is not counted against the phone', () => {
  const beforeLaunch = useTestApp(prelaunch);
  const afterLaunch = useTestApp(launched);

  it('refuses every send with 503 PRELAUNCH_PHONE_NOT_ALLOWED, never 429, and the number gets its codes at launch', async () => {
    const phone = realPhone();
    const refusals = [];
    for (let attempt = 0; attempt < 3; attempt++) refusals.push(await outcome(beforeLaunch, phone));
    expect(refusals).toEqual(Array(3).fill([503, 'PRELAUNCH_PHONE_NOT_ALLOWED']));

    expect(await outcome(afterLaunch, phone)).toEqual([200, undefined]);
    expect(await outcome(afterLaunch, phone)).toEqual([200, undefined]);
    expect(await outcome(afterLaunch, phone)).toEqual([429, 'RATE_LIMITED']);
    expect(sms.messages.filter((message) => message.to === phone)).toHaveLength(2);
  });
});
