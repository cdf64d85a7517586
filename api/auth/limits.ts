import type { Context } from 'koa';
import type { Database } from '../../db/orm.js';
import { createRateLimiter, type RateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { hashSecret } from './secrets.js';

/** At most `points` requests per hour for each key. */
export function hourlyLimiter(db: Pick<Database, 'pool'>, name: string, points: number): RateLimiter {
  return createRateLimiter(db, { name, points, durationSeconds: 3600 });
}

/** The rate-limit key of an e-mail address: a hash, so the counters hold no addresses. */
export function emailKey(email: string): string {
  return hashSecret(email.toLowerCase());
}

/**
 * The limits of an e-mail and password sign-in route (staff, administrators): attempts per client
 * IP, counted before anything else runs (malformed attempts included), and per e-mail address,
 * both over one window. Returns the per-address count, which the route takes once its body is read.
 */
export function passwordSignInLimits(
  surface: Surface,
  db: Pick<Database, 'pool'>,
  rule: { name: string; path: string; perIp: number; perEmail: number; windowMinutes: number },
): (ctx: Context, email: string) => Promise<void> {
  const durationSeconds = rule.windowMinutes * 60;
  const ipLimit = createRateLimiter(db, { name: `${rule.name}-ip`, points: rule.perIp, durationSeconds });
  const emailLimit = createRateLimiter(db, {
    name: `${rule.name}-email`,
    points: rule.perEmail,
    durationSeconds,
  });
  surface.router.post(
    rule.path,
    ipLimit.middleware((ctx) => ctx.ip),
  );
  return (ctx, email) => emailLimit.consume(ctx, emailKey(email));
}

/** One browser, one session: a new sign-in ends the session the browser's cookie still names. */
export async function endBrowserSession(
  ctx: Context,
  cookie: string,
  revokeByToken: (token: string) => Promise<void>,
): Promise<void> {
  const previous = ctx.cookies.get(cookie);
  if (previous) await revokeByToken(previous);
}
