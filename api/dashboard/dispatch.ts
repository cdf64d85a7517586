import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { journeyConfirmationClient } from '../temporal/journey-confirmation-client.js';
import {
  commandOf,
  takeDispatchAction,
  tripDispatchView,
  type DispatchDeps,
} from '../use-cases/trip-dispatch.js';
import { DispatchBody, dispatchErrorCode, docs } from './dispatch.openapi.js';
import type { StaffPrincipal } from '../auth/staff-session.js';
import { Refusal } from '../http/errors.js';
import {
  actingMember,
  allow,
  authorize,
  requireActiveCompany,
  requireRole,
  type StaffGuard,
} from './guards.js';
import { companyRecordRoute, staffRoute } from './staff-route.js';

/** OWNER, ADMIN and DISPATCHER act in the operations room; every dashboard role reads it. */
export const DISPATCH_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER'] as const;

/** Acting in the operations room: DISPATCH_ROLES of an active company. */
const DISPATCH_GUARDS: StaffGuard[] = [requireRole(...DISPATCH_ROLES), requireActiveCompany];
export const dispatcher = allow(...DISPATCH_GUARDS);

/**
 * Whether `dispatcher` would let this session act now: the actions the view and the answers
 * offer (allowed_actions) are none for a session whose POST /dispatch would be refused.
 */
export function mayDispatch(staff: StaffPrincipal): boolean {
  try {
    for (const guard of DISPATCH_GUARDS) guard(staff);
    return true;
  } catch (error) {
    if (error instanceof Refusal) return false;
    throw error;
  }
}

/** A dispatcher and who acts, checked again under the company lock (db/writes/acting-member.ts). */
export const dispatchingMember = (staff: StaffPrincipal) => ({
  ...staff,
  member: actingMember(staff, DISPATCH_ROLES),
});

/** What a dispatch action needs: a CANCEL tells the confirmation workflows it ended (trip-dispatch.ts). */
export const dispatchDeps = (context: AppContext): DispatchDeps => ({
  db: context.db,
  workflow: journeyConfirmationClient(context.temporal, context.config),
  logger: context.logger,
});

/** GET and POST /trips/{id}/dispatch: the trip operations room. */
export function registerDispatchRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;
  const deps = dispatchDeps(context);
  const dispatchRoom = { ...docs.getTripDispatch, path: '/trips/{id}/dispatch' };
  companyRecordRoute(surface, authorize, dispatchRoom, (companyId, tripId, staff) =>
    tripDispatchView(db, companyId, tripId, mayDispatch(staff)),
  );

  staffRoute(surface, dispatcher, {
    ...docs.dispatchTripAction,
    method: 'post',
    path: '/trips/{id}/dispatch',
    params: IdParams,
    body: DispatchBody,
    errorCode: (issues, part) => (part === 'body' ? dispatchErrorCode(issues) : 'VALIDATION_FAILED'),
    handler: async (ctx, staff, { params, body }) => {
      const data = await takeDispatchAction(
        deps,
        commandOf(dispatchingMember(staff), params.id, body, 'DASHBOARD'),
        mayDispatch(staff),
      );
      ok(ctx, data);
    },
  });
}
