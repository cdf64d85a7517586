import { randomUUID } from 'node:crypto';
import { verify } from 'argon2';
import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../../api/auth/secrets.js';
import { issueTravellerSession } from '../../../api/auth/traveller-session.js';
import { createTravellerTokens } from '../../../api/auth/traveller-token.js';
import { failOnce } from '../../support/fail-once.js';
import { useFakeSmtp, useTarpitSmtp, type CapturedMail } from '../../support/fakes/smtp.js';
import { useTestApp, type TestApp } from '../../support/harness.js';

const PUBLIC_ORIGIN = 'https://bus.example.test';

const newAddress = () => `traveller-${randomUUID()}@example.test`;

/** A signed-in web traveller whose account has this e-mail address. */
async function travellerWithEmail(app: TestApp, options: { verified: boolean; email?: string }) {
  const email = options.email ?? newAddress();
  const traveller = await app.signIn();
  await app.db.query(
    `update users set email = $2, email_verified_at = case when $3 then now() end where id = $1`,
    [traveller.userId, email, options.verified],
  );
  return { ...traveller, email };
}

function linkIn(
  mail: CapturedMail,
  page: 'verify-email' | 'reset-password',
): { link: string; token: string } {
  const match = new RegExp(`${PUBLIC_ORIGIN}/auth/${page}#(?:type=recovery&)?token=([A-Za-z0-9_-]+)`).exec(
    mail.text,
  );
  if (!match) throw new Error(`no ${page} link in: ${mail.text}`);
  expect(mail.html).toContain(match[0].replace('&', '&#38;'));
  return { link: match[0], token: match[1]! };
}

async function userRow(app: TestApp, userId: string) {
  const [row] = await app.db.query<{ email_verified: boolean; password_hash: string | null }>(
    'select email_verified_at is not null as email_verified, password_hash from users where id = $1',
    [userId],
  );
  return row!;
}

function cookiesOf(response: { headers: Headers }): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
  }
  return cookies;
}

describe('e-mail verification', () => {
  const mail = useFakeSmtp({ PUBLIC_ORIGIN, PASSWORD_RECOVERY_MAX_PER_IP: 1000 });
  const app = useTestApp(mail.config);

  const resend = (traveller: { writeHeaders: Record<string, string> }) =>
    app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      headers: traveller.writeHeaders,
    });

  it('sends a link by SMTP that verifies the address exactly once; only its hash is stored', async () => {
    const traveller = await travellerWithEmail(app, { verified: false });
    const sent = await resend(traveller);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ success: true, data: { email: traveller.email, expiresInSeconds: 86_400 } });

    const message = await mail.smtp.waitForMessage(traveller.email);
    expect(message.subject).toContain('Confirm your e-mail address');
    expect(message.text).toContain('24 hours');
    const { token } = linkIn(message, 'verify-email');
    const stored = await app.db.query<{ token_hash: string }>(
      `select token_hash from email_tokens where user_id = $1 and purpose = 'VERIFY_EMAIL'`,
      [traveller.userId],
    );
    expect(stored).toEqual([{ token_hash: hashSecret(token) }]);

    const check = await app.request(`/api/auth?token=${token}&type=email_verification`);
    expect(check.status).toBe(200);
    expect(check.body.data).toMatchObject({
      valid: true,
      type: 'email_verification',
      email: `t***@example.test`,
    });
    expect((await userRow(app, traveller.userId)).email_verified).toBe(false);

    const verified = await app.request('/api/auth/customer/verify-email', {
      method: 'POST',
      json: { token },
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ success: true, data: { email: traveller.email, emailVerified: true } });
    expect((await userRow(app, traveller.userId)).email_verified).toBe(true);

    const again = await app.request('/api/auth/customer/verify-email', { method: 'POST', json: { token } });
    expect(again.status).toBe(410);
    expect(again.body.errorCode).toBe('EMAIL_TOKEN_USED');
  });

  it('a new link replaces the older ones', async () => {
    const traveller = await travellerWithEmail(app, { verified: false });
    await resend(traveller);
    await resend(traveller);
    const first = linkIn(await mail.smtp.waitForMessage(traveller.email, { count: 1 }), 'verify-email');
    const second = linkIn(await mail.smtp.waitForMessage(traveller.email, { count: 2 }), 'verify-email');
    expect(first.token).not.toBe(second.token);

    const old = await app.request('/api/auth/customer/verify-email', {
      method: 'POST',
      json: { token: first.token },
    });
    expect(old.status).toBe(410);
    expect(old.body.errorCode).toBe('EMAIL_TOKEN_EXPIRED');
    expect((await userRow(app, traveller.userId)).email_verified).toBe(false);

    const latest = await app.request('/api/auth/customer/verify-email', {
      method: 'POST',
      json: { token: second.token },
    });
    expect(latest.status).toBe(200);
  });

  it('refuses an unknown link, a recovery link, and a link to an address the account no longer has', async () => {
    const unknown = await app.request('/api/auth/customer/verify-email', {
      method: 'POST',
      json: { token: 'no-such-link' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errorCode).toBe('EMAIL_TOKEN_INVALID');

    const traveller = await travellerWithEmail(app, { verified: false });
    await resend(traveller);
    const { token } = linkIn(await mail.smtp.waitForMessage(traveller.email), 'verify-email');
    const asRecovery = await app.request('/api/auth', {
      method: 'POST',
      json: { token, password: 'a long enough password' },
    });
    expect(asRecovery.status).toBe(400);
    expect(asRecovery.body.errorCode).toBe('EMAIL_TOKEN_INVALID');
    expect((await userRow(app, traveller.userId)).password_hash).toBeNull();

    await app.db.query('update users set email = $2 where id = $1', [traveller.userId, newAddress()]);
    const moved = await app.request('/api/auth/customer/verify-email', { method: 'POST', json: { token } });
    expect(moved.status).toBe(400);
    expect(moved.body.errorCode).toBe('EMAIL_TOKEN_INVALID');
    expect((await userRow(app, traveller.userId)).email_verified).toBe(false);
  });

  it('resend needs a traveller session and, on the web, the CSRF header', async () => {
    const traveller = await travellerWithEmail(app, { verified: false });
    const anonymous = await app.request('/api/auth/customer/resend-verification', { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errorCode).toBe('AUTH_REQUIRED');
    const noCsrf = await app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      headers: { Cookie: traveller.cookie },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    const bearer = await app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      token: traveller.token,
    });
    expect(bearer.status).toBe(200);
    await mail.smtp.waitForMessage(traveller.email);
    expect(mail.smtp.messagesTo(traveller.email)).toHaveLength(1);
  });

  it('answers 409 when there is no address or it is already verified, and sends nothing', async () => {
    const withoutEmail = await app.signIn();
    const none = await resend(withoutEmail);
    expect(none.status).toBe(409);
    expect(none.body.errorCode).toBe('EMAIL_NOT_SET');

    const verified = await travellerWithEmail(app, { verified: true });
    const done = await resend(verified);
    expect(done.status).toBe(409);
    expect(done.body.errorCode).toBe('EMAIL_ALREADY_VERIFIED');
    expect(mail.smtp.messagesTo(verified.email)).toEqual([]);
  });

  it('limits resends to 5 per traveller per hour', async () => {
    const traveller = await travellerWithEmail(app, { verified: false });
    for (let attempt = 0; attempt < 5; attempt++) expect((await resend(traveller)).status).toBe(200);
    const limited = await resend(traveller);
    expect(limited.status).toBe(429);
    expect(limited.body.errorCode).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(mail.smtp.messagesTo(traveller.email)).toHaveLength(5);
  });

  it('answers 503 EMAIL_DELIVERY_FAILED when the mail server refuses, and the earlier link keeps working', async () => {
    const traveller = await travellerWithEmail(app, { verified: false });
    await resend(traveller);
    const { token } = linkIn(await mail.smtp.waitForMessage(traveller.email), 'verify-email');
    mail.smtp.refuseMail = true;
    try {
      const failed = await resend(traveller);
      expect(failed.status).toBe(503);
      expect(failed.body.errorCode).toBe('EMAIL_DELIVERY_FAILED');
      // A 503 tells the client when to try again, in the header and in the body.
      expect({ retryAfter: failed.headers.get('retry-after'), details: failed.body.details }).toEqual({
        retryAfter: '5',
        details: { retryAfterSeconds: 5 },
      });
      // The random request id may hold "550" by chance; the rest of the answer may not.
      expect(failed.text.replace(failed.body.requestId, '')).not.toMatch(/550|mailbox/);
      expect(failed.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      mail.smtp.refuseMail = false;
    }
    const [links] = await app.db.query<{ n: number }>(
      'select count(*)::int as n from email_tokens where user_id = $1',
      [traveller.userId],
    );
    expect(links!.n).toBe(1);
    const verified = await app.request('/api/auth/customer/verify-email', {
      method: 'POST',
      json: { token },
    });
    expect(verified.status).toBe(200);
  });
});

describe('e-mail verification with the mail server not answering', () => {
  // A local port with nothing listening on it: the connection is refused at once.
  const closed = { SMTP_URL: 'smtp://127.0.0.1:1', SMTP_TIMEOUT_MS: 1000 };
  const app = useTestApp(closed);

  it('resend answers 503 EMAIL_DELIVERY_FAILED with Retry-After and leaves no link behind', async () => {
    const traveller = await travellerWithEmail(app, { verified: false });
    const failed = await app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      headers: traveller.writeHeaders,
    });
    expect([failed.status, failed.body.errorCode], failed.text).toEqual([503, 'EMAIL_DELIVERY_FAILED']);
    expect({ retryAfter: failed.headers.get('retry-after'), details: failed.body.details }).toEqual({
      retryAfter: '5',
      details: { retryAfterSeconds: 5 },
    });
    const [links] = await app.db.query<{ n: number }>(
      'select count(*)::int as n from email_tokens where user_id = $1',
      [traveller.userId],
    );
    expect(links!.n).toBe(0);
    expect((await userRow(app, traveller.userId)).email_verified).toBe(false);
  });
});

describe('e-mail with a mail server that answers a line at a time and never finishes', () => {
  // Every wait is shorter than SMTP_TIMEOUT_MS; only the deadline on the whole send (3 × 1 s) ends it.
  const mail = useTarpitSmtp({ PUBLIC_ORIGIN, SMTP_TIMEOUT_MS: 1000, PASSWORD_RECOVERY_MAX_PER_IP: 1000 });
  const app = useTestApp(mail.config);

  const linkCount = async (userId: string) =>
    (
      await app.db.query<{ n: number }>('select count(*)::int as n from email_tokens where user_id = $1', [
        userId,
      ])
    )[0]!.n;

  it('resend answers 503 EMAIL_DELIVERY_FAILED with Retry-After after 3 × SMTP_TIMEOUT_MS, closes the connection and leaves no link behind', async () => {
    const traveller = await travellerWithEmail(app, { verified: false });
    const started = Date.now();
    const outcome = await app
      .request('/api/auth/customer/resend-verification', {
        method: 'POST',
        headers: traveller.writeHeaders,
        signal: AbortSignal.timeout(15_000),
      })
      .then(
        (failed) => ({
          status: failed.status,
          errorCode: failed.body?.errorCode,
          retryAfter: failed.headers.get('retry-after'),
        }),
        (error: Error) => ({ status: `no answer after ${Date.now() - started} ms (${error.name})` }),
      );
    const elapsed = Date.now() - started;
    expect(outcome).toEqual({ status: 503, errorCode: 'EMAIL_DELIVERY_FAILED', retryAfter: '5' });
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(5_000);
    expect(mail.tarpit.accepted).toBeGreaterThan(0);
    await mail.tarpit.waitUntilAllClosed(1000);
    expect(await linkCount(traveller.userId)).toBe(0);
    expect((await userRow(app, traveller.userId)).email_verified).toBe(false);
  }, 30_000);

  it('forgot-password answers at once; the send it started ends at the deadline, closing the connection and removing the unsent link', async () => {
    const traveller = await travellerWithEmail(app, { verified: true });
    const account = await userRow(app, traveller.userId);
    const before = mail.tarpit.accepted;
    const started = Date.now();
    const answer = await app.request('/api/auth/forgot-password', {
      method: 'POST',
      json: { email: traveller.email },
    });
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mail.tarpit.accepted).toBe(before + 1);
    await mail.tarpit.waitUntilAllClosed(5000);
    const deadline = Date.now() + 2000;
    while ((await linkCount(traveller.userId)) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await linkCount(traveller.userId)).toBe(0);
    expect(await userRow(app, traveller.userId)).toEqual(account);
  }, 30_000);
});

describe('password recovery', () => {
  const mail = useFakeSmtp({ PUBLIC_ORIGIN, PASSWORD_RECOVERY_MAX_PER_IP: 1000 });
  const app = useTestApp(mail.config);

  const forgot = (email: string) =>
    app.request('/api/auth/forgot-password', { method: 'POST', json: { email } });
  const withoutRequestId = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });

  it('answers the same for an unknown, an unverified and a known address, and mails only the verified one', async () => {
    const known = await travellerWithEmail(app, { verified: true });
    const unverified = await travellerWithEmail(app, { verified: false });
    const unknownAddress = newAddress();

    const answers = [
      await forgot(unknownAddress),
      await forgot(unverified.email),
      await forgot(known.email.toUpperCase()),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(withoutRequestId(answer.body)).toEqual(withoutRequestId(answers[2]!.body));
      expect(answer.headers.get('cache-control')).toBe('private, no-store');
    }
    // The known address's message arrives; the others get none.
    const message = await mail.smtp.waitForMessage(known.email);
    expect(message.subject).toContain('Reset your password');
    expect(message.text).toContain('30 minutes');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mail.smtp.messagesTo(unknownAddress)).toEqual([]);
    expect(mail.smtp.messagesTo(unverified.email)).toEqual([]);
    const [links] = await app.db.query<{ n: number }>(
      `select count(*)::int as n from email_tokens where user_id = $1`,
      [unverified.userId],
    );
    expect(links!.n).toBe(0);
  });

  it('the link sets a new password once, ends every old session and signs the traveller in', async () => {
    const traveller = await travellerWithEmail(app, { verified: true });
    const otherDevice = await issueTravellerSession(
      { config: app.config, db: app.db, tokens: createTravellerTokens(app.config) },
      traveller.userId,
      'mobile',
    );
    expect((await app.request('/api/favorites', { token: traveller.token })).status).toBe(200);

    await forgot(traveller.email);
    const { token } = linkIn(await mail.smtp.waitForMessage(traveller.email), 'reset-password');

    const check = await app.request(`/api/auth?token=${token}&type=recovery`);
    expect(check.status).toBe(200);
    expect(check.body.data).toMatchObject({ valid: true, type: 'recovery', email: 't***@example.test' });
    const now = Date.now() / 1000;
    expect(check.body.data.expiresAt).toBeGreaterThan(now + 1800 - 60);
    expect(check.body.data.expiresAt).toBeLessThan(now + 1800 + 60);

    const password = 'correct horse battery staple';
    const reset = await app.request('/api/auth', { method: 'POST', json: { token, password } });
    expect(reset.status).toBe(200);
    expect(reset.body.data.user).toMatchObject({ id: traveller.userId, email: traveller.email });
    expect(reset.text).not.toContain('token"');
    const cookies = cookiesOf(reset);
    expect([...cookies.keys()].sort()).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);

    const stored = await userRow(app, traveller.userId);
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
    expect(await verify(stored.password_hash!, password)).toBe(true);

    // Old sessions are over, on every device; the new one works.
    expect((await app.request('/api/favorites', { token: traveller.token })).status).toBe(401);
    expect((await app.request('/api/favorites', { token: otherDevice.token })).status).toBe(401);
    const fresh = await app.request('/api/favorites', {
      headers: { Cookie: `bb_access=${cookies.get('bb_access')}` },
    });
    expect(fresh.status).toBe(200);

    for (const again of [
      await app.request('/api/auth', { method: 'POST', json: { token, password: 'another long password' } }),
      await app.request(`/api/auth?token=${token}&type=recovery`),
    ]) {
      expect(again.status).toBe(410);
      expect(again.body.errorCode).toBe('EMAIL_TOKEN_USED');
    }
    expect(await verify((await userRow(app, traveller.userId)).password_hash!, password)).toBe(true);
  });

  it('a session that cannot be written leaves the link usable, the password and the old sessions as they were; the same link then works', async () => {
    const traveller = await travellerWithEmail(app, { verified: true });
    await forgot(traveller.email);
    const { token } = linkIn(await mail.smtp.waitForMessage(traveller.email), 'reset-password');
    const linkState = () =>
      app.db.query<{ used: boolean; expired: boolean }>(
        `select used_at is not null as used, expires_at <= now() as expired from email_tokens
         where user_id = $1 and purpose = 'RESET_PASSWORD'`,
        [traveller.userId],
      );
    // The next session written for this traveller fails (the server gets an error from PostgreSQL).
    const cleanUp = await failOnce(app.db, {
      table: 'traveller_sessions',
      event: 'insert',
      condition: `new.user_id = '${traveller.userId}'`,
    });
    try {
      const password = 'correct horse battery staple';
      const failed = await app.request('/api/auth', { method: 'POST', json: { token, password } });
      expect(failed.status).toBe(500);
      expect(failed.headers.getSetCookie()).toEqual([]);
      expect(await linkState()).toEqual([{ used: false, expired: false }]);
      expect((await userRow(app, traveller.userId)).password_hash).toBeNull();
      expect((await app.request('/api/favorites', { token: traveller.token })).status).toBe(200);

      const retry = await app.request('/api/auth', { method: 'POST', json: { token, password } });
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.data.user).toMatchObject({ id: traveller.userId, email: traveller.email });
      expect(await verify((await userRow(app, traveller.userId)).password_hash!, password)).toBe(true);
      expect(await linkState()).toEqual([{ used: true, expired: false }]);
      expect((await app.request('/api/favorites', { token: traveller.token })).status).toBe(401);
      const fresh = await app.request('/api/favorites', {
        headers: { Cookie: `bb_access=${cookiesOf(retry).get('bb_access')}` },
      });
      expect(fresh.status).toBe(200);
    } finally {
      await cleanUp();
    }
  });

  it('two concurrent uses of one link: exactly one succeeds', async () => {
    const traveller = await travellerWithEmail(app, { verified: true });
    await forgot(traveller.email);
    const { token } = linkIn(await mail.smtp.waitForMessage(traveller.email), 'reset-password');
    const answers = await Promise.all(
      ['first long password', 'second long password'].map((password) =>
        app.request('/api/auth', { method: 'POST', json: { token, password } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 410]);
  });

  it('a password outside the length rules is refused and the link stays usable', async () => {
    const traveller = await travellerWithEmail(app, { verified: true });
    await forgot(traveller.email);
    const { token } = linkIn(await mail.smtp.waitForMessage(traveller.email), 'reset-password');

    const short = await app.request('/api/auth', { method: 'POST', json: { token, password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.errorCode).toBe('PASSWORD_TOO_SHORT');
    const long = await app.request('/api/auth', {
      method: 'POST',
      json: { token, password: 'x'.repeat(129) },
    });
    expect(long.status).toBe(400);
    expect(long.body.errorCode).toBe('PASSWORD_TOO_LONG');
    expect((await userRow(app, traveller.userId)).password_hash).toBeNull();
    expect((await app.request(`/api/auth?token=${token}&type=recovery`)).status).toBe(200);
    expect((await app.request('/api/favorites', { token: traveller.token })).status).toBe(200);
  });

  it('a newer recovery link replaces the older one', async () => {
    const traveller = await travellerWithEmail(app, { verified: true });
    await forgot(traveller.email);
    await forgot(traveller.email);
    const first = linkIn(await mail.smtp.waitForMessage(traveller.email, { count: 1 }), 'reset-password');
    const second = linkIn(await mail.smtp.waitForMessage(traveller.email, { count: 2 }), 'reset-password');
    const old = await app.request('/api/auth', {
      method: 'POST',
      json: { token: first.token, password: 'a long enough password' },
    });
    expect(old.status).toBe(410);
    expect(old.body.errorCode).toBe('EMAIL_TOKEN_EXPIRED');
    expect((await app.request(`/api/auth?token=${second.token}&type=recovery`)).status).toBe(200);
  });

  it('refuses an unknown link and a malformed address', async () => {
    const unknown = await app.request('/api/auth?token=not-a-real-link&type=recovery');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errorCode).toBe('EMAIL_TOKEN_INVALID');
    const malformed = await forgot('not an address');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errorCode).toBe('INVALID_EMAIL');
  });

  it('recovers an account under an internationalised domain, the address sent as xn-- or in Arabic letters', async () => {
    // xn--ogbpf8fl is Syria's top-level domain سورية as DNS writes it; the account holds that ASCII form.
    const local = `layla-${randomUUID().slice(0, 8)}`;
    const traveller = await travellerWithEmail(app, {
      verified: true,
      email: `${local}@example.xn--ogbpf8fl`,
    });

    const asStored = await forgot(traveller.email);
    expect([asStored.status, asStored.body.errorCode], asStored.text).toEqual([200, undefined]);
    // The test's SMTP server (smtp-server) reports the envelope's domain in Unicode; the message names the ASCII form.
    const delivered = `${local}@example.سورية`;
    const first = await mail.smtp.waitForMessage(delivered);
    expect(first.subject).toContain('Reset your password');
    expect(first.raw).toContain(traveller.email);

    const inArabic = await forgot(`${local}@Example.سورية`);
    expect([inArabic.status, inArabic.body.errorCode], inArabic.text).toEqual([200, undefined]);
    await mail.smtp.waitForMessage(delivered, { count: 2 });
    const [links] = await app.db.query<{ n: number }>(
      `select count(*)::int as n from email_tokens where user_id = $1 and email = $2`,
      [traveller.userId, traveller.email],
    );
    expect(links!.n).toBe(2);
  });

  it('refuses an address outside the e-mail rule and sends nothing', async () => {
    const before = mail.smtp.messages.length;
    for (const email of ['layla@example.c0m', 'layla@bücher.example', 'layla@مثال-.سورية']) {
      const refused = await forgot(email);
      expect([refused.status, refused.body.errorCode], email).toEqual([400, 'INVALID_EMAIL']);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mail.smtp.messages.length).toBe(before);
  });

  it('limits requests per e-mail address (3 per hour), known or not', async () => {
    for (const address of [newAddress(), (await travellerWithEmail(app, { verified: true })).email]) {
      for (let attempt = 0; attempt < 3; attempt++) expect((await forgot(address)).status).toBe(200);
      const limited = await forgot(address.toUpperCase());
      expect(limited.status).toBe(429);
      expect(limited.body.errorCode).toBe('RATE_LIMITED');
    }
  });
});

describe('password recovery: per-IP limit', () => {
  const mail = useFakeSmtp({ PUBLIC_ORIGIN, PASSWORD_RECOVERY_MAX_PER_IP: 2 });
  const app = useTestApp(mail.config);

  it('refuses the third request from one client IP within the hour', async () => {
    expect(
      (await app.request('/api/auth/forgot-password', { method: 'POST', json: { email: newAddress() } }))
        .status,
    ).toBe(200);
    expect(
      (await app.request('/api/auth/forgot-password', { method: 'POST', json: { email: newAddress() } }))
        .status,
    ).toBe(200);
    const limited = await app.request('/api/auth/forgot-password', {
      method: 'POST',
      json: { email: newAddress() },
    });
    expect(limited.status).toBe(429);
    expect(limited.body.errorCode).toBe('RATE_LIMITED');
  });
});

describe('e-mail links expire', () => {
  const mail = useFakeSmtp({
    PUBLIC_ORIGIN,
    PASSWORD_RECOVERY_TTL_SECONDS: 1,
    EMAIL_VERIFICATION_TTL_SECONDS: 1,
  });
  const app = useTestApp(mail.config);
  const pastExpiry = () => new Promise((resolve) => setTimeout(resolve, 1500));

  it('an expired recovery link is refused and changes nothing', async () => {
    const traveller = await travellerWithEmail(app, { verified: true });
    await app.request('/api/auth/forgot-password', { method: 'POST', json: { email: traveller.email } });
    const message = await mail.smtp.waitForMessage(traveller.email);
    expect(message.text).toContain('1 second');
    const { token } = linkIn(message, 'reset-password');
    await pastExpiry();
    for (const answer of [
      await app.request(`/api/auth?token=${token}&type=recovery`),
      await app.request('/api/auth', { method: 'POST', json: { token, password: 'a long enough password' } }),
    ]) {
      expect(answer.status).toBe(410);
      expect(answer.body.errorCode).toBe('EMAIL_TOKEN_EXPIRED');
    }
    expect((await userRow(app, traveller.userId)).password_hash).toBeNull();
    expect((await app.request('/api/favorites', { token: traveller.token })).status).toBe(200);
  });

  it('an expired verification link is refused', async () => {
    const traveller = await travellerWithEmail(app, { verified: false });
    await app.request('/api/auth/customer/resend-verification', {
      method: 'POST',
      headers: traveller.writeHeaders,
    });
    const { token } = linkIn(await mail.smtp.waitForMessage(traveller.email), 'verify-email');
    await pastExpiry();
    const answer = await app.request('/api/auth/customer/verify-email', { method: 'POST', json: { token } });
    expect(answer.status).toBe(410);
    expect(answer.body.errorCode).toBe('EMAIL_TOKEN_EXPIRED');
    expect((await userRow(app, traveller.userId)).email_verified).toBe(false);
  });
});
