import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { commandOf, takeDispatchAction, tripDispatchView } from '../use-cases/trip-dispatch.js';
import { DispatchBody, dispatchErrorCode, docs } from './dispatch.openapi.js';
import { authorize, requireActiveCompany, requireRole } from './guards.js';

/** OWNER, ADMIN and DISPATCHER act in the operations room; every dashboard role reads it. */
export const DISPATCH_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER'] as const;

/** GET and POST /trips/{id}/dispatch: the trip operations room. */
export function registerDispatchRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.getTripDispatch,
    method: 'get',
    path: '/trips/{id}/dispatch',
    security: 'companyStaff',
    params: IdParams,
    handler: async (ctx, { params }) => {
      const staff = authorize(ctx);
      ok(ctx, await tripDispatchView(db, staff.companyId, params.id));
    },
  });

  surface.route({
    ...docs.dispatchTripAction,
    method: 'post',
    path: '/trips/{id}/dispatch',
    security: 'companyStaff',
    params: IdParams,
    body: DispatchBody,
    errorCode: (issues, part) => (part === 'body' ? dispatchErrorCode(issues) : 'VALIDATION_FAILED'),
    handler: async (ctx, { params, body }) => {
      const staff = authorize(ctx, requireRole(...DISPATCH_ROLES), requireActiveCompany);
      const data = await takeDispatchAction(db, commandOf(staff, params.id, body, 'DASHBOARD'));
      ok(ctx, data);
    },
  });
}
