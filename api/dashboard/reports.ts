import type { Context } from 'koa';
import type { z } from 'zod';
import { reportStreamsPerProcess } from '../../config/deployment.js';
import { mayExportAny } from '../../domain/reports.js';
import type { AppContext } from '../app.js';
import type { StaffPrincipal } from '../auth/staff-session.js';
import { sendPdf } from '../documents/send.js';
import { minuteLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { streamSlots } from '../use-cases/report-streams.js';
import { exportReport, refuseReport, type ReportAsk, type ReportContext } from '../use-cases/reports.js';
import { authorize } from './guards.js';
import { staffRoute } from './staff-route.js';
import { docs, ReportQuery } from './reports.openapi.js';

/** The report a company user asks for with a valid query. */
const askOf = (ctx: Context, staff: StaffPrincipal, query: z.output<typeof ReportQuery>): ReportAsk => ({
  companyId: staff.companyId,
  staff: { staffUserId: staff.staffUserId, role: staff.role },
  type: query.type,
  format: query.format,
  locale: query.locale,
  from: query.fromDate,
  to: query.toDate,
  requestId: ctx.state.requestId,
});

/** GET /reports: a company report as CSV, JSON or PDF (the roles per type are domain/reports.ts REPORT_ROLES). */
export function registerReportRoutes(surface: Surface, context: AppContext): void {
  const limiter = minuteLimiter(context.db, 'dashboard-reports', context.config.REPORT_RATE_LIMIT_PER_MINUTE);
  // The CSV and JSON streams this process serves at once, each holding a pooled connection.
  const reports: ReportContext = {
    ...context,
    reportStreams: streamSlots(reportStreamsPerProcess(context.config)),
  };

  /**
   * The route's guard: a role that may export no report at all (STAFF) gets its 403 before the query
   * is read, whatever it sends. Its request counts against the limit and is recorded `unauthorized`
   * as any refused role's is (refuseReport), when its query is one the route would read.
   */
  const exporter = async (ctx: Context): Promise<StaffPrincipal> => {
    const staff = authorize(ctx);
    if (mayExportAny(staff.role)) return staff;
    await limiter.consume(ctx, staff.staffUserId);
    const query = ReportQuery.safeParse(ctx.query);
    const ask = query.success ? askOf(ctx, staff, query.data) : null;
    return refuseReport(context, staff.role, ask && { ...ask, requestedBy: staff.staffUserId });
  };

  staffRoute(surface, exporter, {
    ...docs.exportReport,
    method: 'get',
    head: false,
    path: '/reports',
    query: ReportQuery,
    handler: async (ctx, staff, { query }) => {
      await limiter.consume(ctx, staff.staffUserId);
      const answer = await exportReport(reports, askOf(ctx, staff, query));
      ctx.set('X-Report-Id', answer.exportId);
      ctx.set('X-Report-State', answer.state);
      if (answer.kind === 'pdf') {
        ctx.set('X-Report-Rows', String(answer.rowCount));
        sendPdf(ctx, answer.rendered, { filename: answer.filename, disposition: 'attachment' });
        return;
      }
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      if (query.format === 'csv') ctx.set('Content-Disposition', `attachment; filename="${answer.filename}"`);
      ctx.type = answer.contentType;
      ctx.body = answer.body;
    },
  });
}
