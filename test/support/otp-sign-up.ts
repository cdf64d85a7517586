import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import type { Config } from '../../config/index.js';
import type { TestApp, TestResponse } from './harness.js';

/** A number in the reserved demo range (+963900...), which pre-launch mode signs in; no account has it yet. */
export const reservedPhone = () => `+963900${String(randomInt(100_000, 1_000_000))}`;

/** No OTP limit: test files share one client IP and would share its counters. */
export const NO_OTP_LIMITS = {
  OTP_SEND_PER_IP_PER_HOUR: 0,
  OTP_SEND_PER_PHONE_PER_HOUR: 0,
  OTP_VERIFY_PER_IP_PER_HOUR: 0,
} satisfies Partial<Config>;

/** Pre-launch codes, shown in development: no SMS provider is contacted. */
export const PRELAUNCH_CODES = {
  NODE_ENV: 'development',
  OTP_PRELAUNCH: true,
  ...NO_OTP_LIMITS,
} satisfies Partial<Config>;

/**
 * A new traveller signs up with a pre-launch code and gives an e-mail and a name in verify-otp, as
 * the app's sign-up form does: the account is made with the e-mail pending (asserted).
 */
export async function signUpWithEmail(app: TestApp, phone: string, email: string): Promise<TestResponse> {
  const sent = await app.request('/api/auth/customer/send-otp', {
    method: 'POST',
    json: { phone, method: 'sms' },
  });
  expect(sent.status, sent.text).toBe(200);
  const verified = await app.request('/api/auth/customer/verify-otp', {
    method: 'POST',
    json: { phone, code: sent.body.otpCode, method: 'sms', email, name: 'Lina' },
  });
  expect(verified.status, verified.text).toBe(200);
  expect(verified.body.data).toMatchObject({ isNewUser: true, emailVerificationPending: true });
  return verified;
}
