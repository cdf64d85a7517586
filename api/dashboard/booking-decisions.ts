import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { journeyConfirmationClient } from '../temporal/journey-confirmation-client.js';
import { decideBooking } from '../use-cases/company-decision.js';
import { DECIDE_DESCRIPTION, DecisionResponse, StatusBody } from './booking-decisions.openapi.js';
import { authorize, requireActiveCompany, requireRole } from './guards.js';

const DECIDING_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER'] as const;

export function registerBookingDecisionRoutes(surface: Surface, context: AppContext): void {
  const deps = { db: context.db, workflow: journeyConfirmationClient(context.temporal, context.config) };

  surface.route({
    method: 'patch',
    path: '/bookings/{id}/status',
    operationId: 'decideBooking',
    summary: 'Approve or reject a journey request (PENDING_CONFIRMATION)',
    description: DECIDE_DESCRIPTION,
    tags: ['Dashboard: bookings'],
    security: 'companyStaff',
    params: IdParams,
    body: StatusBody,
    responses: {
      200: { description: 'The decision and its outcome', schema: DecisionResponse },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
    handler: async (ctx, { params, body }) => {
      const staff = authorize(ctx, requireRole(...DECIDING_ROLES), requireActiveCompany);
      ctx.body = { success: true, data: await decideBooking(deps, staff, params.id, body) };
    },
  });
}
