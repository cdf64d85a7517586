import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { journeyConfirmationClient } from '../temporal/journey-confirmation-client.js';
import { decideBooking, DECIDING_ROLES } from '../use-cases/company-decision.js';
import { docs, StatusBody } from './booking-decisions.openapi.js';
import { allow, requireActiveCompany, requireRole } from './guards.js';
import { staffRoute } from './staff-route.js';

export function registerBookingDecisionRoutes(surface: Surface, context: AppContext): void {
  const deps = {
    db: context.db,
    workflow: journeyConfirmationClient(context.temporal, context.config),
    signing: { privateKeyPem: context.config.SIGNING_PRIVATE_KEY_PEM, logger: context.logger },
    logger: context.logger,
  };

  staffRoute(surface, allow(requireRole(...DECIDING_ROLES), requireActiveCompany), {
    ...docs.decideBooking,
    method: 'patch',
    path: '/bookings/{id}/status',
    params: IdParams,
    body: StatusBody,
    handler: async (ctx, staff, { params, body }) => {
      ok(ctx, await decideBooking(deps, staff, params.id, body));
    },
  });
}
