import { analyticsPeriod } from '../../domain/platform-analytics.js';
import type { AppContext } from '../app.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { platformAnalytics } from '../use-cases/platform-analytics.js';
import { adminRoute } from './admin-route.js';
import { AnalyticsQuery, docs } from './analytics.openapi.js';

/**
 * GET /analytics: the platform's figures. Up to 92 days of every company's bookings a request: a
 * heavy read, counted against the administrator's budget of heavy reads (`perAdmin`, shared).
 */
export function registerAnalyticsRoutes(surface: Surface, { db }: AppContext, perAdmin: RateLimiter): void {
  adminRoute(surface, 'analytics.view', {
    ...docs.adminPlatformAnalytics,
    method: 'get',
    path: '/analytics',
    query: AnalyticsQuery,
    handler: async (ctx, { admin, audit }, { query }) => {
      await perAdmin.consume(ctx, admin.adminId);
      const period = analyticsPeriod(query, new Date());
      const data = await platformAnalytics(db, audit, {
        ...period,
        companyId: query.companyId,
      });
      ok(ctx, data);
    },
  });
}
