import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../../api/auth/secrets.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { useTestApp } from '../../support/harness.js';

const uniqueEmail = () => `holder-${randomUUID().slice(0, 8)}@example.test`;

/**
 * README: an address another account holds unverified "is taken from it, in the same transaction
 * (its unused links for that address expire ...)". The holder opening its verification link at that
 * moment gets an answer about its link, and the sign-in its 200: neither a 500. Both lock the
 * account's row before its links' (a deadlock PostgreSQL would end with 40P01 otherwise).
 */
describe('an identity-provider sign-in taking an address while its holder opens its verification link', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    IDP_RATE_LIMIT_PER_IP: 100_000,
    IDP_RATE_LIMIT_PER_SUBJECT: 1000,
  });
  const app = useTestApp(config);

  it("answers the sign-in 200 and the link 400 EMAIL_TOKEN_INVALID (the address is no longer the account's), never a 500", async () => {
    const email = uniqueEmail();
    // A phone sign-up that named the address: it holds it unverified, its link pending.
    const [holder] = await app.db.query<{ id: string }>(
      `insert into users (phone, name, email) values ($1, 'Holder', $2) returning id`,
      [`+9639007${String(Date.now()).slice(-5)}`, email],
    );
    const secret = randomUUID();
    await app.db.query(
      `insert into email_tokens (user_id, purpose, email, token_hash, expires_at)
       values ($1, 'VERIFY_EMAIL', $2, $3, now() + interval '1 day')`,
      [holder!.id, email, hashSecret(secret)],
    );

    // Something else (any write on the holder's row) holds it for a moment, so both requests
    // queue on it in a known order; the race is the same without it, only narrower.
    const holding = await holdLock(app.db, `select 1 from users where id = '${holder!.id}' for update`);

    const signIn = app.request('/api/auth/customer/idp/mobile', {
      method: 'POST',
      json: {
        idToken: await idp.mint({ audience: idp.mobileClientId, claims: { sub: randomUUID(), email } }),
      },
    });
    await waitersOf(app.db, holding.pid, 1);
    const verify = app.request('/api/auth/customer/verify-email', {
      method: 'POST',
      json: { token: secret },
    });
    await waitersOf(app.db, holding.pid, 2);
    await holding.release();

    const [signedIn, verified] = await Promise.all([signIn, verify]);
    expect(
      { signIn: signedIn.status, verify: verified.status, verifyCode: verified.body?.errorCode },
      `${signedIn.text}\n${verified.text}`,
    ).toEqual({ signIn: 200, verify: 400, verifyCode: 'EMAIL_TOKEN_INVALID' });
  });
});
