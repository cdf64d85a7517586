import { analyticsPeriod } from '../../domain/platform-analytics.js';
import type { AppContext } from '../app.js';
import { adminAuditActor, requirePermission } from '../auth/admin-auth.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { platformAnalytics } from '../use-cases/platform-analytics.js';
import { AnalyticsQuery, docs } from './analytics.openapi.js';

/** GET /analytics: the platform's figures. */
export function registerAnalyticsRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.adminPlatformAnalytics,
    method: 'get',
    path: '/analytics',
    security: 'administrator',
    query: AnalyticsQuery,
    handler: async (ctx, { query }) => {
      requirePermission(ctx, 'analytics.view');
      const period = analyticsPeriod(query, new Date());
      const data = await platformAnalytics(db, adminAuditActor(ctx), {
        ...period,
        companyId: query.companyId,
      });
      ok(ctx, data);
    },
  });
}
