import type { Context } from 'koa';

/**
 * The request's cookie jar, ready for Secure cookies. TLS usually ends at the load balancer, so
 * this hop may be plain http although the browser's is not: with COOKIE_SECURE the cookies are
 * marked Secure anyway (the cookie library would otherwise refuse to set them, a 500).
 */
export function cookieJar(ctx: Context, cookieSecure: boolean): Context['cookies'] {
  if (cookieSecure) ctx.cookies.secure = true;
  return ctx.cookies;
}
