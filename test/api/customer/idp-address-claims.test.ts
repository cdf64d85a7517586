import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../../api/auth/secrets.js';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { idpLink, idpMobileSignIn, type IdpAccount } from '../../support/idp-flows.js';
import { useTestApp, type SignedInTraveller, type TestResponse } from '../../support/harness.js';
import { createCompany } from '../../support/factories.js';
import { createStaffMember, staffLogin } from '../../support/staff.js';

const uniqueEmail = (label = 'traveller') => `${label}-${randomUUID().slice(0, 8)}@example.test`;
let counter = 0;
const uniquePhone = () =>
  `+9639008${String(process.pid % 100).padStart(2, '0')}${String(++counter).padStart(3, '0')}`;

/**
 * Nobody else can lock a traveller out of their own identity-provider account (SPEC "Identity-provider
 * sign-in": the server verifies the verified e-mail; any conflict fails closed). A mailbox the
 * provider proved wins over an address another account only claimed (a phone sign-up may name any
 * free address, and holds it unverified); an address held verified still fails closed. And a subject
 * already linked signs in, whatever staff account somebody made with its address since. The audit row
 * of a released claim carries the request's IP and id, as every row does (README: the audit log
 * shows actor, action, target, time, IP). The app trusts one proxy hop, so each request comes from
 * the address X-Forwarded-For names.
 */
describe('identity-provider sign-in and linking against what others claimed of the address', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    IDP_RATE_LIMIT_PER_IP: 100_000,
    IDP_RATE_LIMIT_PER_SUBJECT: 1000,
    OTP_PRELAUNCH: true,
    SITE_MODE: 'coming_soon',
    OTP_SEND_PER_IP_PER_HOUR: 0,
    OTP_SEND_PER_PHONE_PER_HOUR: 0,
    OTP_VERIFY_PER_IP_PER_HOUR: 0,
    TRUSTED_PROXY_HOPS: 1,
  });
  const app = useTestApp(config);
  const post = (path: string, json: unknown) => app.request(path, { method: 'POST', json });

  /** The client addresses the provider sign-in and the link come from. */
  const SIGN_IN_IP = '203.0.113.41';
  const LINK_IP = '2001:db8::42';

  const mobile = (account: IdpAccount) =>
    idpMobileSignIn(app, idp, account, { 'X-Forwarded-For': SIGN_IN_IP });

  /** Links the provider account (sub, email) to the signed-in web traveller through a linking flow. */
  const link = (traveller: SignedInTraveller, account: IdpAccount) =>
    idpLink(app, idp, traveller, account, { 'X-Forwarded-For': LINK_IP });

  /**
   * Somebody signs up with a phone number they own and names `email` (the public routes only); the
   * account holds it unverified, with its verification link pending.
   */
  async function claimAtSignUp(email: string): Promise<{ userId: string; phone: string; tokenId: string }> {
    const phone = uniquePhone();
    const sent = await post('/api/auth/customer/send-otp', { phone, method: 'sms' });
    expect(sent.status, sent.text).toBe(200);
    const code = '123456';
    const [challenge] = await app.db.query<{ id: string }>(
      'select id from otp_challenges where phone = $1 and consumed_at is null order by created_at desc limit 1',
      [phone],
    );
    await app.db.query('update otp_challenges set code_hash = $2 where id = $1', [
      challenge!.id,
      hashSecret(`${challenge!.id}:${code}`),
    ]);
    const signedUp = await post('/api/auth/customer/verify-otp', { phone, code, method: 'sms', email });
    expect(signedUp.status, signedUp.text).toBe(200);
    expect(signedUp.body.data.emailVerificationPending).toBe(true);
    const userId: string = signedUp.body.data.user.id;
    // Its verification link, as the sign-up mails it (the mail itself is sent in the background).
    const [token] = await app.db.query<{ id: string }>(
      `insert into email_tokens (user_id, purpose, email, token_hash, expires_at)
       values ($1, 'VERIFY_EMAIL', $2, $3, now() + interval '1 day') returning id`,
      [userId, email, hashSecret(randomUUID())],
    );
    return { userId, phone, tokenId: token!.id };
  }

  /** What a refused attempt could have written about the address and the accounts involved. */
  const addressState = async (email: string, userIds: string[], tokenId?: string) => ({
    users: await app.db.query('select * from users where id = any($1) order by id', [userIds]),
    holders: await app.db.query('select id, email_verified_at from users where lower(email) = lower($1)', [
      email,
    ]),
    identities: await app.db.query(
      'select user_id, subject, email from user_identities where lower(email) = lower($1) or user_id = any($2) order by subject',
      [email, userIds],
    ),
    token: tokenId
      ? await app.db.query('select expires_at, used_at from email_tokens where id = $1', [tokenId])
      : [],
    audit: await app.db.query('select id from audit_log where target_id = any($1)', [userIds]),
  });

  /**
   * The claim is gone from the account that made it: no address, its pending links expired, on record
   * with the IP and request id of the request that took it (`by`, from `ip`).
   */
  async function expectClaimReleased(
    holder: { userId: string; phone: string; tokenId: string },
    email: string,
    by: { userId: string; response: TestResponse; ip: string },
  ) {
    expect(
      await app.db.query('select phone, email, status from users where id = $1', [holder.userId]),
    ).toEqual([{ phone: holder.phone, email: null, status: 'ACTIVE' }]);
    expect(
      await app.db.query('select expires_at <= now() as expired from email_tokens where id = $1', [
        holder.tokenId,
      ]),
    ).toEqual([{ expired: true }]);
    expect(
      await app.db.query(
        `select actor_kind, actor_id, target_kind, details, ip, request_id from audit_log
         where action = 'travellers.unverified_email_released' and target_id = $1`,
        [holder.userId],
      ),
    ).toEqual([
      {
        actor_kind: 'TRAVELLER',
        actor_id: by.userId,
        target_kind: 'user',
        details: { email, provenBy: 'idp' },
        ip: by.ip,
        request_id: by.response.headers.get('X-Request-Id'),
      },
    ]);
  }

  const expectRefused = (response: TestResponse, errorCode: string) => {
    expect({ status: response.status, errorCode: response.body?.errorCode }, response.text).toEqual({
      status: 409,
      errorCode,
    });
  };

  describe('an address another account holds unverified', () => {
    it('signs its owner in with the provider: a new account gets the address, verified, and the claim is taken off the other, on record with the request', async () => {
      const email = uniqueEmail('owner');
      const squatter = await claimAtSignUp(email);
      const sub = randomUUID();

      const response = await mobile({ sub, email });

      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toMatchObject({ isNewUser: true, user: { email } });
      const ownerId: string = response.body.data.user.id;
      expect(ownerId).not.toBe(squatter.userId);
      expect(
        await app.db.query(
          'select id, email_verified_at is not null as verified from users where lower(email) = lower($1)',
          [email],
        ),
      ).toEqual([{ id: ownerId, verified: true }]);
      expect(await app.db.query('select user_id from user_identities where subject = $1', [sub])).toEqual([
        { user_id: ownerId },
      ]);
      await expectClaimReleased(squatter, email, { userId: ownerId, response, ip: SIGN_IN_IP });
      // The squatter's account keeps its phone sign-in.
      expect((await app.db.query('select 1 from users where phone = $1', [squatter.phone])).length).toBe(1);
    });

    it('links the provider to its signed-in owner, who gets the address verified; the claim is taken off the other, on record with the request', async () => {
      const email = uniqueEmail('owner');
      const squatter = await claimAtSignUp(email);
      const owner = await app.signIn();
      const sub = randomUUID();

      const response = await link(owner, { sub, email });

      expect(response.status, response.text).toBe(200);
      expect(response.body.data.identity).toMatchObject({ provider: 'idp', email, alreadyLinked: false });
      expect(
        await app.db.query(
          'select id, email_verified_at is not null as verified from users where lower(email) = lower($1)',
          [email],
        ),
      ).toEqual([{ id: owner.userId, verified: true }]);
      await expectClaimReleased(squatter, email, { userId: owner.userId, response, ip: LINK_IP });
      const signIn = await mobile({ sub, email });
      expect(signIn.status, signIn.text).toBe(200);
      expect(signIn.body.data).toMatchObject({ isNewUser: false, user: { id: owner.userId, email } });
    });
  });

  describe('an address another account holds verified', () => {
    it('still refuses the sign-in of another subject and the link (409 IDP_ACCOUNT_CONFLICT), changing nothing', async () => {
      const email = uniqueEmail('verified');
      const holder = await claimAtSignUp(email);
      // Proven, and linked to a provider account of its own: no sign-in adds another subject to it.
      await app.db.query('update users set email_verified_at = now() where id = $1', [holder.userId]);
      await app.db.query(
        `insert into user_identities (user_id, provider, subject, email) values ($1, 'idp', $2, $3)`,
        [holder.userId, randomUUID(), email],
      );
      const other = await app.signIn();
      const before = await addressState(email, [holder.userId, other.userId], holder.tokenId);

      expectRefused(await mobile({ sub: randomUUID(), email }), 'IDP_ACCOUNT_CONFLICT');
      expectRefused(await link(other, { sub: randomUUID(), email }), 'IDP_ACCOUNT_CONFLICT');

      expect(await addressState(email, [holder.userId, other.userId], holder.tokenId)).toEqual(before);
      expect(await app.db.query('select 1 from users where lower(email) = lower($1)', [email])).toHaveLength(
        1,
      );
    });
  });

  describe('a staff account made with the address of a linked provider account', () => {
    /** A traveller signed in by the provider, then another company's OWNER makes a driver with the address. */
    async function travellerThenDriver() {
      const email = uniqueEmail('traveller');
      const sub = randomUUID();
      const first = await mobile({ sub, email });
      expect(first.status, first.text).toBe(200);
      const company = await createCompany(app.db, { verified: true });
      const owner = await createStaffMember(app.db, company.id, 'OWNER');
      const session = await staffLogin(app, { email: owner.email, password: owner.password });
      expect(session.response.status, session.response.text).toBe(200);
      const driver = await app.request('/dashboard/api/drivers', {
        method: 'POST',
        headers: session.writeHeaders,
        json: { email, name: 'Some Driver', password: 'long enough secret' },
      });
      expect(driver.status, driver.text).toBe(201);
      return { email, sub, userId: first.body.data.user.id as string };
    }

    it('does not lock the traveller out: the linked subject still signs in to the same account', async () => {
      const { email, sub, userId } = await travellerThenDriver();
      const before = await app.db.query('select email, email_verified_at from users where id = $1', [userId]);

      const again = await mobile({ sub, email });

      expect({ status: again.status, errorCode: again.body?.errorCode }, again.text).toEqual({
        status: 200,
        errorCode: undefined,
      });
      expect(again.body.data).toMatchObject({ isNewUser: false, user: { id: userId, email } });
      expect(
        await app.db.query('select email, email_verified_at from users where id = $1', [userId]),
      ).toEqual(before);
    });

    it('still refuses the address to a subject not linked yet (409 IDP_STAFF_ACCOUNT_CONFLICT), changing nothing', async () => {
      const { email, userId } = await travellerThenDriver();
      const other = await app.signIn();
      const before = await addressState(email, [userId, other.userId]);

      expectRefused(await mobile({ sub: randomUUID(), email }), 'IDP_STAFF_ACCOUNT_CONFLICT');
      expectRefused(await link(other, { sub: randomUUID(), email }), 'IDP_STAFF_ACCOUNT_CONFLICT');

      expect(await addressState(email, [userId, other.userId])).toEqual(before);
    });
  });
});
