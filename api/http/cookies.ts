import type { Context } from 'koa';

type CookieOptions = NonNullable<Parameters<Context['cookies']['set']>[2]>;

/** Where the service sets its cookies: every cookie write goes through here. */
export interface CookieJar {
  set(name: string, value: string, options: CookieOptions): void;
}

/**
 * The request's cookie jar, ready for Secure cookies. TLS usually ends at the load balancer, so
 * this hop may be plain http although the browser's is not: with COOKIE_SECURE the cookies are
 * marked Secure anyway (the cookie library would otherwise refuse to set them, a 500).
 *
 * A cookie with a lifetime also carries Max-Age (RFC 6265 §5.2.2: counted on the browser's own
 * clock from receipt, and winning over Expires), and a cleared cookie Max-Age=0. The cookie library
 * writes only Expires, the server's clock plus the lifetime: a browser whose clock runs fast by more
 * than that lifetime would drop the cookie as it arrives. Expires stays for browsers without Max-Age.
 */
export function cookieJar(ctx: Context, cookieSecure: boolean): CookieJar {
  if (cookieSecure) ctx.cookies.secure = true;
  return {
    set(name, value, options) {
      ctx.cookies.set(name, value, options);
      const seconds = maxAgeSeconds(value, options);
      if (seconds !== undefined) addMaxAge(ctx, name, seconds);
    },
  };
}

/** The cookie's lifetime in whole seconds: 0 when cleared, none for a cookie without one. */
function maxAgeSeconds(value: string, options: CookieOptions): number | undefined {
  // The library clears a cookie set to '' (Expires in 1970), whatever maxAge it was given.
  if (!value) return 0;
  const { maxAge } = options;
  // Rounded up: a lifetime under a second stays a lifetime, not a deletion.
  return typeof maxAge === 'number' && maxAge > 0 ? Math.ceil(maxAge / 1000) : undefined;
}

/** Adds Max-Age next to Expires on the Set-Cookie line the library has just written for `name`. */
function addMaxAge(ctx: Context, name: string, seconds: number): void {
  const written = ctx.res.getHeader('Set-Cookie');
  const lines = written === undefined ? [] : Array.isArray(written) ? [...written] : [String(written)];
  const index = lines.findLastIndex((line) => line.startsWith(`${name}=`));
  if (index < 0) return;
  const line = lines[index]!;
  const expires = /; expires=[^;]*/.exec(line);
  lines[index] = expires
    ? `${line.slice(0, expires.index + expires[0].length)}; max-age=${seconds}${line.slice(expires.index + expires[0].length)}`
    : `${line}; max-age=${seconds}`;
  ctx.res.setHeader('Set-Cookie', lines);
}
