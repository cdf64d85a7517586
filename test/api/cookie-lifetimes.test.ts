import { describe, expect, it } from 'vitest';
import type { Config } from '../../config/index.js';
import { createCompany } from '../support/factories.js';
import { useFakeIdp } from '../support/fakes/jwks.js';
import { useTestApp, type TestResponse } from '../support/harness.js';
import { acceptShare, NO_SHARE_IP_LIMIT, viewShareOfNewBooking } from '../support/document-shares.js';
import { createStaffMember, staffLogin, STAFF_PASSWORD } from '../support/staff.js';
import { ADMIN_PASSWORD, createAdmin } from './admin/helpers.js';

/**
 * Cookie lifetimes are counted on the browser's clock. A browser keeps a Set-Cookie as RFC 6265
 * §5.2.2 and §5.3 say: Max-Age, when present, counts from receipt on the browser's own clock and wins
 * over Expires; Expires alone is a date the browser compares with its own clock. Phones set by hand
 * often run fast (an hour, after a time-zone rule change): every cookie with a lifetime carries
 * Max-Age equal to that lifetime (Expires kept for old browsers), and a cleared cookie Max-Age=0.
 */

const SITE = 'https://www.bus.test';
const SITE_HEADERS = { Origin: SITE, 'Sec-Fetch-Site': 'same-origin' };
const HOUR_FAST = 60 * 60 * 1000;

/** What a browser whose clock reads `browserNow` keeps of a Set-Cookie: its pair, or null when expired. */
function keptBy(setCookie: string, browserNow: number): string | null {
  const [pair, ...attributes] = setCookie.split(';').map((part) => part.trim());
  const attribute = (name: string) =>
    attributes.find((a) => a.toLowerCase().startsWith(`${name}=`))?.slice(name.length + 1);
  const maxAge = attribute('max-age');
  const expires = attribute('expires');
  const until =
    maxAge !== undefined
      ? browserNow + Number(maxAge) * 1000
      : expires
        ? Date.parse(expires)
        : Number.POSITIVE_INFINITY;
  return until > browserNow ? pair! : null;
}

/** Each Set-Cookie of an answer by cookie name: its Max-Age attribute (null when absent). */
function maxAgesOf(response: TestResponse): Record<string, number | null> {
  return Object.fromEntries(
    response.headers.getSetCookie().map((header) => {
      const name = header.slice(0, header.indexOf('='));
      const maxAge = /; max-age=(\d+)(;|$)/i.exec(header)?.[1];
      return [name, maxAge === undefined ? null : Number(maxAge)];
    }),
  );
}

/** The Set-Cookie lines of an answer without their Max-Age: what the cookie library writes today. */
const withoutMaxAge = (response: TestResponse) =>
  response.headers.getSetCookie().map((header) => header.replace(/; max-age=\d+/i, ''));

describe('cookie lifetimes on the browser clock (Max-Age)', () => {
  const { idp, config } = useFakeIdp({
    SITE_ORIGIN: SITE,
    IDP_RATE_LIMIT_PER_IP: 100_000,
    IDP_RATE_LIMIT_PER_SUBJECT: 1000,
    STAFF_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_EMAIL: 10_000,
    ADMIN_LOGIN_MAX_PER_IP: 10_000,
    ...NO_SHARE_IP_LIMIT,
  } satisfies Partial<Config>);
  const app = useTestApp(config);

  /** A web identity-provider sign-in as a browser whose clock reads `browserNow` makes it. */
  async function webSignIn(browserNow: number) {
    const started = await app.request('/api/auth/customer/idp/nonce?channel=web');
    expect(started.status).toBe(200);
    const { flowId, nonce } = started.body.data;
    const flowCookie = started.headers.getSetCookie().find((c) => c.startsWith(`bb_idp_${flowId}=`))!;
    const kept = keptBy(flowCookie, browserNow);
    const signIn = await app.request('/api/auth/customer/idp/web', {
      method: 'POST',
      json: { idToken: await idp.mint({ claims: { nonce } }), flowId, returnTo: '/' },
      headers: { ...SITE_HEADERS, ...(kept ? { Cookie: kept } : {}) },
    });
    return { flowId, started, flowCookieKept: kept !== null, signIn };
  }

  it('signs in through the identity provider from a browser an hour fast, and keeps the session cookies', async () => {
    const browserNow = Date.now() + HOUR_FAST;
    const { flowId, flowCookieKept, signIn } = await webSignIn(browserNow);
    expect({ flowCookieKept, status: signIn.status, errorCode: signIn.body?.errorCode }).toEqual({
      flowCookieKept: true,
      status: 200,
      errorCode: undefined,
    });
    const kept = signIn.headers
      .getSetCookie()
      .filter((header) => keptBy(header, browserNow) !== null)
      .map((header) => header.slice(0, header.indexOf('=')));
    // The session cookies are kept for their lifetime; the flow cookie, spent, is cleared.
    expect(kept.sort()).toEqual(['bb_access', 'bb_csrf', 'bb_refresh']);
    expect(maxAgesOf(signIn)[`bb_idp_${flowId}`]).toBe(0);
    const me = await app.request('/api/auth/customer/me', {
      headers: {
        Cookie: signIn.headers
          .getSetCookie()
          .map((header) => header.split(';')[0])
          .join('; '),
      },
    });
    expect(me.body.data?.id).toEqual(expect.any(String));
  });

  it('gives the flow and traveller session cookies Max-Age equal to their lifetimes, Expires kept', async () => {
    const { flowId, started, signIn } = await webSignIn(Date.now());
    expect(maxAgesOf(started)).toEqual({ [`bb_idp_${flowId}`]: 600 });
    expect(maxAgesOf(signIn)).toEqual({
      bb_access: 900,
      bb_refresh: 30 * 86_400,
      bb_csrf: 30 * 86_400,
      [`bb_idp_${flowId}`]: 0,
    });
    for (const header of [...started.headers.getSetCookie(), ...signIn.headers.getSetCookie()]) {
      expect(header).toMatch(/; expires=[^;]+; max-age=\d+;/);
    }

    const cookie = signIn.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    const csrf = /bb_csrf=([^;]+)/.exec(cookie)![1]!;
    const logout = await app.request('/api/auth/customer/logout', {
      method: 'POST',
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
    });
    expect(logout.status).toBe(200);
    expect(maxAgesOf(logout)).toEqual({ bb_access: 0, bb_refresh: 0, bb_csrf: 0 });
    // Nothing else of the cookies changed: the attributes the library writes are as they were.
    expect(withoutMaxAge(logout).every((header) => header.includes('; expires=Thu, 01 Jan 1970'))).toBe(true);
  });

  it('gives the staff session cookies Max-Age of 12 hours, and 0 when they are cleared at logout', async () => {
    const company = await createCompany(app.db, { verified: true });
    const owner = await createStaffMember(app.db, company.id, 'OWNER');
    const browser = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
    expect(browser.response.status).toBe(200);
    expect(maxAgesOf(browser.response)).toEqual({ bb_staff: 12 * 3600, bb_staff_csrf: 12 * 3600 });
    expect(
      browser.response.headers.getSetCookie().every((header) => keptBy(header, Date.now() + HOUR_FAST)),
    ).toBe(true);
    const logout = await app.request('/dashboard/api/auth/logout', {
      method: 'POST',
      headers: browser.writeHeaders,
    });
    expect(logout.status).toBe(200);
    expect(maxAgesOf(logout)).toEqual({ bb_staff: 0, bb_staff_csrf: 0 });
  });

  it('gives the administrator session cookies Max-Age of 8 hours, and 0 when they are cleared at logout', async () => {
    const admin = await createAdmin(app.db, { role: 'SUPPORT', totpRequired: false });
    const login = await app.request('/admin/api/auth/login', {
      method: 'POST',
      json: { email: admin.email, password: ADMIN_PASSWORD },
    });
    expect(login.status, login.text).toBe(200);
    expect(maxAgesOf(login)).toEqual({ bb_admin: 8 * 3600, bb_admin_csrf: 8 * 3600 });
    expect(login.headers.getSetCookie().every((header) => keptBy(header, Date.now() + HOUR_FAST))).toBe(true);
    const cookie = login.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    const logout = await app.request('/admin/api/auth/logout', {
      method: 'POST',
      headers: { Cookie: cookie, 'X-CSRF-Token': login.body.data.csrfToken },
    });
    expect(logout.status).toBe(200);
    expect(maxAgesOf(logout)).toEqual({ bb_admin: 0, bb_admin_csrf: 0 });
  });

  it('gives the share recipient cookie Max-Age of its session’s 30 minutes', async () => {
    const created = await viewShareOfNewBooking(app);
    const accepted = await acceptShare(app, created.grantId, created.secret);
    expect(accepted.response.status, accepted.response.text).toBe(200);
    expect(maxAgesOf(accepted.response)).toEqual({ bb_share: 30 * 60 });
    expect(keptBy(accepted.setCookie, Date.now() + HOUR_FAST)).toBe(accepted.cookie);
  });
});
