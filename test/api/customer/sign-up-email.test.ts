import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useFakeSmtp } from '../../support/fakes/smtp.js';
import { useTestApp } from '../../support/harness.js';

/** A traveller who gives an e-mail when signing up gets the verification link without asking. */
describe('verify-otp with an e-mail for a new account', () => {
  const mail = useFakeSmtp({
    NODE_ENV: 'development',
    OTP_PRELAUNCH: true,
    OTP_SEND_PER_IP_PER_HOUR: 0,
    OTP_SEND_PER_PHONE_PER_HOUR: 0,
    OTP_VERIFY_PER_IP_PER_HOUR: 0,
  });
  const app = useTestApp(mail.config);

  it('creates the account with the e-mail pending and sends the verification link', async () => {
    const phone = `+963900${String(randomInt(100_000, 999_999))}`;
    const email = `new-${phone.slice(-6)}@example.com`;
    const sent = await app.request('/api/auth/customer/send-otp', {
      method: 'POST',
      json: { phone, method: 'sms' },
    });
    expect(sent.status).toBe(200);
    const verified = await app.request('/api/auth/customer/verify-otp', {
      method: 'POST',
      json: { phone, code: sent.body.otpCode, method: 'sms', email, name: 'Lina' },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ isNewUser: true, emailVerificationPending: true });
    const message = await mail.smtp.waitForMessage(email);
    expect(message.text).toContain('/auth/verify-email#token=');
  });
});
