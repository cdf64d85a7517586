import type { AppContext } from '../app.js';
import { sendPdf } from '../documents/send.js';
import { minuteLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { exportReport } from '../use-cases/reports.js';
import { authorize } from './guards.js';
import { staffRoute } from './staff-route.js';
import { docs, ReportQuery } from './reports.openapi.js';

/** GET /reports: a company report as CSV, JSON or PDF (the roles per type are domain/reports.ts REPORT_ROLES). */
export function registerReportRoutes(surface: Surface, context: AppContext): void {
  const limiter = minuteLimiter(context.db, 'dashboard-reports', context.config.REPORT_RATE_LIMIT_PER_MINUTE);

  staffRoute(surface, authorize, {
    ...docs.exportReport,
    method: 'get',
    head: false,
    path: '/reports',
    query: ReportQuery,
    handler: async (ctx, staff, { query }) => {
      await limiter.consume(ctx, staff.staffUserId);
      const answer = await exportReport(context, {
        companyId: staff.companyId,
        staff: { staffUserId: staff.staffUserId, role: staff.role },
        type: query.type,
        format: query.format,
        locale: query.locale,
        from: query.fromDate,
        to: query.toDate,
        requestId: ctx.state.requestId,
      });
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
