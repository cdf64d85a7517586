import type { AppContext } from '../app.js';
import { createFailureLimiter, minuteLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { registerAdminsRoutes } from './admins.js';
import { registerAnalyticsRoutes } from './analytics.js';
import { registerAuditRoutes } from './audit.js';
import { registerAdminAuthRoutes } from './auth.js';
import { registerCompanyRoutes } from './companies.js';
import { registerOperationsRoutes } from './operations.js';
import { registerPermissionRoutes } from './permissions.js';
import { registerSecondFactorRoutes } from './security.js';
import { registerTicketRoutes } from './tickets.js';
import { registerWaitlistRoutes } from './waitlist.js';

/** Administration surface (/admin/api). Each feature module adds its routes here. */
export function registerAdminRoutes(surface: Surface, context: AppContext): void {
  const { config, db } = context;
  // Wrong second-factor codes, per administrator and client IP and per administrator, shared by
  // every route that checks one.
  const secondFactorLimit = createFailureLimiter(db, [
    {
      name: 'admin-second-factor-failures',
      points: config.ADMIN_SECOND_FACTOR_MAX_ATTEMPTS,
      durationSeconds: config.ADMIN_LOGIN_WINDOW_MINUTES * 60,
      successForgets: false,
    },
    {
      name: 'admin-second-factor-failures-per-admin',
      points: config.ADMIN_SECOND_FACTOR_MAX_PER_ADMIN,
      durationSeconds: config.ADMIN_LOGIN_WINDOW_MINUTES * 60,
      successForgets: false,
    },
  ]);
  // The heavy reads (platform analytics, the audit log) draw on one budget per administrator, so
  // ADMIN_READ_RATE_LIMIT_PER_MINUTE bounds an administrator's heavy reads together, not each route's.
  const heavyReads = minuteLimiter(db, 'admin-heavy-reads', config.ADMIN_READ_RATE_LIMIT_PER_MINUTE);
  registerAdminAuthRoutes(surface, context, secondFactorLimit);
  registerSecondFactorRoutes(surface, context, secondFactorLimit);
  registerAdminsRoutes(surface, context);
  registerPermissionRoutes(surface, context);
  registerAuditRoutes(surface, context, heavyReads);
  registerCompanyRoutes(surface, context);
  registerOperationsRoutes(surface, context);
  registerWaitlistRoutes(surface, context);
  registerAnalyticsRoutes(surface, context, heavyReads);
  registerTicketRoutes(surface, context);
}
