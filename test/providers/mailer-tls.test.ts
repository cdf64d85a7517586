import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../config/logger.js';
import { createMailer, MailDeliveryError } from '../../providers/mailer.js';
import { networkAddress, useRecordingSmtp, type RecordingSmtp } from '../support/fakes/smtp-wire.js';
import { useTestApp, type TestApp } from '../support/harness.js';

/**
 * README (Production): production reaches a mail server on another machine only over TLS. With
 * SMTP_URL=smtp://user:pass@host:587 nodemailer used STARTTLS only when the server offered it, so a
 * relay without TLS, or anyone on the way who strips STARTTLS from its EHLO answer, got the relay's
 * password (AUTH PLAIN) and every message, recovery links included, in clear (review 425).
 */
const PUBLIC_ORIGIN = 'https://bus.example.test';
const CREDENTIALS = 'mailuser:s3cret-relay-password';
const production = { NODE_ENV: 'production', PUBLIC_ORIGIN, PASSWORD_RECOVERY_MAX_PER_IP: 1000 } as const;

/** Every spelling of the relay's password a client could put on the wire (AUTH PLAIN, AUTH LOGIN). */
const PASSWORD_ON_THE_WIRE = [
  's3cret-relay-password',
  Buffer.from('\0mailuser\0s3cret-relay-password').toString('base64'),
  Buffer.from('s3cret-relay-password').toString('base64'),
];

/** The commands that carry a credential or a message; none may follow a refused STARTTLS. */
const afterTls = (smtp: RecordingSmtp, from: number) =>
  smtp.sessions
    .slice(from)
    .flatMap((session) => session.commands)
    .filter((command) => /^(AUTH|MAIL|RCPT|DATA)\b/i.test(command));

async function travellerWithEmail(app: TestApp, verified: boolean) {
  const email = `tls-${randomUUID()}@example.test`;
  const traveller = await app.signIn();
  await app.db.query(
    `update users set email = $2, email_verified_at = case when $3 then now() end where id = $1`,
    [traveller.userId, email, verified],
  );
  return { ...traveller, email };
}

const linkCount = async (app: TestApp, userId: string) =>
  (
    await app.db.query<{ n: number }>('select count(*)::int as n from email_tokens where user_id = $1', [
      userId,
    ])
  )[0]!.n;

describe('production mail to a relay on another machine that offers no STARTTLS', () => {
  const { smtp, config } = useRecordingSmtp(
    { advertise: ['AUTH PLAIN LOGIN', '8BITMIME'], credentials: CREDENTIALS, reachedAt: 'network' },
    production,
  );
  const app = useTestApp(config);

  it('resend asks for STARTTLS and, refused, sends neither the password nor the message: 503 EMAIL_DELIVERY_FAILED, no link kept', async () => {
    const traveller = await travellerWithEmail(app, false);
    const before = smtp.sessions.length;
    const failed = await app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      headers: traveller.writeHeaders,
    });
    expect([failed.status, failed.body.errorCode], failed.text).toEqual([503, 'EMAIL_DELIVERY_FAILED']);
    expect(failed.headers.get('retry-after')).toBe('5');
    await smtp.waitForClosedSessions(before + 1);
    expect(smtp.sessions[before]!.commands).toContain('STARTTLS');
    expect(afterTls(smtp, before)).toEqual([]);
    const wire = smtp.wireFrom(before);
    for (const secret of PASSWORD_ON_THE_WIRE) expect(wire).not.toContain(secret);
    expect(wire).not.toContain('verify-email');
    expect(await linkCount(app, traveller.userId)).toBe(0);
    const [user] = await app.db.query<{ verified: boolean }>(
      'select email_verified_at is not null as verified from users where id = $1',
      [traveller.userId],
    );
    expect(user!.verified).toBe(false);
  });

  it('password recovery answers its same 200, and the recovery link neither crosses in clear nor stays usable', async () => {
    const traveller = await travellerWithEmail(app, true);
    const before = smtp.sessions.length;
    const asked = await app.request('/api/auth/forgot-password', {
      method: 'POST',
      json: { email: traveller.email },
    });
    expect(asked.status).toBe(200);
    await smtp.waitForClosedSessions(before + 1);
    expect(afterTls(smtp, before)).toEqual([]);
    const wire = smtp.wireFrom(before);
    for (const secret of PASSWORD_ON_THE_WIRE) expect(wire).not.toContain(secret);
    expect(wire).not.toContain('reset-password');
    // The link is written before the send and removed once the send failed.
    await expect.poll(() => linkCount(app, traveller.userId), { timeout: 5000 }).toBe(0);
  });
});

describe('production mail to a relay on this machine (a sidecar)', () => {
  const { smtp, config } = useRecordingSmtp({ advertise: ['8BITMIME'], reachedAt: 'loopback' }, production);
  const app = useTestApp(config);

  it('still goes out without TLS: the loopback connection never leaves the machine', async () => {
    const traveller = await travellerWithEmail(app, false);
    const before = smtp.sessions.length;
    const sent = await app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      headers: traveller.writeHeaders,
    });
    expect(sent.status, sent.text).toBe(200);
    await smtp.waitForClosedSessions(before + 1);
    const session = smtp.sessions[before]!;
    expect(session.commands).not.toContain('STARTTLS');
    expect(session.commands).toContain(`RCPT TO:<${traveller.email}>`);
    expect(session.data).toContain(`${PUBLIC_ORIGIN}/auth/verify-email#token`);
  });
});

describe('which relay is on this machine', () => {
  // One server on every address of this machine, named in each SMTP_URL another way.
  const { smtp } = useRecordingSmtp({
    advertise: ['AUTH PLAIN LOGIN'],
    credentials: CREDENTIALS,
    reachedAt: 'network',
  });
  const logger = createLogger({ LOG_LEVEL: 'silent' }, 'mailer-test');
  const sendVia = (url: string, NODE_ENV: 'production' | 'development' = 'production') =>
    createMailer(
      { SMTP_URL: url, MAIL_FROM: 'no-reply@bus.example', SMTP_TIMEOUT_MS: 2000, NODE_ENV },
      logger,
    ).send({
      to: 'traveller@example.test',
      subject: 'Test',
      text: 'body',
      html: '<p>body</p>',
    });

  it.each(['127.0.0.1', '127.0.0.2', 'localhost', 'LOCALHOST', '[::1]', '[::ffff:127.0.0.1]'])(
    'production sends to %s without STARTTLS (a local relay)',
    async (host) => {
      const before = smtp.sessions.length;
      await sendVia(smtp.urlAt(host));
      expect(smtp.sessions.slice(before).flatMap((session) => session.commands)).not.toContain('STARTTLS');
    },
  );

  it("production refuses this machine's network address without TLS; development sends in clear", async () => {
    const url = smtp.urlAt(networkAddress());
    const before = smtp.sessions.length;
    await expect(sendVia(url)).rejects.toBeInstanceOf(MailDeliveryError);
    await expect(sendVia(`${url}?requireTLS=false`)).rejects.toBeInstanceOf(MailDeliveryError);
    expect(afterTls(smtp, before)).toEqual([]);
    await sendVia(url, 'development');
    expect(afterTls(smtp, before)).toContain('DATA');
  });
});
