import type { AppContext } from '../app.js';
import { requestOrigin } from '../http/request-origin.js';
import { createdOrOk } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { cashShiftClient } from '../temporal/cash-shift-client.js';
import { commandShift, shiftCsv, shiftDetail, shiftOverview } from '../use-cases/cash-shifts.js';
import { docs, ShiftCommand, ShiftCommandHeaders, ShiftsQuery } from './cash-shifts.openapi.js';
import { actingMember, managerRead, managerWrite, MANAGEMENT_ROLES } from './guards.js';
import { companyRecordRoute, staffRoute } from './staff-route.js';

/**
 * GET/POST /payments/cash-shifts: the company's till sessions (SPEC "Cash shift"), for the owner
 * and an active manager (OWNER, ADMIN) only. Registered before /payments/{id}.
 */
export function registerCashShiftRoutes(surface: Surface, context: AppContext): void {
  const deps = {
    db: context.db,
    config: context.config,
    workflow: cashShiftClient(context.temporal, context.config),
  };

  staffRoute(surface, managerRead, {
    ...docs.listCashShifts,
    method: 'get',
    path: '/payments/cash-shifts',
    query: ShiftsQuery,
    handler: async (ctx, staff, { query }) => {
      const { current, shifts, total } = await shiftOverview(deps, staff.companyId, query);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = {
        success: true,
        data: { current, shifts },
        pagination: { limit: query.limit, offset: query.offset, total },
      };
    },
  });

  staffRoute(surface, managerWrite, {
    ...docs.commandCashShift,
    method: 'post',
    path: '/payments/cash-shifts',
    body: ShiftCommand,
    headers: ShiftCommandHeaders,
    handler: async (ctx, staff, { body, headers }) => {
      const actor = actingMember(staff, MANAGEMENT_ROLES);
      const shift = await commandShift(
        deps,
        { companyId: staff.companyId, actor, origin: requestOrigin(ctx) },
        body,
        headers['Idempotency-Key'],
      );
      createdOrOk(ctx, body.action === 'OPEN', shift);
    },
  });

  const shiftRead = { ...docs.getCashShift, path: '/payments/cash-shifts/{id}' };
  companyRecordRoute(surface, managerRead, shiftRead, (companyId, shiftId) =>
    shiftDetail(deps, companyId, shiftId),
  );

  staffRoute(surface, managerRead, {
    ...docs.getCashShiftCsv,
    method: 'get',
    path: '/payments/cash-shifts/{id}/csv',
    params: IdParams,
    handler: async (ctx, staff, { params }) => {
      const csv = await shiftCsv(deps, staff.companyId, params.id);
      ctx.set('Content-Type', 'text/csv; charset=utf-8');
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('Content-Disposition', `attachment; filename="cash-shift-${params.id}.csv"`);
      ctx.body = csv;
    },
  });
}
