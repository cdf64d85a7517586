import type { Context } from 'koa';
import type { AdminActor } from '../../db/writes/acting-admin.js';
import type { AdminPermission } from '../../domain/permissions.js';
import { adminAuditActor, requirePermission, type AdminPrincipal } from '../auth/admin-auth.js';
import { clientKey } from '../http/client-address.js';
import { guardedRouteDeclarer, type GuardOf } from '../http/guarded-route.js';
import { Refusal } from '../http/errors.js';
import type { FailureLimiter } from '../http/rate-limit.js';

/**
 * How the administration's route modules declare a route that needs one permission. The route is
 * `administrator` and its handler starts by checking that the signed-in administrator holds the
 * permission (else 403 PERMISSION_DENIED naming it); `adminRoute` does both, so a declaration names
 * its permission once and its handler receives the administrator it let through. The check runs
 * before the input is read, so a caller without the permission gets 403 whatever it sends
 * (api/http/guarded-route.ts). The routes of the
 * administrator's own session, which need no permission, are declared alike (`firstFactorRoute`).
 */

/**
 * The administrator a route let through, and who they are in the audit rows the route writes with
 * the permission the route asked: its writes check that again in their transaction
 * (db/writes/acting-admin.ts), as the account may be disabled or demoted while the request runs.
 */
export interface ActingAdmin {
  admin: AdminPrincipal;
  audit: AdminActor;
}

/**
 * adminRoute(surface, permission, spec): an `administrator` route whose handler runs for an
 * administrator holding `permission`.
 */
export const adminRoute = guardedRouteDeclarer('administrator', actingAdmin);

/** The current administrator when they hold `permission` (else 403 PERMISSION_DENIED). */
function actingAdmin(ctx: Context, permission: AdminPermission): ActingAdmin {
  const admin = requirePermission(ctx, permission);
  return { admin, audit: { ...adminAuditActor(ctx), actorId: admin.adminId, permission } };
}

/**
 * firstFactorRoute(surface, guard, spec): an `administratorFirstFactor` route, one that answers a
 * session still owing its second factor (signing in with it, setting it up, signing out), whose
 * handler gets the administrator `guard` (`currentAdmin`) let through.
 */
export const firstFactorRoute = guardedRouteDeclarer(
  'administratorFirstFactor',
  (ctx, guard: GuardOf<AdminPrincipal>) => guard(ctx),
);

/** What a wrong proof is refused with: a wrong, replayed or used code, or a wrong password. */
const WRONG_PROOF = new Set(['INVALID_SECOND_FACTOR', 'INVALID_CREDENTIALS']);

/**
 * Judges a second-factor code (or the password that sets up a first authenticator) of `admin`:
 * `limit` counts wrong ones per administrator and client IP, then per administrator across
 * addresses (api/admin/index.ts); an accepted code or a refusal for another reason (409
 * SECOND_FACTOR_NOT_PENDING...) counts nothing. Every route that checks a code shares `limit`.
 */
export function judgeCode<T>(
  limit: FailureLimiter,
  ctx: Context,
  admin: AdminPrincipal,
  attempt: () => Promise<T>,
): Promise<T> {
  return limit.judge(
    ctx,
    [`${admin.adminId}|${clientKey(ctx)}`, admin.adminId],
    attempt,
    (error) => error instanceof Refusal && WRONG_PROOF.has(error.code),
  );
}
