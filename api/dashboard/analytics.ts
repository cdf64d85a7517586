import type { Context } from 'koa';
import type { z } from 'zod';
import { damascusDate } from '../../domain/time.js';
import type { AppContext } from '../app.js';
import { guardedRoute } from '../http/guarded-route.js';
import { minuteLimiter } from '../http/rate-limit.js';
import { ok } from '../http/respond.js';
import type { Infer, Surface } from '../http/route.js';
import { advancedAnalytics } from '../use-cases/advanced-analytics.js';
import { analyticsSnapshot } from '../use-cases/analytics.js';
import { AdvancedQuery, AnalyticsQuery, docs } from './analytics.openapi.js';
import { authorize, MANAGEMENT_ROLES, requireRole } from './guards.js';

/** What an analytics read may see: the caller's company and the Damascus day. */
interface AllowedRead {
  companyId: string;
  today: string;
}

/** GET /analytics and /analytics/advanced: OWNER and ADMIN only, one company user's requests limited per minute. */
export function registerAnalyticsRoutes(surface: Surface, { db, config }: AppContext): void {
  const limiter = minuteLimiter(db, 'dashboard-analytics', config.ANALYTICS_RATE_LIMIT_PER_MINUTE);
  /** The caller's company and the Damascus day, once the role and the per-user limit allow the read. */
  const allowedRead = async (ctx: Context): Promise<AllowedRead> => {
    const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES));
    await limiter.consume(ctx, staff.staffUserId);
    return { companyId: staff.companyId, today: damascusDate(new Date()) };
  };

  /** GET `path`: the figures `read` takes from the allowed company, day and the route's query. */
  const analyticsRoute = <Q extends z.ZodType>(
    doc: (typeof docs)[keyof typeof docs],
    path: string,
    query: Q,
    read: (allowed: AllowedRead, query: Infer<Q>) => Promise<unknown>,
  ) =>
    guardedRoute(surface, 'companyStaff', allowedRead, {
      ...doc,
      method: 'get',
      path,
      query,
      handler: async (ctx, allowed, input) => ok(ctx, await read(allowed, input.query)),
    });

  analyticsRoute(docs.getAnalytics, '/analytics', AnalyticsQuery, (allowed, query) =>
    analyticsSnapshot(db, { ...allowed, period: query.period }),
  );
  analyticsRoute(docs.getAdvancedAnalytics, '/analytics/advanced', AdvancedQuery, (allowed, query) =>
    advancedAnalytics(db, { ...allowed, days: query.days }),
  );
}
