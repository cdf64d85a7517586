import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../config/index.js';
import { createCity } from '../../support/factories.js';
import { startSmsVerifyFake } from '../../support/fakes/sms-verify.js';
import { useTestApp } from '../../support/harness.js';

/**
 * SPEC "Authentication": a web write sends X-CSRF-Token equal to the CSRF cookie. The value lives as
 * long as the session: a refresh keeps it, so a page or a second tab that read it earlier keeps
 * writing after another tab refreshed; only a sign-in (a new session) or a missing or malformed
 * cookie gets a new value, and a value planted before sign-in never survives it.
 */

const sms = await startSmsVerifyFake();
afterAll(() => sms.close());

let counter = 0;
const newPhone = () =>
  `+96396${String(process.pid % 1000).padStart(3, '0')}${String(++counter).padStart(4, '0')}`;

/** The value of each cookie an answer sets, by name. */
const cookiesOf = (headers: Headers): Record<string, string> =>
  Object.fromEntries(
    headers.getSetCookie().map((header) => {
      const pair = header.split(';')[0]!;
      const separator = pair.indexOf('=');
      return [pair.slice(0, separator), pair.slice(separator + 1)];
    }),
  );

/** A CSRF value of the shape the server makes (24 random bytes, base64url). */
const wellFormedCsrf = () => randomBytes(24).toString('base64url');

describe('customer CSRF cookie across refresh and sign-in', () => {
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

  /** The real web sign-in: a code by SMS, read from the provider's delivery, then verify-otp. */
  async function signIn(cookie?: string) {
    const phone = newPhone();
    await post('send-otp', { json: { phone, method: 'sms' } });
    const response = await post('verify-otp', {
      json: { phone, code: sms.lastCode(phone), method: 'sms' },
      headers: cookie ? { Cookie: cookie } : {},
    });
    expect(response.status).toBe(200);
    const cookies = cookiesOf(response.headers);
    return { access: cookies.bb_access!, refresh: cookies.bb_refresh!, csrf: cookies.bb_csrf! };
  }

  /** A cookie write (save a favourite route) as a page sends it; the answer and the rows it left. */
  async function saveFavorite(cookie: string, csrfHeader: string) {
    const [origin, dest] = [await createCity(app.db), await createCity(app.db)];
    const answer = await app.request('/api/favorites', {
      method: 'POST',
      json: { originCityId: origin.id, destCityId: dest.id },
      headers: { Cookie: cookie, 'X-CSRF-Token': csrfHeader },
    });
    const rows = await app.db.query('select id from favorites where origin_city_id = $1', [origin.id]);
    return { status: answer.status, errorCode: answer.body?.errorCode, rows: rows.length };
  }

  it('keeps the CSRF cookie at refresh: a tab holding the value read before it still writes', async () => {
    const session = await signIn();
    const refreshed = await post('refresh', {
      headers: { Cookie: `bb_refresh=${session.refresh}; bb_csrf=${session.csrf}` },
    });
    expect(refreshed.status).toBe(200);
    const cookies = cookiesOf(refreshed.headers);
    expect(cookies.bb_refresh).not.toBe(session.refresh);
    // The other tab sends the browser's cookies as the refresh left them and the CSRF value it held in memory.
    const write = await saveFavorite(
      `bb_access=${cookies.bb_access}; bb_csrf=${cookies.bb_csrf}`,
      session.csrf,
    );
    expect(write).toEqual({ status: 201, errorCode: undefined, rows: 1 });
    // The cookie was set again (its lifetime follows the session's) with the same value.
    expect(cookies.bb_csrf).toBe(session.csrf);
  });

  it('issues a new CSRF value at sign-in: a value planted before it does not survive', async () => {
    const planted = wellFormedCsrf();
    const session = await signIn(`bb_csrf=${planted}`);
    expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(session.csrf).not.toBe(planted);
    // The planted value, echoed with the browser's new cookies, is refused and writes nothing.
    const write = await saveFavorite(`bb_access=${session.access}; bb_csrf=${session.csrf}`, planted);
    expect(write).toEqual({ status: 403, errorCode: 'CSRF_TOKEN_INVALID', rows: 0 });
  });

  it('replaces a missing or malformed CSRF cookie at refresh with a new well-formed value', async () => {
    for (const sent of [undefined, 'short', `${wellFormedCsrf()}!`, `${wellFormedCsrf()}A`]) {
      const session = await signIn();
      const cookie =
        sent === undefined
          ? `bb_refresh=${session.refresh}`
          : `bb_refresh=${session.refresh}; bb_csrf=${sent}`;
      const refreshed = await post('refresh', { headers: { Cookie: cookie } });
      expect(refreshed.status).toBe(200);
      const csrf = cookiesOf(refreshed.headers).bb_csrf!;
      expect(csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect([sent, session.csrf]).not.toContain(csrf);
    }
  });
});
