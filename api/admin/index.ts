import type { AppContext } from '../app.js';
import { createRateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { registerAdminsRoutes } from './admins.js';
import { registerAuditRoutes } from './audit.js';
import { registerAdminAuthRoutes } from './auth.js';
import { registerPermissionRoutes } from './permissions.js';
import { registerSecondFactorRoutes } from './security.js';

/** Administration surface (/admin/api). Each feature module adds its routes here. */
export function registerAdminRoutes(surface: Surface, context: AppContext): void {
  const { config, db } = context;
  // One counter per administrator for every route that checks a second-factor code.
  const secondFactorLimit = createRateLimiter(db, {
    name: 'admin-second-factor',
    points: config.ADMIN_SECOND_FACTOR_MAX_ATTEMPTS,
    durationSeconds: config.ADMIN_LOGIN_WINDOW_MINUTES * 60,
  });
  registerAdminAuthRoutes(surface, context, secondFactorLimit);
  registerSecondFactorRoutes(surface, context, secondFactorLimit);
  registerAdminsRoutes(surface, context);
  registerPermissionRoutes(surface, context);
  registerAuditRoutes(surface, context);
}
