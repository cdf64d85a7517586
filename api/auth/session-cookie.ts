import type { Context } from 'koa';
import { Refusal } from '../http/errors.js';

/**
 * The session cookie a signed-in route of a cookie surface (dashboard, administration) needs; without
 * it the answer is 401 AUTH_REQUIRED with `signIn`, which says where to sign in.
 */
export function requiredSessionCookie(ctx: Context, cookie: string, signIn: string): string {
  const token = ctx.cookies.get(cookie);
  if (!token) throw new Refusal(401, 'AUTH_REQUIRED', signIn);
  return token;
}
