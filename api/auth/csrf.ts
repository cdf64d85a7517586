import type { Context } from 'koa';
import { Refusal } from '../http/errors.js';
import { hashSecret, sameSecret } from './secrets.js';

/**
 * A write of a server-side session (dashboard, administration): the `header` must carry the
 * session's CSRF secret, whose hash is kept with the session; else 403 CSRF_TOKEN_INVALID.
 */
export function checkSessionCsrf(ctx: Context, header: string, csrfTokenHash: string, message: string): void {
  const presented = ctx.get(header);
  if (!presented || !sameSecret(hashSecret(presented), csrfTokenHash)) {
    throw new Refusal(403, 'CSRF_TOKEN_INVALID', message);
  }
}
