import type { Context } from 'koa';
import type { z } from 'zod';
import type { Database } from '../../db/orm.js';
import type { RequestOrigin } from '../../db/writes/audit.js';
import { clientKey } from '../http/client-address.js';
import { Refusal } from '../http/errors.js';
import {
  type CountedPoint,
  createFailureLimiter,
  createRateLimiter,
  type FailureLimiter,
} from '../http/rate-limit.js';
import { requestOrigin } from '../http/request-origin.js';
import type { OperationDoc, Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { emailKey } from './limits.js';
import { ok } from '../http/respond.js';

/**
 * POST /auth/login by e-mail and password, as the dashboard, the administration and the driver app
 * declare it: limited per client IP and per e-mail address, one session per browser, the new
 * session's cookies set (the driver app's token is answered instead). Each surface brings its body, its sign-in and its session cookies. The sign-in and
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
  /**
   * Attempts per client IP, and failed attempts per e-mail address from one client IP, over one
   * window. `name` counts the attempts per IP; the failures per e-mail and IP count under `accountName`
   * (default `name`), which surfaces signing in the same accounts share so that each does not add
   * its own guesses at one password.
   */
  limits: { name: string; accountName?: string; perIp: number; perEmail: number; windowMinutes: number };
  /**
   * The session cookie: the session it still names in this browser ends when another signs in.
   * Absent where the session travels as a bearer token (the driver app), which sets no cookie.
   */
  cookie?: string;
  revokeByToken?: (token: string) => Promise<void>;
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
  const { giveBackIpPoint, failures } = passwordSignInLimits(surface, db, path, login.limits);
  surface.route({
    ...login.docs,
    method: 'post',
    path,
    security: 'public',
    csrf: false,
    body: login.body,
    handler: async (ctx, { body }) => {
      const key = `${emailKey(body.email)}|${clientKey(ctx)}`;
      // Attempts of one e-mail from one IP take turns, so only wrong passwords count, also when
      // sign-ins arrive together; an attempt that ends in anything but 401 or success counts nothing.
      const signedIn = await failures.judge(
        ctx,
        [key],
        () => login.signIn(body, requestOrigin(ctx)),
        (error) => error instanceof Refusal && error.status === 401,
      );
      // The attempt was counted against the IP before anything ran; a success gives it back.
      await giveBackIpPoint(ctx);
      if (login.cookie && login.revokeByToken)
        await endBrowserSession(ctx, login.cookie, login.revokeByToken);
      ok(ctx, login.open(ctx, signedIn));
    },
  });
}

/**
 * Attempts per client IP, counted before anything else runs (malformed attempts included, so
 * attempts sent together are limited too), and failures per e-mail address from one client IP, both
 * over one window: successful sign-ins never count (the route gives the IP's point back), so an
 * office behind one address signs in all its staff, and guesses from elsewhere cannot lock an account
 * out. The point goes back only to the window it was counted in: a sign-in that outlasts its window
 * gives the next one nothing. Returns the failures and the give-back, which the route uses once its
 * body is read.
 */
function passwordSignInLimits(
  surface: Surface,
  db: Pick<Database, 'pool'>,
  path: string,
  rule: PasswordLogin<unknown>['limits'],
): { giveBackIpPoint: (ctx: Context) => Promise<void>; failures: FailureLimiter } {
  const durationSeconds = rule.windowMinutes * 60;
  const ipLimit = createRateLimiter(
    db,
    { name: `${rule.name}-ip`, points: rule.perIp, durationSeconds },
    { givesBack: true },
  );
  const failures = createFailureLimiter(db, [
    {
      name: `${rule.accountName ?? rule.name}-email-failures`,
      points: rule.perEmail,
      durationSeconds,
      successForgets: true,
    },
  ]);
  const counted = new WeakMap<Context, CountedPoint>();
  surface.router.post(path, async (ctx, next) => {
    counted.set(ctx, await ipLimit.consumeRefundable(ctx, clientKey(ctx)));
    await next();
  });
  const giveBackIpPoint = async (ctx: Context) => {
    const point = counted.get(ctx);
    // The session is open by now: a give-back the database cannot take leaves the point counted (one
    // attempt fewer for the IP in that window, never one more) and is logged, not answered.
    if (point) await ipLimit.refund(point).catch((failure: unknown) => ctx.app.emit('error', failure, ctx));
  };
  return { giveBackIpPoint, failures };
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
