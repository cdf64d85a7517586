import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { changeTripLegacy, runBulkCommand } from '../use-cases/trip-commands.js';
import { DISPATCH_ROLES } from './dispatch.js';
import { authorize, requireActiveCompany, requireRole } from './guards.js';
import { BulkBody, docs, LegacyTripBody, tripCommandErrorCode } from './trip-commands.openapi.js';

const bodyCode = (issues: Parameters<typeof tripCommandErrorCode>[0], part: string) =>
  part === 'body' ? tripCommandErrorCode(issues) : 'VALIDATION_FAILED';

/** PATCH /trips/{id} (legacy) and POST /trips/bulk: trip actions through the dispatch transition. */
export function registerTripCommandRoutes(surface: Surface, { db, logger }: AppContext): void {
  surface.route({
    ...docs.bulkTripCommand,
    method: 'post',
    path: '/trips/bulk',
    security: 'companyStaff',
    body: BulkBody,
    errorCode: bodyCode,
    handler: async (ctx, { body }) => {
      const staff = authorize(ctx, requireRole(...DISPATCH_ROLES), requireActiveCompany);
      ok(ctx, await runBulkCommand(db, logger, staff, body, ctx.state.requestId));
    },
  });

  surface.route({
    ...docs.updateTripLegacy,
    method: 'patch',
    path: '/trips/{id}',
    security: 'companyStaff',
    params: IdParams,
    body: LegacyTripBody,
    errorCode: bodyCode,
    handler: async (ctx, { params, body }) => {
      const staff = authorize(ctx, requireRole(...DISPATCH_ROLES), requireActiveCompany);
      ok(ctx, await changeTripLegacy(db, staff, params.id, body));
    },
  });
}
