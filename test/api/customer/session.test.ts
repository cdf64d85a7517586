import { decodeJwt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { createTravellerTokens } from '../../../api/auth/traveller-token.js';
import type { Config } from '../../../config/index.js';
import { startSmsVerifyFake } from '../../support/fakes/sms-verify.js';
import { useTestApp } from '../../support/harness.js';

/**
 * SPEC "Customer session": the session verify-otp opens, refresh (cookie first, body fallback,
 * rotation with reuse detection), me, and logout; and the CSRF rule on cookie writes.
 */

const sms = await startSmsVerifyFake();
afterAll(() => sms.close());

let counter = 0;
const newPhone = () =>
  `+96395${String(process.pid % 1000).padStart(3, '0')}${String(++counter).padStart(4, '0')}`;

interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
}

function parseSetCookie(header: string): SetCookie {
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  const separator = pair!.indexOf('=');
  return {
    name: pair!.slice(0, separator),
    value: pair!.slice(separator + 1),
    attributes: Object.fromEntries(
      attributes.map((attribute) => {
        const [key, ...value] = attribute.split('=');
        return [key!.toLowerCase(), value.length ? value.join('=') : true];
      }),
    ),
  };
}

const cookiesOf = (headers: Headers) =>
  Object.fromEntries(
    headers
      .getSetCookie()
      .map(parseSetCookie)
      .map((cookie) => [cookie.name, cookie]),
  );

describe('customer session', () => {
  const app = useTestApp({
    OTP_PRELAUNCH: false,
    SITE_MODE: 'live',
    SMS_VERIFY_URL: sms.url,
    SMS_VERIFY_API_KEY: sms.apiKey,
    OTP_SEND_PER_IP_PER_HOUR: 0,
    OTP_VERIFY_PER_IP_PER_HOUR: 0,
  } satisfies Partial<Config>);

  const post = (path: string, init: { json?: unknown; headers?: Record<string, string> } = {}) =>
    app.request(`/api/auth/customer/${path}`, { method: 'POST', ...init });
  const me = (headers: Record<string, string> = {}) => app.request('/api/auth/customer/me', { headers });

  /** The real flow: a code by SMS, read from the provider's delivery, then verify-otp. */
  async function signInWithCode(options: { mobile?: boolean; phone?: string } = {}) {
    const phone = options.phone ?? newPhone();
    await post('send-otp', { json: { phone, method: 'sms' } });
    const response = await post('verify-otp', {
      json: { phone, code: sms.lastCode(phone), method: 'sms' },
      headers: options.mobile ? { 'X-Client': 'mobile' } : {},
    });
    expect(response.status).toBe(200);
    return { phone, response, cookies: cookiesOf(response.headers) };
  }

  /** Why the session of an access token was ended, or null while it is live. */
  async function revokedReason(access: string): Promise<string | null> {
    const [row] = await app.db.query<{ revoked_reason: string | null }>(
      'select revoked_reason from traveller_sessions where id = $1',
      [decodeJwt(access).sid],
    );
    return row!.revoked_reason;
  }

  /** Moves the first use of the session's used refresh tokens a minute back, past the reuse grace (10 s). */
  async function usedLongAgo(access: string): Promise<void> {
    await app.db.query(
      `update refresh_tokens set used_at = used_at - interval '1 minute' where session_id = $1 and used_at is not null`,
      [decodeJwt(access).sid],
    );
  }

  /** A web session: its cookie values and the headers a browser page would send. */
  async function webSession() {
    const { cookies, response } = await signInWithCode();
    const access = cookies.bb_access!.value;
    const refresh = cookies.bb_refresh!.value;
    const csrf = cookies.bb_csrf!.value;
    return {
      user: response.body.data.user,
      access,
      refresh,
      csrf,
      /** What the browser sends to /api paths (the refresh cookie is scoped to /api/auth/customer). */
      cookie: `bb_access=${access}; bb_csrf=${csrf}`,
      /** What the browser sends to /api/auth/customer paths. */
      authCookie: `bb_access=${access}; bb_refresh=${refresh}; bb_csrf=${csrf}`,
    };
  }

  describe('verify-otp', () => {
    it('sets HttpOnly Secure SameSite session cookies and a readable CSRF cookie, with no token in the body', async () => {
      const { response, cookies } = await signInWithCode();
      expect(Object.keys(cookies).sort()).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);
      expect(cookies.bb_access!.attributes).toMatchObject({
        path: '/',
        samesite: 'lax',
        secure: true,
        httponly: true,
      });
      expect(cookies.bb_refresh!.attributes).toMatchObject({
        path: '/api/auth/customer',
        samesite: 'strict',
        secure: true,
        httponly: true,
      });
      expect(cookies.bb_csrf!.attributes).toMatchObject({ path: '/', samesite: 'lax', secure: true });
      expect(cookies.bb_csrf!.attributes.httponly).toBeUndefined();
      for (const cookie of Object.values(cookies)) expect(cookie.value.length).toBeGreaterThan(20);
      // The access cookie lives as long as its token (15 minutes); the others as long as the session.
      const accessExpiry = Date.parse(cookies.bb_access!.attributes.expires as string);
      expect(accessExpiry - Date.now()).toBeGreaterThan(890_000);
      expect(accessExpiry - Date.now()).toBeLessThan(910_000);
      expect(Date.parse(cookies.bb_refresh!.attributes.expires as string) - Date.now()).toBeGreaterThan(
        29 * 86_400_000,
      );
      expect(response.body.data).not.toHaveProperty('token');
      expect(response.body.data).not.toHaveProperty('refreshToken');
      expect(response.text).not.toContain(cookies.bb_access!.value);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
    });

    it('gives a mobile client (X-Client: mobile) its tokens in the body and no cookies', async () => {
      const { response, cookies } = await signInWithCode({ mobile: true });
      expect(cookies).toEqual({});
      const { token, refreshToken, expiresAt } = response.body.data;
      expect(typeof token).toBe('string');
      expect(typeof refreshToken).toBe('string');
      expect(Number.isInteger(expiresAt)).toBe(true);
      expect(expiresAt).toBe(decodeJwt(token).exp);
      expect(expiresAt - Date.now() / 1000).toBeGreaterThan(890);
      expect(expiresAt - Date.now() / 1000).toBeLessThan(910);
      const [session] = await app.db.query('select channel from traveller_sessions where id = $1', [
        decodeJwt(token).sid,
      ]);
      expect(session).toEqual({ channel: 'mobile' });
      expect((await me({ Authorization: `Bearer ${token}` })).body.data.id).toBe(response.body.data.user.id);
    });
  });

  describe('me', () => {
    it('answers data null with no session at all', async () => {
      const response = await me();
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true, data: null });
    });

    it('shows the traveller to the session cookie and to the bearer token', async () => {
      const session = await webSession();
      const byCookie = await me({ Cookie: session.cookie });
      expect(byCookie.status).toBe(200);
      expect(byCookie.body).toEqual({
        success: true,
        data: {
          id: session.user.id,
          phone: session.user.phone,
          name: '',
          email: null,
          gender: '',
          nationalId: '',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
      });
      const byBearer = await me({ Authorization: `Bearer ${session.access}` });
      expect(byBearer.body).toEqual(byCookie.body);
      expect(byCookie.headers.get('cache-control')).toBe('private, no-store');
    });

    it.each([
      ['a forged bearer token', { Authorization: 'Bearer forged.token.value' }],
      ['a malformed Authorization header', { Authorization: 'Basic abc' }],
      ['a garbage session cookie', { Cookie: 'bb_access=garbage' }],
    ])('answers 401 INVALID_CREDENTIAL to %s, never data null', async (_case, headers) => {
      const response = await me(headers);
      expect(response.status).toBe(401);
      expect(response.body.errorCode).toBe('INVALID_CREDENTIAL');
    });

    it('answers 401 INVALID_CREDENTIAL, never data null, once the access cookie expired while the session lives; keeps the cookies so a refresh signs the traveller back in', async () => {
      const session = await webSession();
      // What the browser sends to /me once bb_access reached its Max-Age (15 minutes).
      const onlyRefresh = `bb_refresh=${session.refresh}; bb_csrf=${session.csrf}`;
      const response = await me({ Cookie: onlyRefresh });
      expect(response.status, response.text).toBe(401);
      expect(response.body.errorCode).toBe('INVALID_CREDENTIAL');
      expect(response.headers.getSetCookie()).toEqual([]);
      // Asking changes nothing: the session lives and its refresh token is still unused.
      expect(await revokedReason(session.access)).toBeNull();
      const refreshed = await post('refresh', { headers: { Cookie: onlyRefresh } });
      expect(refreshed.status, refreshed.text).toBe(200);
      const renewed = cookiesOf(refreshed.headers);
      const back = await me({ Cookie: `bb_access=${renewed.bb_access!.value}; bb_csrf=${session.csrf}` });
      expect(back.body.data.id).toBe(session.user.id);
    });

    it.each([
      ['ended (signed out)', 'LOGOUT'],
      ['expired', null],
    ])(
      'answers 401 INVALID_CREDENTIAL and clears the cookies for a refresh cookie whose session has %s',
      async (_case, reason) => {
        const session = await webSession();
        const sid = decodeJwt(session.access).sid;
        await app.db.query(
          reason
            ? `update traveller_sessions set revoked_at = now(), revoked_reason = '${reason}' where id = $1`
            : `update traveller_sessions set expires_at = now() - interval '1 second' where id = $1`,
          [sid],
        );
        const response = await me({ Cookie: `bb_refresh=${session.refresh}; bb_csrf=${session.csrf}` });
        expect(response.status, response.text).toBe(401);
        expect(response.body.errorCode).toBe('INVALID_CREDENTIAL');
        const cleared = cookiesOf(response.headers);
        expect(Object.keys(cleared).sort()).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);
        for (const cookie of Object.values(cleared)) expect(cookie.value).toBe('');
        expect(await revokedReason(session.access)).toBe(reason);
      },
    );

    it('answers 401 INVALID_CREDENTIAL and clears the cookies for a refresh cookie it never issued', async () => {
      const response = await me({ Cookie: 'bb_refresh=not-a-token-we-issued' });
      expect(response.status).toBe(401);
      expect(response.body.errorCode).toBe('INVALID_CREDENTIAL');
      expect(Object.keys(cookiesOf(response.headers)).sort()).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);
    });

    it('answers a bearer (mobile) client as before: no cookies are read or set', async () => {
      const { token } = (await signInWithCode({ mobile: true })).response.body.data;
      const response = await me({ Authorization: `Bearer ${token}` });
      expect(response.status).toBe(200);
      expect(response.headers.getSetCookie()).toEqual([]);
    });
  });

  describe('refresh', () => {
    it('rotates the refresh token read from the cookie and sets new cookies; expiresAt is epoch seconds', async () => {
      const session = await webSession();
      const response = await post('refresh', { headers: { Cookie: session.authCookie } });
      expect(response.status).toBe(200);
      const { token, refreshToken, expiresAt } = response.body.data;
      expect(response.body).toEqual({ success: true, data: { token, refreshToken, expiresAt } });
      expect(refreshToken).not.toBe(session.refresh);
      expect(Number.isInteger(expiresAt)).toBe(true);
      expect(Math.abs(expiresAt - (Math.floor(Date.now() / 1000) + 900))).toBeLessThan(10);
      const cookies = cookiesOf(response.headers);
      expect(cookies.bb_access!.value).toBe(token);
      expect(cookies.bb_refresh!.value).toBe(refreshToken);
      expect(decodeJwt(token).sid).toBe(decodeJwt(session.access).sid);
      expect((await me({ Authorization: `Bearer ${token}` })).body.data.id).toBe(session.user.id);
    });

    it('accepts the body refreshToken when there is no cookie (legacy and mobile clients)', async () => {
      const { response } = await signInWithCode({ mobile: true });
      const refreshed = await post('refresh', {
        json: { refreshToken: response.body.data.refreshToken },
        headers: { 'X-Client': 'mobile' },
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.headers.getSetCookie()).toEqual([]);
      expect(decodeJwt(refreshed.body.data.token).sid).toBe(decodeJwt(response.body.data.token).sid);
    });

    it('prefers the cookie over the body refreshToken, which stays unused', async () => {
      const web = await webSession();
      const mobile = (await signInWithCode({ mobile: true })).response.body.data;
      const response = await post('refresh', {
        json: { refreshToken: mobile.refreshToken },
        headers: { Cookie: web.authCookie },
      });
      expect(response.status).toBe(200);
      expect(decodeJwt(response.body.data.token).sid).toBe(decodeJwt(web.access).sid);
      const bodyTokenLater = await post('refresh', { json: { refreshToken: mobile.refreshToken } });
      expect(bodyTokenLater.status).toBe(200);
      expect(decodeJwt(bodyTokenLater.body.data.token).sid).toBe(decodeJwt(mobile.token).sid);
    });

    it('treats a replayed refresh token as theft: 401 REFRESH_TOKEN_REUSED and the whole session ends', async () => {
      const session = await webSession();
      const first = await post('refresh', { json: { refreshToken: session.refresh } });
      expect(first.status).toBe(200);
      const { token: newAccess, refreshToken: newRefresh } = first.body.data;
      await usedLongAgo(session.access);

      const replay = await post('refresh', { headers: { Cookie: `bb_refresh=${session.refresh}` } });
      expect(replay.status).toBe(401);
      expect(replay.body.errorCode).toBe('REFRESH_TOKEN_REUSED');
      const cleared = cookiesOf(replay.headers);
      expect(cleared.bb_access!.value).toBe('');
      expect(cleared.bb_refresh!.value).toBe('');

      const successor = await post('refresh', { json: { refreshToken: newRefresh } });
      expect(successor.status).toBe(401);
      expect(successor.body.errorCode).toBe('INVALID_REFRESH_TOKEN');
      for (const token of [session.access, newAccess]) {
        expect((await me({ Authorization: `Bearer ${token}` })).status).toBe(401);
      }
      const [row] = await app.db.query('select revoked_reason from traveller_sessions where id = $1', [
        decodeJwt(session.access).sid,
      ]);
      expect(row).toEqual({ revoked_reason: 'REFRESH_TOKEN_REUSED' });
    });

    it('treats a reuse within the grace as theft once a replacement has been used: 401 REFRESH_TOKEN_REUSED, session ended', async () => {
      const session = await webSession();
      const first = await post('refresh', { headers: { Cookie: `bb_refresh=${session.refresh}` } });
      expect(first.status).toBe(200);
      const second = await post('refresh', {
        headers: { Cookie: `bb_refresh=${first.body.data.refreshToken}` },
      });
      expect(second.status).toBe(200);

      const replay = await post('refresh', { headers: { Cookie: `bb_refresh=${session.refresh}` } });
      expect(replay.status).toBe(401);
      expect(replay.body.errorCode).toBe('REFRESH_TOKEN_REUSED');
      expect((await me({ Authorization: `Bearer ${second.body.data.token}` })).status).toBe(401);
      expect((await post('refresh', { json: { refreshToken: second.body.data.refreshToken } })).status).toBe(
        401,
      );
      expect(await revokedReason(session.access)).toBe('REFRESH_TOKEN_REUSED');
    });

    it('treats the lost replacement of a retried refresh, presented once the client moved on with the other, as reuse: session ended', async () => {
      const { response } = await signInWithCode({ mobile: true });
      const mobile = { 'X-Client': 'mobile' };
      const refresh = (refreshToken: string) => post('refresh', { json: { refreshToken }, headers: mobile });
      const r1 = response.body.data.refreshToken as string;
      const lost = await refresh(r1); // its answer never reaches the app
      const retried = await refresh(r1); // the retry within the grace
      expect([lost.status, retried.status]).toEqual([200, 200]);
      const next = await refresh(retried.body.data.refreshToken);
      expect(next.status, next.text).toBe(200);

      const orphan = await refresh(lost.body.data.refreshToken);

      expect(orphan.status, orphan.text).toBe(401);
      expect(orphan.body.errorCode).toBe('REFRESH_TOKEN_REUSED');
      expect(await revokedReason(response.body.data.token)).toBe('REFRESH_TOKEN_REUSED');
      expect((await me({ Authorization: `Bearer ${next.body.data.token}` })).status).toBe(401);
      expect((await refresh(next.body.data.refreshToken)).body.errorCode).toBe('INVALID_REFRESH_TOKEN');
    });

    it('ends the session when the lost replacement is used first and the kept one after it', async () => {
      const { response } = await signInWithCode({ mobile: true });
      const mobile = { 'X-Client': 'mobile' };
      const refresh = (refreshToken: string) => post('refresh', { json: { refreshToken }, headers: mobile });
      const r1 = response.body.data.refreshToken as string;
      const lost = await refresh(r1);
      const kept = await refresh(r1);
      // Whoever holds the lost answer uses it first.
      const stolen = await refresh(lost.body.data.refreshToken);
      expect(stolen.status, stolen.text).toBe(200);

      const owner = await refresh(kept.body.data.refreshToken);

      expect(owner.status, owner.text).toBe(401);
      expect(owner.body.errorCode).toBe('REFRESH_TOKEN_REUSED');
      expect((await me({ Authorization: `Bearer ${stolen.body.data.token}` })).status).toBe(401);
      expect(await revokedReason(response.body.data.token)).toBe('REFRESH_TOKEN_REUSED');
    });

    it('answers 401 AUTH_REQUIRED with no refresh token and 401 INVALID_REFRESH_TOKEN for an unknown one', async () => {
      const none = await post('refresh');
      expect(none.status).toBe(401);
      expect(none.body.errorCode).toBe('AUTH_REQUIRED');
      const unknown = await post('refresh', { json: { refreshToken: 'not-a-token-we-issued' } });
      expect(unknown.status).toBe(401);
      expect(unknown.body.errorCode).toBe('INVALID_REFRESH_TOKEN');
    });

    it('refuses extra body fields with 400', async () => {
      const response = await post('refresh', { json: { refreshToken: 'x', userId: 'someone' } });
      expect(response.status).toBe(400);
      expect(response.body.errorCode).toBe('VALIDATION_FAILED');
    });
  });

  describe('refresh under concurrency', () => {
    const refreshWith = (refreshToken: string) =>
      post('refresh', { headers: { Cookie: `bb_refresh=${refreshToken}` } });

    it('answers N refreshes at once with one token without a 5xx, each with new tokens of the one session', async () => {
      for (let round = 0; round < 5; round++) {
        const session = await webSession();
        const answers = await Promise.all(Array.from({ length: 6 }, () => refreshWith(session.refresh)));
        expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
        const sid = decodeJwt(session.access).sid;
        expect(answers.map((answer) => decodeJwt(answer.body.data.token).sid)).toEqual(Array(6).fill(sid));
        expect(new Set(answers.map((answer) => answer.body.data.refreshToken)).size).toBe(6);
        expect(await revokedReason(session.access)).toBeNull();
      }
    });

    it('keeps two tabs refreshing at once signed in: both get new tokens and each works; the browser goes on with the cookie it kept', async () => {
      const session = await webSession();
      const [a, b] = await Promise.all([refreshWith(session.refresh), refreshWith(session.refresh)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      for (const answer of [a, b]) {
        expect(cookiesOf(answer.headers).bb_refresh!.value).toBe(answer.body.data.refreshToken);
        expect((await me({ Authorization: `Bearer ${answer.body.data.token}` })).status).toBe(200);
      }
      expect(await revokedReason(session.access)).toBeNull();
      // Both tabs share one cookie jar: it keeps the refresh cookie of the answer it read last.
      const next = await refreshWith(b.body.data.refreshToken);
      expect(next.status).toBe(200);
      expect((await me({ Authorization: `Bearer ${next.body.data.token}` })).status).toBe(200);
      expect((await refreshWith(next.body.data.refreshToken)).status).toBe(200);
      expect(await revokedReason(session.access)).toBeNull();
      // The replacement nobody kept has no owner once the other was used: presented, it is reuse.
      const orphan = await refreshWith(a.body.data.refreshToken);
      expect([orphan.status, orphan.body.errorCode]).toEqual([401, 'REFRESH_TOKEN_REUSED']);
      expect(await revokedReason(session.access)).toBe('REFRESH_TOKEN_REUSED');
    });

    it('answers a refresh racing logout without a 5xx, and nothing issued survives the logout', async () => {
      for (let round = 0; round < 5; round++) {
        const session = await webSession();
        const [refreshed, loggedOut] = await Promise.all([
          refreshWith(session.refresh),
          post('logout', { headers: { Cookie: session.authCookie, 'X-CSRF-Token': session.csrf } }),
        ]);
        expect(refreshed.status).toBeLessThan(500);
        expect(loggedOut.status).toBe(200);
        if (refreshed.status === 200) {
          expect(decodeJwt(refreshed.body.data.token).sid).toBe(decodeJwt(session.access).sid);
          expect((await me({ Authorization: `Bearer ${refreshed.body.data.token}` })).status).toBe(401);
          expect((await refreshWith(refreshed.body.data.refreshToken)).status).toBe(401);
        }
      }
    });
  });

  describe('logout and the CSRF rule for cookie writes', () => {
    it.each([
      ['without X-CSRF-Token', {}],
      ['with a wrong X-CSRF-Token', { 'X-CSRF-Token': 'wrong-value' }],
    ])(
      'refuses a cookie logout %s with 403 CSRF_TOKEN_INVALID and the session keeps working',
      async (_case, headers) => {
        const session = await webSession();
        const response = await post('logout', { headers: { Cookie: session.authCookie, ...headers } });
        expect(response.status).toBe(403);
        expect(response.body.errorCode).toBe('CSRF_TOKEN_INVALID');
        expect(response.headers.getSetCookie()).toEqual([]);
        expect((await me({ Cookie: session.cookie })).body.data.id).toBe(session.user.id);
        expect((await post('refresh', { json: { refreshToken: session.refresh } })).status).toBe(200);
      },
    );

    it('ends a cookie session with the CSRF header: cookies cleared, access and refresh tokens refused at once', async () => {
      const session = await webSession();
      const response = await post('logout', {
        headers: { Cookie: session.authCookie, 'X-CSRF-Token': session.csrf },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true, message: expect.any(String) });
      const cleared = cookiesOf(response.headers);
      expect(Object.keys(cleared).sort()).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);
      for (const cookie of Object.values(cleared)) {
        expect(cookie.value).toBe('');
        expect(Date.parse(cookie.attributes.expires as string)).toBeLessThan(Date.now());
      }
      expect(cleared.bb_refresh!.attributes.path).toBe('/api/auth/customer');

      const byCookie = await me({ Cookie: session.cookie });
      expect(byCookie.status).toBe(401);
      expect(byCookie.body.errorCode).toBe('INVALID_CREDENTIAL');
      expect((await me({ Authorization: `Bearer ${session.access}` })).status).toBe(401);
      const refresh = await post('refresh', { json: { refreshToken: session.refresh } });
      expect(refresh.status).toBe(401);
      expect(refresh.body.errorCode).toBe('INVALID_REFRESH_TOKEN');
    });

    it('ends a bearer (mobile) session without any CSRF header', async () => {
      const { token, refreshToken } = (await signInWithCode({ mobile: true })).response.body.data;
      const response = await post('logout', { headers: { Authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const reuse = await me({ Authorization: `Bearer ${token}` });
      expect(reuse.status).toBe(401);
      expect(reuse.body.errorCode).toBe('INVALID_CREDENTIAL');
      expect((await post('refresh', { json: { refreshToken } })).status).toBe(401);
    });

    it('ends the session named by the refresh cookie when the access cookie has already expired, with CSRF', async () => {
      const session = await webSession();
      const onlyRefresh = `bb_refresh=${session.refresh}; bb_csrf=${session.csrf}`;
      const refused = await post('logout', { headers: { Cookie: onlyRefresh } });
      expect(refused.status).toBe(403);
      expect(refused.body.errorCode).toBe('CSRF_TOKEN_INVALID');
      const response = await post('logout', {
        headers: { Cookie: onlyRefresh, 'X-CSRF-Token': session.csrf },
      });
      expect(response.status).toBe(200);
      expect((await me({ Authorization: `Bearer ${session.access}` })).status).toBe(401);
      expect((await post('refresh', { json: { refreshToken: session.refresh } })).status).toBe(401);
    });

    it('answers 200 and clears the cookies when there is no session at all', async () => {
      const response = await post('logout');
      expect(response.status).toBe(200);
      expect(Object.keys(cookiesOf(response.headers)).sort()).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);
    });

    it('ends nothing for a forged or unsigned token naming a live session, and still answers 200 clearing the cookies', async () => {
      const { token, refreshToken } = (await signInWithCode({ mobile: true })).response.body.data;
      const claims = decodeJwt(token);
      const forged = await createTravellerTokens({ ...app.config, ACCESS_TOKEN_SECRET: 'x'.repeat(48) }).sign(
        { userId: claims.sub!, sessionId: claims.sid as string, scope: { kind: 'PRODUCTION' } },
        900,
      );
      const [, payload] = token.split('.');
      const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
      for (const presented of ['forged', forged.token, unsigned]) {
        const response = await post('logout', { headers: { Authorization: `Bearer ${presented}` } });
        expect(response.status).toBe(200);
        expect(Object.keys(cookiesOf(response.headers)).sort()).toEqual([
          'bb_access',
          'bb_csrf',
          'bb_refresh',
        ]);
      }
      expect(await revokedReason(token)).toBeNull();
      expect((await me({ Authorization: `Bearer ${token}` })).status).toBe(200);
      expect(
        (await post('refresh', { json: { refreshToken }, headers: { 'X-Client': 'mobile' } })).status,
      ).toBe(200);
    });

    it('ends the session of an expired bearer token: a mobile client signing out after 15 minutes kills its refresh token', async () => {
      const { token, refreshToken } = (await signInWithCode({ mobile: true })).response.body.data;
      const claims = decodeJwt(token);
      const expired = await createTravellerTokens(app.config).sign(
        { userId: claims.sub!, sessionId: claims.sid as string, scope: { kind: 'PRODUCTION' } },
        -60,
      );
      const response = await post('logout', { headers: { Authorization: `Bearer ${expired.token}` } });
      expect(response.status).toBe(200);
      expect(await revokedReason(token)).toBe('LOGOUT');
      const refresh = await post('refresh', { json: { refreshToken }, headers: { 'X-Client': 'mobile' } });
      expect(refresh.status).toBe(401);
      expect(refresh.body.errorCode).toBe('INVALID_REFRESH_TOKEN');
    });

    it('answers 200 and clears the cookies for the access cookie of a session already ended elsewhere', async () => {
      const session = await webSession();
      await app.db.query(
        `update traveller_sessions set revoked_at = now(), revoked_reason = 'PASSWORD_RESET' where id = $1`,
        [decodeJwt(session.access).sid],
      );
      const refused = await post('logout', { headers: { Cookie: session.authCookie } });
      expect(refused.status).toBe(403);
      expect(refused.body.errorCode).toBe('CSRF_TOKEN_INVALID');
      expect(refused.headers.getSetCookie()).toEqual([]);
      const response = await post('logout', {
        headers: { Cookie: session.authCookie, 'X-CSRF-Token': session.csrf },
      });
      expect(response.status).toBe(200);
      const cleared = cookiesOf(response.headers);
      expect(Object.keys(cleared).sort()).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);
      for (const cookie of Object.values(cleared)) expect(cookie.value).toBe('');
      // Ending an ended session changes nothing: it keeps the reason it ended for.
      expect(await revokedReason(session.access)).toBe('PASSWORD_RESET');
      expect((await post('refresh', { json: { refreshToken: session.refresh } })).status).toBe(401);
    });

    it('refuses a logout body with 400 and keeps the session', async () => {
      const session = await webSession();
      const response = await post('logout', {
        json: { sessionId: 'all' },
        headers: { Cookie: session.authCookie, 'X-CSRF-Token': session.csrf },
      });
      expect(response.status).toBe(400);
      expect((await me({ Cookie: session.cookie })).status).toBe(200);
    });

    it("accepts the harness traveller's cookie write only with its CSRF pair", async () => {
      const traveller = await app.signIn();
      expect((await post('logout', { headers: { Cookie: traveller.cookie } })).status).toBe(403);
      expect((await post('logout', { headers: traveller.writeHeaders })).status).toBe(200);
      expect((await me({ Authorization: `Bearer ${traveller.token}` })).status).toBe(401);
    });
  });
});
