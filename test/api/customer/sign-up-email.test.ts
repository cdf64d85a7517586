import { describe, expect, it } from 'vitest';
import { useFakeSmtp, useTarpitSmtp } from '../../support/fakes/smtp.js';
import { useTestApp } from '../../support/harness.js';
import { PRELAUNCH_CODES, reservedPhone, signUpWithEmail } from '../../support/otp-sign-up.js';

/** A traveller who gives an e-mail when signing up gets the verification link without asking. */
describe('verify-otp with an e-mail for a new account', () => {
  const mail = useFakeSmtp({
    ...PRELAUNCH_CODES,
  });
  const app = useTestApp(mail.config);

  it('creates the account with the e-mail pending and sends the verification link', async () => {
    const phone = reservedPhone();
    const email = `new-${phone.slice(-6)}@example.com`;
    await signUpWithEmail(app, phone, email);
    const message = await mail.smtp.waitForMessage(email);
    expect(message.text).toContain('/auth/verify-email#token=');
  });
});

describe('verify-otp with an e-mail while the mail server answers a line at a time and never finishes', () => {
  const mail = useTarpitSmtp({
    ...PRELAUNCH_CODES,
    SMTP_TIMEOUT_MS: 1000,
  });
  const app = useTestApp(mail.config);

  it('signs the new traveller in at once; the link e-mail is given up at its deadline, connection closed and link removed', async () => {
    const phone = reservedPhone();
    const email = `slow-${phone.slice(-6)}@example.com`;
    const sent = await app.request('/api/auth/customer/send-otp', {
      method: 'POST',
      json: { phone, method: 'sms' },
    });
    expect(sent.status).toBe(200);
    const started = Date.now();
    const verified = await app.request('/api/auth/customer/verify-otp', {
      method: 'POST',
      json: { phone, code: sent.body.otpCode, method: 'sms', email, name: 'Lina' },
    });
    expect(verified.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(verified.body.data).toMatchObject({ isNewUser: true, emailVerificationPending: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mail.tarpit.accepted).toBe(1);
    await mail.tarpit.waitUntilAllClosed(5000);
    const links = async () =>
      (
        await app.db.query<{ n: number }>(
          'select count(*)::int as n from email_tokens t join users u on u.id = t.user_id where u.phone = $1',
          [phone],
        )
      )[0]!.n;
    const deadline = Date.now() + 2000;
    while ((await links()) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await links()).toBe(0);
  }, 30_000);
});
