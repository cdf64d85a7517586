import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { cashShiftClient } from '../temporal/cash-shift-client.js';
import { commandShift, shiftCsv, shiftDetail, shiftOverview } from '../use-cases/cash-shifts.js';
import { docs, ShiftCommand, ShiftsQuery } from './cash-shifts.openapi.js';
import { authorize, MANAGEMENT_ROLES, requireActiveCompany, requireRole } from './guards.js';

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

  surface.route({
    ...docs.listCashShifts,
    method: 'get',
    path: '/payments/cash-shifts',
    security: 'companyStaff',
    query: ShiftsQuery,
    handler: async (ctx, { query }) => {
      const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES));
      const { current, shifts, total } = await shiftOverview(deps, staff.companyId, query);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = {
        success: true,
        data: { current, shifts },
        pagination: { limit: query.limit, offset: query.offset, total },
      };
    },
  });

  surface.route({
    ...docs.commandCashShift,
    method: 'post',
    path: '/payments/cash-shifts',
    security: 'companyStaff',
    body: ShiftCommand,
    handler: async (ctx, { body }) => {
      const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES), requireActiveCompany);
      const shift = await commandShift(deps, staff, body);
      ctx.status = body.action === 'OPEN' ? 201 : 200;
      ok(ctx, shift);
    },
  });

  surface.route({
    ...docs.getCashShift,
    method: 'get',
    path: '/payments/cash-shifts/{id}',
    security: 'companyStaff',
    params: IdParams,
    handler: async (ctx, { params }) => {
      const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES));
      ctx.set('Cache-Control', 'private, no-store');
      ok(ctx, await shiftDetail(deps, staff.companyId, params.id));
    },
  });

  surface.route({
    ...docs.getCashShiftCsv,
    method: 'get',
    path: '/payments/cash-shifts/{id}/csv',
    security: 'companyStaff',
    params: IdParams,
    handler: async (ctx, { params }) => {
      const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES));
      const csv = await shiftCsv(deps, staff.companyId, params.id);
      ctx.set('Content-Type', 'text/csv; charset=utf-8');
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('Content-Disposition', `attachment; filename="cash-shift-${params.id}.csv"`);
      ctx.body = csv;
    },
  });
}
