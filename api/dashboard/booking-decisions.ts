import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { journeyConfirmationClient } from '../temporal/journey-confirmation-client.js';
import { decideBooking } from '../use-cases/company-decision.js';
import { docs, StatusBody } from './booking-decisions.openapi.js';
import { authorize, requireActiveCompany, requireRole } from './guards.js';

const DECIDING_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER'] as const;

export function registerBookingDecisionRoutes(surface: Surface, context: AppContext): void {
  const deps = { db: context.db, workflow: journeyConfirmationClient(context.temporal, context.config) };

  surface.route({
    ...docs.decideBooking,
    method: 'patch',
    path: '/bookings/{id}/status',
    security: 'companyStaff',
    params: IdParams,
    body: StatusBody,
    handler: async (ctx, { params, body }) => {
      const staff = authorize(ctx, requireRole(...DECIDING_ROLES), requireActiveCompany);
      ok(ctx, await decideBooking(deps, staff, params.id, body));
    },
  });
}
