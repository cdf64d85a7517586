import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useFakeSmtp, type CapturedMail } from '../../support/fakes/smtp.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { PRELAUNCH_CODES, reservedPhone, signUpWithEmail } from '../../support/otp-sign-up.js';

/**
 * Every e-mail as the receiving mailbox sees it: marked as sent automatically (RFC 3834), so
 * out-of-office replies do not answer it, and a verification mail that says which account asked,
 * so the owner of an address a stranger typed can tell it is not their account.
 */

const PUBLIC_ORIGIN = 'https://bus.example.test';
const SITE = 'bus.example.test';

const newAddress = () => `mailbox-${randomUUID()}@example.test`;

/** The value of one header of the message as the mail server received it ('' when absent). */
function headerOf(mail: CapturedMail, name: string): string {
  const head = mail.raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((entry) => entry.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : '';
}

function expectAutomatic(mail: CapturedMail): void {
  expect(headerOf(mail, 'Auto-Submitted')).toBe('auto-generated');
  expect(headerOf(mail, 'X-Auto-Response-Suppress')).toBe('OOF, AutoReply');
}

/** Both bodies carry each sentence, in Arabic and in English. */
function expectSentences(mail: CapturedMail, sentences: string[]): void {
  for (const sentence of sentences) {
    expect(mail.text).toContain(sentence);
    expect(mail.html).toContain(sentence);
  }
}

const IGNORE = [
  'إذا لم تطلب ذلك فتجاهل هذه الرسالة، ولن يُضاف هذا البريد إلى ذلك الحساب.',
  'If you did not ask for this, ignore this message; the address will not be added to that account.',
];

const askedByPhone = (ending: string) => [
  `طلب الحساب المسجَّل برقم الهاتف المنتهي بـ ${ending} على ${SITE} إضافة هذا البريد الإلكتروني إليه.`,
  `The account with the phone number ending in ${ending} on ${SITE} asked to add this e-mail address to it.`,
];

async function travellerWithEmail(app: TestApp, options: { verified: boolean; phone?: string | null }) {
  const email = newAddress();
  const traveller = await app.signIn(undefined, {
    phone: options.phone === undefined ? reservedPhone() : options.phone,
  });
  await app.db.query(
    `update users set email = $2, email_verified_at = case when $3 then now() end where id = $1`,
    [traveller.userId, email, options.verified],
  );
  return { ...traveller, email };
}

describe('e-mails as the mailbox receives them', () => {
  const mail = useFakeSmtp({
    PUBLIC_ORIGIN,
    ...PRELAUNCH_CODES,
    PASSWORD_RECOVERY_MAX_PER_IP: 1000,
  });
  const app = useTestApp(mail.config);

  it('the verification mail of a sign-up is marked automatic and names the asking account by its phone’s last 3 digits and the site', async () => {
    const phone = reservedPhone();
    const email = newAddress();
    await signUpWithEmail(app, phone, email);

    const message = await mail.smtp.waitForMessage(email);
    expectAutomatic(message);
    expectSentences(message, [...askedByPhone(phone.slice(-3)), ...IGNORE]);
    // No more of the number than its last 3 digits.
    expect(message.text + message.html).not.toContain(phone.slice(-7));
  });

  it('a resent verification mail names the account the same way; an account without a phone by the site alone', async () => {
    const withPhone = await travellerWithEmail(app, { verified: false });
    const [{ phone } = { phone: '' }] = await app.db.query<{ phone: string }>(
      'select phone from users where id = $1',
      [withPhone.userId],
    );
    const resent = await app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      headers: withPhone.writeHeaders,
    });
    expect(resent.status).toBe(200);
    const message = await mail.smtp.waitForMessage(withPhone.email);
    expectAutomatic(message);
    expectSentences(message, [...askedByPhone(phone.slice(-3)), ...IGNORE]);
    expect(message.text + message.html).not.toContain(phone.slice(-7));

    const noPhone = await travellerWithEmail(app, { verified: false, phone: null });
    const resentNoPhone = await app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      headers: noPhone.writeHeaders,
    });
    expect(resentNoPhone.status).toBe(200);
    const anonymous = await mail.smtp.waitForMessage(noPhone.email);
    expectAutomatic(anonymous);
    expectSentences(anonymous, [
      `طلب حساب على ${SITE} إضافة هذا البريد الإلكتروني إليه.`,
      `An account on ${SITE} asked to add this e-mail address to it.`,
      ...IGNORE,
    ]);
  });

  it('the password recovery mail is marked automatic', async () => {
    const traveller = await travellerWithEmail(app, { verified: true });
    const asked = await app.request('/api/auth/forgot-password', {
      method: 'POST',
      json: { email: traveller.email },
    });
    expect(asked.status).toBe(200);
    const message = await mail.smtp.waitForMessage(traveller.email);
    expect(message.subject).toContain('Reset your password');
    expectAutomatic(message);
  });
});
