import type { Context } from 'koa';
import { damascusDate } from '../../domain/time.js';
import type { AppContext } from '../app.js';
import { createRateLimiter } from '../http/rate-limit.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { advancedAnalytics } from '../use-cases/advanced-analytics.js';
import { analyticsSnapshot } from '../use-cases/analytics.js';
import { AdvancedQuery, AnalyticsQuery, docs } from './analytics.openapi.js';
import { authorize, MANAGEMENT_ROLES, requireRole } from './guards.js';

/** GET /analytics and /analytics/advanced: OWNER and ADMIN only, one company user's requests limited per minute. */
export function registerAnalyticsRoutes(surface: Surface, { db, config }: AppContext): void {
  const limiter = createRateLimiter(db, {
    name: 'dashboard-analytics',
    points: config.ANALYTICS_RATE_LIMIT_PER_MINUTE,
    durationSeconds: 60,
  });
  /** The caller's company and the Damascus day, once the role and the per-user limit allow the read. */
  const allowedRead = async (ctx: Context) => {
    const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES));
    await limiter.consume(ctx, staff.staffUserId);
    return { companyId: staff.companyId, today: damascusDate(new Date()) };
  };

  surface.route({
    ...docs.getAnalytics,
    method: 'get',
    path: '/analytics',
    security: 'companyStaff',
    query: AnalyticsQuery,
    handler: async (ctx, { query }) => {
      const read = await allowedRead(ctx);
      ok(ctx, await analyticsSnapshot(db, { ...read, period: query.period }));
    },
  });

  surface.route({
    ...docs.getAdvancedAnalytics,
    method: 'get',
    path: '/analytics/advanced',
    security: 'companyStaff',
    query: AdvancedQuery,
    handler: async (ctx, { query }) => {
      const read = await allowedRead(ctx);
      ok(ctx, await advancedAnalytics(db, { ...read, days: query.days }));
    },
  });
}
