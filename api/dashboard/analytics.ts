import type { Context } from 'koa';
import { damascusDate } from '../../domain/time.js';
import type { AppContext } from '../app.js';
import { guardedRoute } from '../http/guarded-route.js';
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

  guardedRoute(surface, 'companyStaff', allowedRead, {
    ...docs.getAnalytics,
    method: 'get',
    path: '/analytics',
    query: AnalyticsQuery,
    handler: async (ctx, read, { query }) => {
      ok(ctx, await analyticsSnapshot(db, { ...read, period: query.period }));
    },
  });

  guardedRoute(surface, 'companyStaff', allowedRead, {
    ...docs.getAdvancedAnalytics,
    method: 'get',
    path: '/analytics/advanced',
    query: AdvancedQuery,
    handler: async (ctx, read, { query }) => {
      ok(ctx, await advancedAnalytics(db, { ...read, days: query.days }));
    },
  });
}
