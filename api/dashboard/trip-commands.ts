import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { changeTripLegacy, runBulkCommand } from '../use-cases/trip-commands.js';
import { dispatchDeps, dispatcher, dispatchingMember, mayDispatch } from './dispatch.js';
import { staffRoute } from './staff-route.js';
import { BulkBody, docs, LegacyTripBody, tripCommandErrorCode } from './trip-commands.openapi.js';

const bodyCode = (issues: Parameters<typeof tripCommandErrorCode>[0], part: string) =>
  part === 'body' ? tripCommandErrorCode(issues) : 'VALIDATION_FAILED';

/** PATCH /trips/{id} (legacy) and POST /trips/bulk: trip actions through the dispatch transition. */
export function registerTripCommandRoutes(surface: Surface, context: AppContext): void {
  const deps = dispatchDeps(context);
  staffRoute(surface, dispatcher, {
    ...docs.bulkTripCommand,
    method: 'post',
    path: '/trips/bulk',
    body: BulkBody,
    errorCode: bodyCode,
    handler: async (ctx, staff, { body }) => {
      ok(ctx, await runBulkCommand(deps, dispatchingMember(staff), body, ctx.state.requestId));
    },
  });

  staffRoute(surface, dispatcher, {
    ...docs.updateTripLegacy,
    method: 'patch',
    path: '/trips/{id}',
    params: IdParams,
    body: LegacyTripBody,
    errorCode: bodyCode,
    handler: async (ctx, staff, { params, body }) => {
      ok(ctx, await changeTripLegacy(deps, dispatchingMember(staff), params.id, body, mayDispatch(staff)));
    },
  });
}
