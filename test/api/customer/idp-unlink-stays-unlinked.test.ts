import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { idpLink, idpMobileSignIn, type IdpAccount } from '../../support/idp-flows.js';
import { useTestApp, type SignedInTraveller, type TestResponse } from '../../support/harness.js';

const uniqueEmail = (label = 'traveller') => `${label}-${randomUUID().slice(0, 8)}@example.test`;

/**
 * Unlinking the identity-provider account takes that way in away (SPEC "Identity-provider sign-in":
 * unlinking is allowed only while another valid sign-in method remains). The account keeps the
 * address the link verified, so the same subject signing in must not be linked back by that address;
 * the traveller, signed in, may link it again.
 */
describe('an unlinked identity-provider account stays unlinked', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    IDP_RATE_LIMIT_PER_IP: 100_000,
    IDP_RATE_LIMIT_PER_SUBJECT: 1000,
  });
  const app = useTestApp(config);

  const mobile = (account: IdpAccount) => idpMobileSignIn(app, idp, account);

  /** Links the subject to the signed-in web traveller through a linking flow. */
  const link = (traveller: SignedInTraveller, account: IdpAccount) => idpLink(app, idp, traveller, account);
  const unlink = (traveller: SignedInTraveller) =>
    app.request('/api/profile/security/identities/idp', {
      method: 'DELETE',
      headers: traveller.writeHeaders,
    });

  /** A phone traveller who linked, then unlinked, the provider account (sub, email). */
  const linkedThenUnlinked = async () => {
    const traveller = await app.signIn();
    const claims = { sub: randomUUID(), email: uniqueEmail() };
    const linked = await link(traveller, claims);
    expect(linked.status, linked.text).toBe(200);
    const unlinked = await unlink(traveller);
    expect(unlinked.status, unlinked.text).toBe(200);
    return { traveller, ...claims };
  };

  /** What a sign-in could write: the account, its links, its sessions, accounts with the address. */
  const accountState = async (userId: string, email: string) => ({
    user: await app.db.query('select * from users where id = $1', [userId]),
    links: await app.db.query('select user_id, subject from user_identities where user_id = $1', [userId]),
    sessions: await app.db.query('select id from traveller_sessions where user_id = $1 order by id', [
      userId,
    ]),
    holders: await app.db.query('select id from users where lower(email) = lower($1)', [email]),
  });

  const expectConflict = (response: TestResponse) => {
    expect({ status: response.status, errorCode: response.body?.errorCode }, response.text).toEqual({
      status: 409,
      errorCode: 'IDP_ACCOUNT_CONFLICT',
    });
    expect(response.body.data).toBeUndefined();
  };

  it('refuses the unlinked subject a sign-in by its address, writing nothing', async () => {
    const { traveller, sub, email } = await linkedThenUnlinked();
    const before = await accountState(traveller.userId, email);
    expect(before.user[0]).toMatchObject({ email, email_verified_at: expect.anything() });

    expectConflict(await mobile({ sub, email }));

    expect(await accountState(traveller.userId, email)).toEqual(before);
    expect(await app.db.query('select 1 from user_identities where subject = $1', [sub])).toEqual([]);
  });

  it('lets the signed-in traveller link the subject again, which then signs in to the account', async () => {
    const { traveller, sub, email } = await linkedThenUnlinked();
    expectConflict(await mobile({ sub, email }));

    const relinked = await link(traveller, { sub, email });
    expect(relinked.status, relinked.text).toBe(200);
    expect(relinked.body.data.identity).toMatchObject({ provider: 'idp', email, alreadyLinked: false });

    const signIn = await mobile({ sub, email });
    expect(signIn.status, signIn.text).toBe(200);
    expect(signIn.body.data).toMatchObject({ isNewUser: false, user: { id: traveller.userId, email } });

    // Unlinked once more, the subject is refused again.
    expect((await unlink(traveller)).status).toBe(200);
    expectConflict(await mobile({ sub, email }));
  });

  it('still adds a different subject with the same verified address to the account', async () => {
    const { traveller, email } = await linkedThenUnlinked();
    const other = randomUUID();

    const signIn = await mobile({ sub: other, email });

    expect(signIn.status, signIn.text).toBe(200);
    expect(signIn.body.data).toMatchObject({ isNewUser: false, user: { id: traveller.userId, email } });
    expect(await app.db.query('select user_id from user_identities where subject = $1', [other])).toEqual([
      { user_id: traveller.userId },
    ]);
  });
});
