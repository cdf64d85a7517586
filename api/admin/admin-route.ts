import type { Context } from 'koa';
import type { AuditActor } from '../../db/writes/audit.js';
import type { AdminPermission } from '../../domain/permissions.js';
import { adminAuditActor, requirePermission, type AdminPrincipal } from '../auth/admin-auth.js';
import { guardedRouteDeclarer } from '../http/guarded-route.js';

/**
 * How the administration's route modules declare a route that needs one permission. The route is
 * `administrator` and its handler starts by checking that the signed-in administrator holds the
 * permission (else 403 PERMISSION_DENIED naming it); `adminRoute` does both, so a declaration names
 * its permission once and its handler receives the administrator it let through. Input is
 * validated before the check runs, as for any route (api/http/route.ts).
 */

/** The administrator a route let through, and who they are in the audit rows the route writes. */
export interface ActingAdmin {
  admin: AdminPrincipal;
  audit: AuditActor & { actorId: string };
}

/**
 * adminRoute(surface, permission, spec): an `administrator` route whose handler runs for an
 * administrator holding `permission`.
 */
export const adminRoute = guardedRouteDeclarer('administrator', actingAdmin);

/** The current administrator when they hold `permission` (else 403 PERMISSION_DENIED). */
function actingAdmin(ctx: Context, permission: AdminPermission): ActingAdmin {
  const admin = requirePermission(ctx, permission);
  return { admin, audit: { ...adminAuditActor(ctx), actorId: admin.adminId } };
}
