import type { Context } from 'koa';
import type { z } from 'zod';
import type { Database } from '../../db/orm.js';
import type { RequestOrigin } from '../../db/writes/audit.js';
import { createRateLimiter } from '../http/rate-limit.js';
import { requestOrigin } from '../http/request-origin.js';
import type { OperationDoc, Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { emailKey } from './limits.js';

/**
 * POST /auth/login by e-mail and password, as the dashboard and the administration both declare
 * it: limited per client IP and per e-mail address, one session per browser, the new session's
 * cookies set. Each surface brings its body, its sign-in and its session cookies. The sign-in and
 * sign-out answers are documented alike on both surfaces.
 */

/** What the sign-in body carries on every surface (the dashboard adds the company to sign in to). */
export interface LoginInput {
  email: string;
  password: string;
  companyId?: string;
}

export interface PasswordLogin<SignedIn> {
  docs: OperationDoc;
  body: z.ZodType<LoginInput>;
  /** Attempts per client IP and per e-mail address over one window; the counters are named after `name`. */
  limits: { name: string; perIp: number; perEmail: number; windowMinutes: number };
  /** The session cookie: the session it still names in this browser ends when another signs in. */
  cookie: string;
  revokeByToken: (token: string) => Promise<void>;
  signIn: (body: LoginInput, origin: RequestOrigin) => Promise<SignedIn>;
  /** Sets the new session's cookies and gives the answer's data. */
  open: (ctx: Context, signedIn: SignedIn) => unknown;
}

/** What the sign-in answers on every surface; `signedIn` is the surface's own success body. */
export const loginResponses = (signedIn: z.ZodType) => ({
  200: {
    description: 'Signed in; session cookies set',
    schema: signedIn,
  },
  ...errorResponses(400, 401, 429),
});

/** What signing out of a session answers on every surface; `signedOut` is the surface's own success body. */
export const signOutResponses = (signedOut: z.ZodType) => ({
  200: {
    description: 'Signed out',
    schema: signedOut,
  },
  ...errorResponses(401, 403),
});

export function registerPasswordLoginRoute<SignedIn>(
  surface: Surface,
  db: Pick<Database, 'pool'>,
  login: PasswordLogin<SignedIn>,
): void {
  const path = '/auth/login';
  const limitEmail = passwordSignInLimits(surface, db, path, login.limits);
  surface.route({
    ...login.docs,
    method: 'post',
    path,
    security: 'public',
    csrf: false,
    body: login.body,
    handler: async (ctx, { body }) => {
      await limitEmail(ctx, body.email);
      const signedIn = await login.signIn(body, requestOrigin(ctx));
      await endBrowserSession(ctx, login.cookie, login.revokeByToken);
      ctx.body = { success: true, data: login.open(ctx, signedIn) };
    },
  });
}

/**
 * Attempts per client IP, counted before anything else runs (malformed attempts included), and
 * per e-mail address, both over one window. Returns the per-address count, which the route takes
 * once its body is read.
 */
function passwordSignInLimits(
  surface: Surface,
  db: Pick<Database, 'pool'>,
  path: string,
  rule: PasswordLogin<unknown>['limits'],
): (ctx: Context, email: string) => Promise<void> {
  const durationSeconds = rule.windowMinutes * 60;
  const ipLimit = createRateLimiter(db, { name: `${rule.name}-ip`, points: rule.perIp, durationSeconds });
  const emailLimit = createRateLimiter(db, {
    name: `${rule.name}-email`,
    points: rule.perEmail,
    durationSeconds,
  });
  surface.router.post(
    path,
    ipLimit.middleware((ctx) => ctx.ip),
  );
  return (ctx, email) => emailLimit.consume(ctx, emailKey(email));
}

/** One browser, one session: a new sign-in ends the session the browser's cookie still names. */
async function endBrowserSession(
  ctx: Context,
  cookie: string,
  revokeByToken: (token: string) => Promise<void>,
): Promise<void> {
  const previous = ctx.cookies.get(cookie);
  if (previous) await revokeByToken(previous);
}
