import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTravellerTokens } from '../../../api/auth/traveller-token.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useFakeIdp, type FakeIdp, type MintOptions } from '../../support/fakes/jwks.js';
import { useTestApp, type TestApp, type TestResponse } from '../../support/harness.js';

const SITE = 'https://www.bus.test';
const PWA = 'https://app.bus.test';
const DEV_PWA = 'http://localhost:5173';
const SITE_HEADERS = { Origin: SITE, 'Sec-Fetch-Site': 'same-origin' };
const PWA_HEADERS = { Origin: PWA, 'Sec-Fetch-Site': 'cross-site' };

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const uniqueEmail = (label = 'traveller') => `${label}-${randomUUID().slice(0, 8)}@example.test`;

const expectError = (response: TestResponse, status: number, errorCode: string) => {
  expect({ status: response.status, errorCode: response.body?.errorCode }).toEqual({ status, errorCode });
  expect(response.body.success).toBe(false);
};

/** A flow started with GET /idp/nonce: its id, raw nonce and the flow cookie the browser keeps. */
interface Flow {
  flowId: string;
  nonce: string;
  clientId: string;
  cookie: string;
  setCookie: string;
}

function idpHelpers(app: TestApp, idp: FakeIdp) {
  const startFlow = async (
    channel: 'web' | 'pwa' | 'link' = 'web',
    headers: Record<string, string> = {},
  ): Promise<Flow> => {
    const response = await app.request(`/api/auth/customer/idp/nonce?channel=${channel}`, { headers });
    expect(response.status).toBe(200);
    const setCookie = response.headers.getSetCookie().find((cookie) => cookie.startsWith('bb_idp_')) ?? '';
    return { ...response.body.data, setCookie, cookie: setCookie.split(';')[0] ?? '' };
  };
  const mobile = (idToken: string, headers: Record<string, string> = {}) =>
    app.request('/api/auth/customer/idp/mobile', { method: 'POST', json: { idToken }, headers });
  const web = (
    body: { idToken: string; flowId: string; returnTo?: string },
    headers: Record<string, string>,
  ) =>
    app.request('/api/auth/customer/idp/web', { method: 'POST', json: { returnTo: '/', ...body }, headers });
  const pwa = (body: { idToken: string; flowId: string }, headers: Record<string, string> = PWA_HEADERS) =>
    app.request('/api/auth/customer/idp/pwa', { method: 'POST', json: body, headers });
  const mobileToken = (options: MintOptions = {}) => idp.mint({ audience: idp.mobileClientId, ...options });
  const usersWithEmail = (email: string) =>
    app.db.query('select * from users where lower(email) = lower($1)', [email]);
  const identitiesWithEmail = (email: string) =>
    app.db.query('select * from user_identities where lower(email) = lower($1)', [email]);
  /** A phone traveller as OTP sign-in leaves one, optionally with an e-mail and a password. */
  const phoneTraveller = async (
    options: { email?: string; emailVerified?: boolean; password?: boolean } = {},
  ) => {
    const phone = `+9639${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const [passenger] = await app.db.query<{ id: string }>(
      `insert into passengers (phone, name) values ($1, 'Omar') returning id`,
      [phone],
    );
    const [user] = await app.db.query<{ id: string; password_hash: string | null }>(
      `insert into users (phone, name, email, email_verified_at, password_hash, passenger_id)
       values ($1, 'Omar', $2, case when $3 then now() end, $4, $5) returning id, password_hash`,
      [
        phone,
        options.email ?? null,
        options.emailVerified ?? false,
        options.password ? '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA' : null,
        passenger!.id,
      ],
    );
    return { userId: user!.id, passengerId: passenger!.id, phone, passwordHash: user!.password_hash };
  };
  return { startFlow, mobile, web, pwa, mobileToken, usersWithEmail, identitiesWithEmail, phoneTraveller };
}

describe('identity-provider sign-in', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    SITE_ORIGIN: SITE,
    PWA_ORIGIN: PWA,
    DEV_PWA_ORIGIN: DEV_PWA,
    IDP_RATE_LIMIT_PER_IP: 100_000,
    IDP_RATE_LIMIT_PER_SUBJECT: 1000,
  });
  const app = useTestApp(config);
  const helpers = () => idpHelpers(app, idp);

  describe('POST /auth/customer/idp/mobile', () => {
    it('creates a traveller from the verified token and returns a bearer session that needs a phone', async () => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      const email = uniqueEmail();
      const sub = randomUUID();
      const response = await mobile(await mobileToken({ claims: { sub, email, name: 'Rana Khoury' } }));

      expect(response.status).toBe(200);
      const data = response.body.data;
      expect(data).toEqual({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        expiresAt: expect.any(Number),
        isNewUser: true,
        needsPhone: true,
        user: { id: expect.any(String), name: 'Rana Khoury', email, phone: null },
      });
      const identity = await createTravellerTokens(app.config).verify(data.accessToken);
      expect(identity.userId).toBe(data.user.id);
      const [session] = await app.db.query('select channel, user_id from traveller_sessions where id = $1', [
        identity.sessionId,
      ]);
      expect(session).toEqual({ channel: 'mobile', user_id: data.user.id });
      const [user] = await usersWithEmail(email);
      expect(user).toMatchObject({
        id: data.user.id,
        phone: null,
        passenger_id: null,
        password_hash: null,
        email_verified_at: expect.anything(),
      });
      const identities = await app.db.query(
        'select user_id, provider, subject from user_identities where subject = $1',
        [sub],
      );
      expect(identities).toEqual([{ user_id: data.user.id, provider: 'idp', subject: sub }]);
    });

    it("keeps the token's name as a typed name would be: no control or bidirectional-override character, cut whole at 100 characters", async () => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      const signIn = async (name: string) => {
        const email = uniqueEmail();
        const response = await mobile(await mobileToken({ claims: { email, name } }));
        expect(response.status, response.text).toBe(200);
        const me = await app.request('/api/auth/customer/me', { token: response.body.data.accessToken });
        expect(me.status, me.text).toBe(200);
        const [user] = await usersWithEmail(email);
        return { signedIn: response.body.data.user.name, me: me.body.data.name, stored: user!.name };
      };
      const shown = (name: string) => ({ signedIn: name, me: name, stored: name });

      // A right-to-left override would make "Rana" read as "anaR"; a bell and a line break are no
      // part of a name; the family emoji (5 code points, 8 UTF-16 units) would cross the 100th
      // character, so the cut falls before it rather than through it.
      const padding = 'a'.repeat(87);
      const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
      expect(await signIn(` \u202ERana\u202C\u0007 \n Khoury ${padding}${family} tail`)).toEqual(
        shown(`Rana Khoury ${padding}`),
      );
      // An emoji that ends exactly at the 100th character stays whole; half of one is never kept.
      const grin = '\u{1F600}';
      expect(await signIn(`${'b'.repeat(99)}${grin}and more`)).toEqual(shown(`${'b'.repeat(99)}${grin}`));
      expect(await signIn(`${'c'.repeat(199)}${grin}`)).toEqual(shown('c'.repeat(100)));
      // Nothing printable left: the account has no name, as when the token carries none.
      expect(await signIn('\u202E\u2066\u0007 \t\u2069')).toEqual(shown(''));
      // No letter (a direction mark, a zero-width space, tatweel, vowel marks): nothing a ticket could
      // print, so no name either; the sign-in itself goes on.
      expect(await signIn('\u200F\u200B\u0640\u064E \u0651')).toEqual(shown(''));
    });

    it('creates one account when the first sign-ins of a subject race', async () => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      const sub = randomUUID();
      const email = uniqueEmail();
      const tokens = await Promise.all([1, 2, 3].map(() => mobileToken({ claims: { sub, email } })));
      const responses = await Promise.all(tokens.map((token) => mobile(token)));
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
      expect(new Set(responses.map((response) => response.body.data.user.id)).size).toBe(1);
      expect(responses.filter((response) => response.body.data.isNewUser)).toHaveLength(1);
      expect(await usersWithEmail(email)).toHaveLength(1);
    });

    it('signs the same subject in to the same account again', async () => {
      const { mobile, mobileToken } = helpers();
      const sub = randomUUID();
      const first = await mobile(await mobileToken({ claims: { sub } }));
      const second = await mobile(await mobileToken({ claims: { sub } }));
      expect(second.status).toBe(200);
      expect(second.body.data.isNewUser).toBe(false);
      expect(second.body.data.user.id).toBe(first.body.data.user.id);
    });

    it('refuses any request that carries an Origin or Sec-Fetch-Site header, writing nothing', async () => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      const email = uniqueEmail();
      const token = await mobileToken({ claims: { email } });
      expectError(await mobile(token, { Origin: SITE }), 403, 'IDP_BROWSER_REQUEST_REFUSED');
      expectError(await mobile(token, { 'Sec-Fetch-Site': 'none' }), 403, 'IDP_BROWSER_REQUEST_REFUSED');
      expect(await usersWithEmail(email)).toEqual([]);
    });

    it('accepts no name, e-mail or subject from the client', async () => {
      const { mobileToken, usersWithEmail } = helpers();
      const email = uniqueEmail();
      const response = await app.request('/api/auth/customer/idp/mobile', {
        method: 'POST',
        json: {
          idToken: await mobileToken({ claims: { email } }),
          email: uniqueEmail('attacker'),
          name: 'Mallory',
          sub: 'x',
        },
      });
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(await usersWithEmail(email)).toEqual([]);
    });

    it.each<[string, MintOptions, number, string]>([
      ['a signature by an unpublished key', { signWith: 'foreign' }, 401, 'IDP_TOKEN_INVALID'],
      ['a forged signature under the published key id', { signWith: 'forged' }, 401, 'IDP_TOKEN_INVALID'],
      ['another issuer', { issuer: 'https://evil.example' }, 401, 'IDP_TOKEN_INVALID'],
      ['the web audience', { audience: 'test-web-client' }, 401, 'IDP_TOKEN_INVALID'],
      ['another audience', { audience: 'someone-else' }, 401, 'IDP_TOKEN_INVALID'],
      ['an expired token', { expiresInSeconds: -120 }, 401, 'IDP_TOKEN_INVALID'],
      ['an unverified e-mail', { claims: { email_verified: false } }, 403, 'IDP_EMAIL_NOT_VERIFIED'],
      ['email_verified as text', { claims: { email_verified: 'true' } }, 403, 'IDP_EMAIL_NOT_VERIFIED'],
      ['no email_verified claim', { omit: ['email_verified'] }, 403, 'IDP_EMAIL_NOT_VERIFIED'],
      ['no e-mail', { omit: ['email'] }, 401, 'IDP_TOKEN_INVALID'],
    ])('refuses %s and creates no account', async (_label, options, status, errorCode) => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      const email = uniqueEmail();
      const response = await mobile(await mobileToken({ ...options, claims: { email, ...options.claims } }));
      expectError(response, status, errorCode);
      expect(await usersWithEmail(email)).toEqual([]);
    });

    it('keeps an address under an internationalised domain in the ASCII form password recovery takes', async () => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      const local = `layla-${randomUUID().slice(0, 8)}`;
      // The provider may write Syria's top-level domain in Arabic letters; DNS (and the account) write xn--ogbpf8fl.
      const response = await mobile(await mobileToken({ claims: { email: `${local}@Example.سورية` } }));
      expect(response.status, response.text).toBe(200);
      const email = `${local}@example.xn--ogbpf8fl`;
      expect(response.body.data.user.email).toBe(email);
      expect(await usersWithEmail(email)).toEqual([
        expect.objectContaining({ id: response.body.data.user.id, email }),
      ]);

      const forgot = await app.request('/api/auth/forgot-password', { method: 'POST', json: { email } });
      expect([forgot.status, forgot.body.errorCode], forgot.text).toEqual([200, undefined]);
    });

    it('refuses an address the e-mail rule cannot read as a token without one, and creates no account', async () => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      for (const email of [
        'layla@localhost',
        'layla khoury@example.test',
        'رنا@example.test',
        'layla@example.c0m',
      ]) {
        const sub = randomUUID();
        expectError(await mobile(await mobileToken({ claims: { sub, email } })), 401, 'IDP_TOKEN_INVALID');
        expect(await usersWithEmail(email), email).toEqual([]);
        expect(await app.db.query('select 1 from user_identities where subject = $1', [sub]), email).toEqual(
          [],
        );
      }
    });

    it('refuses a token that is not a JWT', async () => {
      expectError(await helpers().mobile('not-a-token'), 401, 'IDP_TOKEN_INVALID');
    });

    it('adds the identity to a phone traveller with that verified e-mail, keeping phone and password', async () => {
      const { mobile, mobileToken, phoneTraveller } = helpers();
      const email = uniqueEmail();
      const traveller = await phoneTraveller({ email, emailVerified: true, password: true });
      const response = await mobile(await mobileToken({ claims: { email: email.toUpperCase() } }));

      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        isNewUser: false,
        needsPhone: false,
        user: { id: traveller.userId, phone: traveller.phone },
      });
      const users = await app.db.query<{ id: string; password_hash: string; phone: string }>(
        'select id, password_hash, phone from users where lower(email) = lower($1)',
        [email],
      );
      expect(users).toEqual([
        { id: traveller.userId, password_hash: traveller.passwordHash, phone: traveller.phone },
      ]);
    });

    it('takes an address an account holds unverified from it, and signs the provider verified owner in to a new account', async () => {
      const { mobile, mobileToken, phoneTraveller, identitiesWithEmail, usersWithEmail } = helpers();
      const email = uniqueEmail();
      const traveller = await phoneTraveller({ email, emailVerified: false });
      const response = await mobile(await mobileToken({ claims: { email } }));
      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toMatchObject({ isNewUser: true, needsPhone: true, user: { email } });
      const ownerId = response.body.data.user.id;
      expect(ownerId).not.toBe(traveller.userId);
      expect(await identitiesWithEmail(email)).toEqual([expect.objectContaining({ user_id: ownerId })]);
      expect(await usersWithEmail(email)).toEqual([
        expect.objectContaining({ id: ownerId, email_verified_at: expect.anything() }),
      ]);
      expect(await app.db.query('select email, phone from users where id = $1', [traveller.userId])).toEqual([
        { email: null, phone: traveller.phone },
      ]);
    });

    it('refuses an address already linked to another subject and creates no parallel account', async () => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      const email = uniqueEmail();
      expect((await mobile(await mobileToken({ claims: { email } }))).status).toBe(200);
      expectError(
        await mobile(await mobileToken({ claims: { email, sub: randomUUID() } })),
        409,
        'IDP_ACCOUNT_CONFLICT',
      );
      expect(await usersWithEmail(email)).toHaveLength(1);
    });

    it('refuses the address to a first sign-in that waited while its holder linked another subject', async () => {
      const { startFlow, mobile, mobileToken, identitiesWithEmail } = helpers();
      const traveller = await app.signIn();
      const email = uniqueEmail('holder');
      await app.db.query('update users set email = $2, email_verified_at = now() where id = $1', [
        traveller.userId,
        email,
      ]);
      // The traveller links subject S1 (another address) from the app, while someone signs in with
      // subject S2 whose verified address is the traveller's: both wait on the traveller's row.
      const flow = await startFlow('link');
      const [s1, s2] = [randomUUID(), randomUUID()];
      const linkToken = await mobileToken({
        claims: { sub: s1, email: uniqueEmail('other'), nonce: flow.nonce },
      });
      const signInToken = await mobileToken({ claims: { sub: s2, email } });
      const lock = await holdLock(app.db, `select id from users where id = '${traveller.userId}' for update`);
      let answers: [TestResponse, TestResponse];
      try {
        const linking = app.request('/api/profile/security/identities/idp', {
          method: 'POST',
          token: traveller.token,
          json: { idToken: linkToken, flowId: flow.flowId },
        });
        await waitersOf(app.db, lock.pid, 1);
        const signingIn = mobile(signInToken);
        await waitersOf(app.db, lock.pid, 2);
        await lock.release();
        answers = [await linking, await signingIn];
      } finally {
        await lock.release();
      }
      const [linked, signedIn] = answers;
      expect(linked.status, linked.text).toBe(200);
      expectError(signedIn, 409, 'IDP_ACCOUNT_CONFLICT');
      // One subject on the traveller; S2 is linked nowhere and opened no account.
      expect(
        await app.db.query('select subject from user_identities where user_id = $1', [traveller.userId]),
      ).toEqual([{ subject: s1 }]);
      expect(await app.db.query('select 1 from user_identities where subject = $1', [s2])).toEqual([]);
      expect(await identitiesWithEmail(email)).toEqual([]);
    }, 60_000);

    it('refuses addresses of company staff and administrators', async () => {
      const { mobile, mobileToken, usersWithEmail } = helpers();
      const staffEmail = uniqueEmail('dispatcher');
      const adminEmail = uniqueEmail('admin');
      await app.db.query(`insert into staff_users (email, password_hash) values ($1, 'x')`, [staffEmail]);
      await app.db.query(`insert into admins (email, password_hash, role) values ($1, 'x', 'SUPPORT')`, [
        adminEmail,
      ]);
      expectError(
        await mobile(await mobileToken({ claims: { email: staffEmail.toUpperCase() } })),
        409,
        'IDP_STAFF_ACCOUNT_CONFLICT',
      );
      expectError(
        await mobile(await mobileToken({ claims: { email: adminEmail } })),
        409,
        'IDP_STAFF_ACCOUNT_CONFLICT',
      );
      expect(await usersWithEmail(staffEmail)).toEqual([]);
      expect(await usersWithEmail(adminEmail)).toEqual([]);
    });
  });

  describe('GET /auth/customer/idp/nonce', () => {
    it('gives each flow its own nonce, stores only its fingerprint and binds it to a short HttpOnly cookie', async () => {
      const { startFlow } = helpers();
      const first = await startFlow();
      const second = await startFlow();
      expect(first).toMatchObject({
        clientId: idp.webClientId,
        flowId: expect.any(String),
        nonce: expect.any(String),
      });
      expect(second.flowId).not.toBe(first.flowId);
      expect(second.nonce).not.toBe(first.nonce);
      expect(first.cookie).toBe(`bb_idp_${first.flowId}=${sha256(first.nonce)}`);
      const expires = Date.parse(/expires=([^;]+)/i.exec(first.setCookie)![1]!);
      expect(expires - Date.now()).toBeGreaterThan(590_000);
      expect(expires - Date.now()).toBeLessThanOrEqual(600_000);
      expect(first.setCookie).toMatch(/; path=\/api;/i);
      expect(first.setCookie).toMatch(/; samesite=lax/i);
      expect(first.setCookie).toMatch(/; httponly/i);
      const rows = await app.db.query(
        'select nonce_hash, channel, consumed_at from idp_nonces where flow_id = $1',
        [first.flowId],
      );
      expect(rows).toEqual([{ nonce_hash: sha256(first.nonce), channel: 'web', consumed_at: null }]);
    });

    it('answers a PWA flow only to the PWA origin, with CORS for it and no cookie', async () => {
      const { startFlow } = helpers();
      const response = await app.request('/api/auth/customer/idp/nonce?channel=pwa', {
        headers: { Origin: PWA },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(PWA);
      expect(response.headers.getSetCookie()).toEqual([]);
      const refused = await app.request('/api/auth/customer/idp/nonce?channel=pwa', {
        headers: { Origin: SITE },
      });
      expectError(refused, 403, 'IDP_ORIGIN_REFUSED');
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect((await startFlow('web', { Origin: PWA })).setCookie).not.toBe('');
    });
  });

  describe('POST /auth/customer/idp/web', () => {
    it('sets the session cookies, returns no token, and sends a traveller without phone to complete-phone', async () => {
      const { startFlow, web, usersWithEmail } = helpers();
      const flow = await startFlow();
      const email = uniqueEmail();
      const idToken = await idp.mint({ claims: { nonce: flow.nonce, email } });
      const response = await web(
        { idToken, flowId: flow.flowId, returnTo: '/booking/42?seats=2&from=hama' },
        { ...SITE_HEADERS, Cookie: flow.cookie },
      );

      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({
        next: `${SITE}/auth/complete-phone?returnTo=${encodeURIComponent('/booking/42?seats=2&from=hama')}`,
        isNewUser: true,
        needsPhone: true,
        user: { id: expect.any(String), name: 'Layla Haddad', email, phone: null },
      });
      const cookies = response.headers.getSetCookie();
      const access = cookies.find((cookie) => cookie.startsWith('bb_access='))!;
      expect(access).toMatch(/httponly/i);
      expect(cookies.find((cookie) => cookie.startsWith('bb_refresh='))).toMatch(/httponly/i);
      expect(cookies.some((cookie) => cookie.startsWith('bb_csrf='))).toBe(true);
      expect(cookies.find((cookie) => cookie.startsWith(`bb_idp_${flow.flowId}=`))).toMatch(
        /expires=Thu, 01 Jan 1970/i,
      );
      const accessToken = access.split(';')[0]!.slice('bb_access='.length);
      expect(response.text).not.toContain(accessToken);
      expect(JSON.stringify(response.body)).not.toMatch(/token/i);
      expect(await usersWithEmail(email)).toHaveLength(1);
      const [nonce] = await app.db.query<{ consumed_at: unknown }>(
        'select consumed_at from idp_nonces where flow_id = $1',
        [flow.flowId],
      );
      expect(nonce!.consumed_at).not.toBeNull();
    });

    it('sends a traveller with a phone straight to returnTo on the canonical site', async () => {
      const { startFlow, web, phoneTraveller } = helpers();
      const email = uniqueEmail();
      await phoneTraveller({ email, emailVerified: true });
      const flow = await startFlow();
      const idToken = await idp.mint({ claims: { nonce: flow.nonce, email } });
      const response = await web(
        { idToken, flowId: flow.flowId, returnTo: '/trips/9' },
        { ...SITE_HEADERS, Cookie: flow.cookie },
      );
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        next: `${SITE}/trips/9`,
        needsPhone: false,
        isNewUser: false,
      });
    });

    it('refuses a used nonce, a token without nonce and a nonce of another flow', async () => {
      const { startFlow, web, usersWithEmail } = helpers();
      const flow = await startFlow();
      const headers = { ...SITE_HEADERS, Cookie: flow.cookie };
      const email = uniqueEmail();

      expectError(
        await web({ idToken: await idp.mint({ claims: { email } }), flowId: flow.flowId }, headers),
        401,
        'IDP_NONCE_INVALID',
      );
      expectError(
        await web(
          { idToken: await idp.mint({ claims: { email, nonce: 'guessed-nonce' } }), flowId: flow.flowId },
          headers,
        ),
        401,
        'IDP_NONCE_INVALID',
      );
      expect(await usersWithEmail(email)).toEqual([]);

      const idToken = await idp.mint({ claims: { email, nonce: flow.nonce } });
      expect((await web({ idToken, flowId: flow.flowId }, headers)).status).toBe(200);
      expectError(await web({ idToken, flowId: flow.flowId }, headers), 401, 'IDP_NONCE_INVALID');
    });

    it('keeps parallel tabs apart: a token of one flow is refused with the flowId and cookie of another', async () => {
      const { startFlow, web } = helpers();
      const tabA = await startFlow();
      const tabB = await startFlow();
      const tokenA = await idp.mint({ claims: { nonce: tabA.nonce } });
      const bothCookies = `${tabA.cookie}; ${tabB.cookie}`;

      expectError(
        await web({ idToken: tokenA, flowId: tabB.flowId }, { ...SITE_HEADERS, Cookie: bothCookies }),
        401,
        'IDP_NONCE_INVALID',
      );
      expectError(
        await web({ idToken: tokenA, flowId: tabA.flowId }, { ...SITE_HEADERS, Cookie: tabB.cookie }),
        401,
        'IDP_NONCE_INVALID',
      );
      expectError(
        await web({ idToken: tokenA, flowId: tabA.flowId }, SITE_HEADERS),
        401,
        'IDP_NONCE_INVALID',
      );
      // Both flows are still usable after the refusals.
      expect(
        (await web({ idToken: tokenA, flowId: tabA.flowId }, { ...SITE_HEADERS, Cookie: bothCookies }))
          .status,
      ).toBe(200);
      const tokenB = await idp.mint({ claims: { nonce: tabB.nonce } });
      expect(
        (await web({ idToken: tokenB, flowId: tabB.flowId }, { ...SITE_HEADERS, Cookie: tabB.cookie }))
          .status,
      ).toBe(200);
    });

    it('refuses a PWA or linking nonce on the web sign-in', async () => {
      const { startFlow, web } = helpers();
      const link = await startFlow('link');
      const idToken = await idp.mint({ claims: { nonce: link.nonce } });
      expectError(
        await web({ idToken, flowId: link.flowId }, { ...SITE_HEADERS, Cookie: link.cookie }),
        401,
        'IDP_NONCE_INVALID',
      );
    });

    it.each<[string, Record<string, string>]>([
      ['another origin', { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }],
      ['the PWA origin', { Origin: PWA, 'Sec-Fetch-Site': 'same-site' }],
      ['no Origin', { 'Sec-Fetch-Site': 'same-origin' }],
      ['a cross-site fetch claiming the site origin', { Origin: SITE, 'Sec-Fetch-Site': 'cross-site' }],
      ['a navigation (Sec-Fetch-Site none)', { Origin: SITE, 'Sec-Fetch-Site': 'none' }],
      ['no Sec-Fetch-Site', { Origin: SITE }],
    ])('refuses %s with 403 and leaves the flow unused', async (_label, headers) => {
      const { startFlow, web, usersWithEmail } = helpers();
      const flow = await startFlow();
      const email = uniqueEmail();
      const idToken = await idp.mint({ claims: { nonce: flow.nonce, email } });
      expectError(
        await web({ idToken, flowId: flow.flowId }, { ...headers, Cookie: flow.cookie }),
        403,
        'IDP_ORIGIN_REFUSED',
      );
      expect(await usersWithEmail(email)).toEqual([]);
      expect(
        (await web({ idToken, flowId: flow.flowId }, { ...SITE_HEADERS, Cookie: flow.cookie })).status,
      ).toBe(200);
    });

    it('accepts a same-site request from the site origin', async () => {
      const { startFlow, web } = helpers();
      const flow = await startFlow();
      const idToken = await idp.mint({ claims: { nonce: flow.nonce } });
      const response = await web(
        { idToken, flowId: flow.flowId },
        { Origin: SITE, 'Sec-Fetch-Site': 'same-site', Cookie: flow.cookie },
      );
      expect(response.status).toBe(200);
    });

    it.each(['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'booking/1', '/a b', ''])(
      'refuses returnTo %j with 400 INVALID_RETURN_TO',
      async (returnTo) => {
        const { startFlow, web } = helpers();
        const flow = await startFlow();
        const idToken = await idp.mint({ claims: { nonce: flow.nonce } });
        expectError(
          await web({ idToken, flowId: flow.flowId, returnTo }, { ...SITE_HEADERS, Cookie: flow.cookie }),
          400,
          'INVALID_RETURN_TO',
        );
      },
    );

    it('lets only one of two simultaneous attempts with the same flow sign in', async () => {
      const { startFlow, web } = helpers();
      const flow = await startFlow();
      const idToken = await idp.mint({ claims: { nonce: flow.nonce } });
      const headers = { ...SITE_HEADERS, Cookie: flow.cookie };
      const responses = await Promise.all([
        web({ idToken, flowId: flow.flowId }, headers),
        web({ idToken, flowId: flow.flowId }, headers),
      ]);
      expect(responses.map((response) => response.status).sort()).toEqual([200, 401]);
      const sessions = await app.db.query('select 1 from traveller_sessions where user_id = $1', [
        responses.find((response) => response.status === 200)!.body.data.user.id,
      ]);
      expect(sessions).toHaveLength(1);
    });

    it('refuses a token meant for the mobile client', async () => {
      const { startFlow, web, mobileToken } = helpers();
      const flow = await startFlow();
      const idToken = await mobileToken({ claims: { nonce: flow.nonce } });
      expectError(
        await web({ idToken, flowId: flow.flowId }, { ...SITE_HEADERS, Cookie: flow.cookie }),
        401,
        'IDP_TOKEN_INVALID',
      );
    });
  });

  describe('OPTIONS and POST /auth/customer/idp/pwa', () => {
    const preflight = (path: string, origin: string, requestHeaders = 'content-type') =>
      app.request(path, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': requestHeaders,
        },
      });

    it('answers the preflight of the PWA origin only, without credentials', async () => {
      for (const origin of [PWA, DEV_PWA]) {
        const response = await preflight('/api/auth/customer/idp/pwa', origin);
        expect(response.status).toBe(204);
        expect(response.headers.get('access-control-allow-origin')).toBe(origin);
        expect(response.headers.get('access-control-allow-methods')).toBe('POST');
        expect(response.headers.get('access-control-allow-headers')).toBe('Content-Type');
        expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      }
      for (const response of [
        await preflight('/api/auth/customer/idp/pwa', SITE),
        await preflight('/api/auth/customer/idp/pwa', 'https://evil.example'),
        await preflight('/api/auth/customer/idp/pwa', PWA, 'content-type, authorization'),
      ]) {
        expectError(response, 403, 'IDP_ORIGIN_REFUSED');
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
      }
    });

    it('does not widen CORS for any other path', async () => {
      for (const path of [
        '/api/cities',
        '/api/auth/customer/idp/web',
        '/api/auth/customer/idp/mobile',
        '/api/favorites',
      ]) {
        const response = await preflight(path, PWA);
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
        expect(response.headers.get('access-control-allow-methods')).toBeNull();
      }
      const read = await app.request('/api/cities', { headers: { Origin: PWA } });
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('returns a bearer session to the PWA and consumes the nonce after one success', async () => {
      const { startFlow, pwa } = helpers();
      const flow = await startFlow('pwa', { Origin: PWA });
      const email = uniqueEmail();
      const idToken = await idp.mint({ claims: { nonce: flow.nonce, email } });
      const response = await pwa({ idToken, flowId: flow.flowId });

      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        isNewUser: true,
        needsPhone: true,
      });
      expect(response.headers.get('access-control-allow-origin')).toBe(PWA);
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.getSetCookie()).toEqual([]);
      const identity = await createTravellerTokens(app.config).verify(response.body.data.accessToken);
      const [session] = await app.db.query('select channel from traveller_sessions where id = $1', [
        identity.sessionId,
      ]);
      expect(session).toEqual({ channel: 'pwa' });

      const replay = await pwa({ idToken, flowId: flow.flowId });
      expectError(replay, 401, 'IDP_NONCE_INVALID');
      expect(replay.headers.get('access-control-allow-origin')).toBe(PWA);
    });

    it('lets the PWA read the refusals of its body too (400, 415), and gives other callers no CORS answer', async () => {
      const { startFlow, pwa, usersWithEmail } = helpers();
      const flow = await startFlow('pwa', { Origin: PWA });
      const email = uniqueEmail();
      const idToken = await idp.mint({ claims: { nonce: flow.nonce, email } });
      const send = (headers: Record<string, string>, init: { json?: unknown; body?: string }) =>
        app.request('/api/auth/customer/idp/pwa', { method: 'POST', ...init, headers });
      const refusals = (headers: Record<string, string>) => [
        send(headers, { json: { idToken, flowId: flow.flowId, name: 'Not a field' } }),
        send(headers, { json: { idToken, flowId: 'not-a-flow-id' } }),
        send({ ...headers, 'Content-Type': 'application/json' }, { body: '{"idToken":' }),
        send(
          { ...headers, 'Content-Type': 'text/plain' },
          { body: JSON.stringify({ idToken, flowId: flow.flowId }) },
        ),
      ];
      const seen = async (headers: Record<string, string>) =>
        (await Promise.all(refusals(headers))).map((response) => [
          response.status,
          response.body?.errorCode,
          response.headers.get('access-control-allow-origin'),
          response.headers.get('access-control-expose-headers'),
        ]);
      const codes = [
        [400, 'VALIDATION_FAILED'],
        [400, 'VALIDATION_FAILED'],
        [400, 'INVALID_JSON'],
        [415, 'UNSUPPORTED_MEDIA_TYPE'],
      ];
      const readable = (origin: string) =>
        codes.map((code) => [...code, origin, 'Retry-After, X-Request-Id']);
      const opaque = codes.map((code) => [...code, null, null]);
      expect({
        pwa: await seen(PWA_HEADERS),
        devPwa: await seen({ Origin: DEV_PWA, 'Sec-Fetch-Site': 'same-site' }),
        site: await seen(SITE_HEADERS),
        otherOrigin: await seen({ Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }),
        pwaWithoutFetchSite: await seen({ Origin: PWA }),
        devPwaCrossSite: await seen({ Origin: DEV_PWA, 'Sec-Fetch-Site': 'cross-site' }),
      }).toEqual({
        pwa: readable(PWA),
        devPwa: readable(DEV_PWA),
        site: opaque,
        otherOrigin: opaque,
        pwaWithoutFetchSite: opaque,
        devPwaCrossSite: opaque,
      });
      // Nothing was written and the flow's nonce is unspent: the same token then signs in.
      expect(await usersWithEmail(email)).toEqual([]);
      expect((await pwa({ idToken, flowId: flow.flowId })).status).toBe(200);
    });

    it('accepts the development origin only same-site, and refuses other origins and fetch sites', async () => {
      const { startFlow, pwa, usersWithEmail } = helpers();
      const flow = await startFlow('pwa', { Origin: PWA });
      const email = uniqueEmail();
      const idToken = await idp.mint({ claims: { nonce: flow.nonce, email } });
      const refusedHeaders: Record<string, string>[] = [
        { Origin: DEV_PWA, 'Sec-Fetch-Site': 'cross-site' },
        { Origin: SITE, 'Sec-Fetch-Site': 'same-origin' },
        { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
        { Origin: PWA },
        { Origin: PWA, 'Sec-Fetch-Site': 'none' },
        { 'Sec-Fetch-Site': 'same-site' },
      ];
      for (const headers of refusedHeaders) {
        const response = await pwa({ idToken, flowId: flow.flowId }, headers);
        expectError(response, 403, 'IDP_ORIGIN_REFUSED');
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
      }
      expect(await usersWithEmail(email)).toEqual([]);
      const response = await pwa(
        { idToken, flowId: flow.flowId },
        { Origin: DEV_PWA, 'Sec-Fetch-Site': 'same-site' },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(DEV_PWA);
    });

    it('never reads cookies: a site session cookie neither signs in nor blocks the PWA sign-in', async () => {
      const { startFlow, pwa } = helpers();
      const someoneElse = await app.signIn();
      const flow = await startFlow('pwa', { Origin: PWA });
      const idToken = await idp.mint({ claims: { nonce: flow.nonce } });
      const response = await pwa(
        { idToken, flowId: flow.flowId },
        { ...PWA_HEADERS, Cookie: `${someoneElse.cookie}; bb_access=garbage` },
      );
      expect(response.status).toBe(200);
      expect(response.body.data.user.id).not.toBe(someoneElse.userId);
    });

    it('refuses a web flow nonce and a token for the mobile client', async () => {
      const { startFlow, pwa, mobileToken } = helpers();
      const webFlow = await startFlow('web');
      expectError(
        await pwa({ idToken: await idp.mint({ claims: { nonce: webFlow.nonce } }), flowId: webFlow.flowId }),
        401,
        'IDP_NONCE_INVALID',
      );
      const flow = await startFlow('pwa', { Origin: PWA });
      expectError(
        await pwa({ idToken: await mobileToken({ claims: { nonce: flow.nonce } }), flowId: flow.flowId }),
        401,
        'IDP_TOKEN_INVALID',
      );
    });
  });

  describe('linking and unlinking (/profile/security/identities/idp)', () => {
    const link = (body: { idToken: string; flowId: string }, headers: Record<string, string>) =>
      app.request('/api/profile/security/identities/idp', { method: 'POST', json: body, headers });
    const unlink = (headers: Record<string, string>) =>
      app.request('/api/profile/security/identities/idp', { method: 'DELETE', headers });

    /** A signed-in web traveller with a started linking flow and a token for it. */
    const prepare = async (claims: Record<string, unknown> = {}) => {
      const { startFlow } = helpers();
      const traveller = await app.signIn();
      const flow = await startFlow('link');
      const idToken = await idp.mint({ claims: { nonce: flow.nonce, ...claims } });
      const headers = { ...traveller.writeHeaders, Cookie: `${traveller.cookie}; ${flow.cookie}` };
      return { traveller, flow, idToken, headers };
    };

    it('links the subject to the signed-in traveller, who then signs in with it', async () => {
      const { mobile, mobileToken } = helpers();
      const sub = randomUUID();
      const email = uniqueEmail();
      const { traveller, flow, idToken, headers } = await prepare({ sub, email });
      const response = await link({ idToken, flowId: flow.flowId }, headers);

      expect(response.status).toBe(200);
      expect(response.body.data.identity).toEqual({
        provider: 'idp',
        email,
        linkedAt: expect.any(String),
        alreadyLinked: false,
      });
      const [user] = await app.db.query('select email, email_verified_at from users where id = $1', [
        traveller.userId,
      ]);
      expect(user).toEqual({ email, email_verified_at: expect.anything() });
      const signIn = await mobile(await mobileToken({ claims: { sub, email } }));
      expect(signIn.body.data).toMatchObject({
        isNewUser: false,
        needsPhone: false,
        user: { id: traveller.userId },
      });
    });

    it('needs a session and, on the web, the CSRF header', async () => {
      const { traveller, flow, idToken } = await prepare();
      expectError(
        await link({ idToken, flowId: flow.flowId }, { Cookie: flow.cookie }),
        401,
        'AUTH_REQUIRED',
      );
      expectError(
        await link({ idToken, flowId: flow.flowId }, { Cookie: `${traveller.cookie}; ${flow.cookie}` }),
        403,
        'CSRF_TOKEN_INVALID',
      );
      expect(
        await app.db.query('select 1 from user_identities where user_id = $1', [traveller.userId]),
      ).toEqual([]);
    });

    it('needs the flow cookie on the web, and a linking flow', async () => {
      const { startFlow } = helpers();
      const { traveller, flow, idToken } = await prepare();
      expectError(
        await link({ idToken, flowId: flow.flowId }, traveller.writeHeaders),
        401,
        'IDP_NONCE_INVALID',
      );
      const webFlow = await startFlow('web');
      const webToken = await idp.mint({ claims: { nonce: webFlow.nonce } });
      const headers = { ...traveller.writeHeaders, Cookie: `${traveller.cookie}; ${webFlow.cookie}` };
      expectError(
        await link({ idToken: webToken, flowId: webFlow.flowId }, headers),
        401,
        'IDP_NONCE_INVALID',
      );
    });

    it('links from the mobile app with a bearer session and a mobile token', async () => {
      const { startFlow, mobileToken } = helpers();
      const traveller = await app.signIn();
      const flow = await startFlow('link');
      const idToken = await mobileToken({ claims: { nonce: flow.nonce } });
      const response = await link(
        { idToken, flowId: flow.flowId },
        { Authorization: `Bearer ${traveller.token}` },
      );
      expect(response.status).toBe(200);
    });

    it('refuses a subject linked to another account, an address another account holds verified, and staff addresses', async () => {
      const { mobile, mobileToken, phoneTraveller } = helpers();
      const taken = randomUUID();
      await mobile(await mobileToken({ claims: { sub: taken } }));
      const first = await prepare({ sub: taken });
      expectError(
        await link({ idToken: first.idToken, flowId: first.flow.flowId }, first.headers),
        409,
        'IDP_ACCOUNT_CONFLICT',
      );

      const heldEmail = uniqueEmail();
      const holder = await phoneTraveller({ email: heldEmail, emailVerified: true });
      const second = await prepare({ email: heldEmail });
      expectError(
        await link({ idToken: second.idToken, flowId: second.flow.flowId }, second.headers),
        409,
        'IDP_ACCOUNT_CONFLICT',
      );

      const staffEmail = uniqueEmail('staff');
      await app.db.query(`insert into staff_users (email, password_hash) values ($1, 'x')`, [staffEmail]);
      const third = await prepare({ email: staffEmail });
      expectError(
        await link({ idToken: third.idToken, flowId: third.flow.flowId }, third.headers),
        409,
        'IDP_STAFF_ACCOUNT_CONFLICT',
      );

      for (const { traveller } of [first, second, third]) {
        const rows = await app.db.query('select email from users where id = $1', [traveller.userId]);
        expect(rows).toEqual([{ email: null }]);
        expect(
          await app.db.query('select 1 from user_identities where user_id = $1', [traveller.userId]),
        ).toEqual([]);
      }
      // The verified holder keeps its address.
      expect(await app.db.query('select email from users where id = $1', [holder.userId])).toEqual([
        { email: heldEmail },
      ]);
      // A refused attempt does not use up its flow.
      const [nonce] = await app.db.query('select consumed_at from idp_nonces where flow_id = $1', [
        third.flow.flowId,
      ]);
      expect(nonce).toEqual({ consumed_at: null });
    });

    it('refuses a second, different subject on the same account', async () => {
      const { startFlow } = helpers();
      const { traveller, flow, idToken, headers } = await prepare();
      expect((await link({ idToken, flowId: flow.flowId }, headers)).status).toBe(200);
      const again = await startFlow('link');
      const other = await idp.mint({ claims: { nonce: again.nonce } });
      const response = await link(
        { idToken: other, flowId: again.flowId },
        { ...traveller.writeHeaders, Cookie: `${traveller.cookie}; ${again.cookie}` },
      );
      expectError(response, 409, 'IDP_ALREADY_LINKED');
    });

    it('unlinks while the account keeps its phone', async () => {
      const { traveller, flow, idToken, headers } = await prepare();
      await link({ idToken, flowId: flow.flowId }, headers);
      const response = await unlink(traveller.writeHeaders);
      expect(response.status).toBe(200);
      expect(
        await app.db.query('select 1 from user_identities where user_id = $1', [traveller.userId]),
      ).toEqual([]);
      expectError(await unlink(traveller.writeHeaders), 404, 'IDP_IDENTITY_NOT_FOUND');
    });

    it('a sign-in that waited while the traveller unlinked the subject does not enter their account', async () => {
      const { mobile, mobileToken } = helpers();
      const sub = randomUUID();
      const { traveller, flow, idToken, headers } = await prepare({ sub, email: uniqueEmail() });
      expect((await link({ idToken, flowId: flow.flowId }, headers)).status).toBe(200);
      // The subject signs in again, its provider address changed since.
      const signInToken = await mobileToken({ claims: { sub, email: uniqueEmail('moved') } });
      // The unlink holds the account's row while it deletes the link; the delete is held here a moment.
      const held = await holdLock(
        app.db,
        `select 1 from user_identities where user_id = '${traveller.userId}' for update`,
      );
      let answers: [TestResponse, TestResponse];
      try {
        const unlinking = unlink(traveller.writeHeaders);
        await waitersOf(app.db, held.pid, 1);
        // The sign-in waits for the account the unlink holds.
        const signingIn = mobile(signInToken);
        await waitersOf(app.db, held.pid, 2);
        await held.release();
        answers = [await unlinking, await signingIn];
      } finally {
        await held.release();
      }
      const [unlinked, signedIn] = answers;

      expect(unlinked.status, unlinked.text).toBe(200);
      // The subject is no longer the traveller's: it opens an account of its own, as any new subject.
      expect(signedIn.status, signedIn.text).toBe(200);
      expect(signedIn.body.data.isNewUser).toBe(true);
      expect(signedIn.body.data.user.id).not.toBe(traveller.userId);
      expect(await app.db.query('select user_id from user_identities where subject = $1', [sub])).toEqual([
        { user_id: signedIn.body.data.user.id },
      ]);
    }, 60_000);

    it('refuses to remove the last way to sign in, and allows it once a password and verified e-mail exist', async () => {
      const { mobile, mobileToken } = helpers();
      const signIn = await mobile(await mobileToken());
      const bearer = { Authorization: `Bearer ${signIn.body.data.accessToken}` };
      expectError(await unlink(bearer), 409, 'LAST_SIGN_IN_METHOD');
      expect(
        await app.db.query('select 1 from user_identities where user_id = $1', [signIn.body.data.user.id]),
      ).toHaveLength(1);

      await app.db.query(`update users set password_hash = 'argon2-hash' where id = $1`, [
        signIn.body.data.user.id,
      ]);
      expect((await unlink(bearer)).status).toBe(200);
    });

    it('needs the CSRF header to unlink on the web', async () => {
      const traveller = await app.signIn();
      expectError(await unlink({ Cookie: traveller.cookie }), 403, 'CSRF_TOKEN_INVALID');
    });
  });
});

describe('identity-provider sign-in and the opaque origin "null"', () => {
  // Origins without their scheme: start-up refuses them (test/config/setting-values.test.ts); their
  // URL origin is the opaque "null", which sandboxed frames, data: and file: pages send as Origin.
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    SITE_ORIGIN: 'www.bus.test:443',
    PWA_ORIGIN: 'app.bus.test:443',
    DEV_PWA_ORIGIN: 'localhost:5173',
    IDP_RATE_LIMIT_PER_IP: 100_000,
  });
  const app = useTestApp(config);
  const OPAQUE = { Origin: 'null' };
  const noncesCount = async () =>
    Number((await app.db.query<{ n: string }>('select count(*) as n from idp_nonces'))[0]!.n);

  it('never starts a PWA flow for Origin: null nor opens CORS to it, writing nothing', async () => {
    const before = await noncesCount();
    const response = await app.request('/api/auth/customer/idp/nonce?channel=pwa', { headers: OPAQUE });
    expectError(response, 403, 'IDP_ORIGIN_REFUSED');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(await noncesCount()).toBe(before);
  });

  it('refuses the preflight and the PWA and web sign-ins from Origin: null, creating no account', async () => {
    const { usersWithEmail } = idpHelpers(app, idp);
    const preflight = await app.request('/api/auth/customer/idp/pwa', {
      method: 'OPTIONS',
      headers: {
        ...OPAQUE,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expectError(preflight, 403, 'IDP_ORIGIN_REFUSED');
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const email = uniqueEmail();
    const idToken = await idp.mint({ claims: { nonce: 'any', email } });
    for (const [path, json] of [
      ['/api/auth/customer/idp/pwa', { idToken, flowId: randomUUID() }],
      ['/api/auth/customer/idp/web', { idToken, flowId: randomUUID(), returnTo: '/' }],
    ] as const) {
      const response = await app.request(path, {
        method: 'POST',
        json,
        headers: { ...OPAQUE, 'Sec-Fetch-Site': 'same-origin' },
      });
      expectError(response, 403, 'IDP_ORIGIN_REFUSED');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
    expect(await usersWithEmail(email)).toEqual([]);
  });
});

describe('identity-provider sign-in limits', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    IDP_RATE_LIMIT_PER_IP: 1000,
    IDP_RATE_LIMIT_PER_SUBJECT: 2,
  });
  const app = useTestApp(config);

  it('limits sign-ins per identity subject', async () => {
    const { mobile, mobileToken } = idpHelpers(app, idp);
    const sub = randomUUID();
    expect((await mobile(await mobileToken({ claims: { sub } }))).status).toBe(200);
    expect((await mobile(await mobileToken({ claims: { sub } }))).status).toBe(200);
    const limited = await mobile(await mobileToken({ claims: { sub } }));
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await mobile(await mobileToken())).status).toBe(200);
  });
});

describe('identity-provider sign-in per client IP, and a provider outage', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    IDP_RATE_LIMIT_PER_IP: 3,
    IDP_RATE_LIMIT_PER_SUBJECT: 1000,
  });
  const app = useTestApp(config);

  it('answers 503 (Retry-After: 5) while the key set cannot be fetched, and counts every attempt per IP', async () => {
    const { mobile, mobileToken } = idpHelpers(app, idp);
    idp.unavailable = true;
    const outage = await mobile(await mobileToken());
    expectError(outage, 503, 'IDP_UNAVAILABLE');
    expect(outage.headers.get('Retry-After')).toBe('5');
    idp.unavailable = false;
    expectError(await mobile('not-a-token'), 401, 'IDP_TOKEN_INVALID');
    expect((await mobile(await mobileToken())).status).toBe(200);
    expectError(await mobile(await mobileToken()), 429, 'RATE_LIMITED');
  });

  it('answers a HEAD of /idp/nonce with 405 (Allow: GET): no flow cookie, no point of the per-IP quota', async () => {
    const heads = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const head = await app.request('/api/auth/customer/idp/nonce?channel=web', { method: 'HEAD' });
      heads.push({
        status: head.status,
        allow: head.headers.get('allow'),
        flowCookie: head.headers.getSetCookie().some((cookie) => cookie.startsWith('bb_idp_')),
      });
    }
    // The nonce is in a body a HEAD never gets; the sign-in the user then starts for real still has its 3 flows.
    const get = await app.request('/api/auth/customer/idp/nonce?channel=web');
    expect({ heads, getAfterHeads: get.status }).toEqual({
      heads: Array(3).fill({ status: 405, allow: 'GET', flowCookie: false }),
      getAfterHeads: 200,
    });
  });
});
