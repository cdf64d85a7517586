import type { AppContext } from '../app.js';
import { guardSharePaths, registerShareIssuerRoutes } from '../documents/share-routes.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { documentSharing } from '../use-cases/document-sharing.js';

/**
 * The company dashboard's share routes (/dashboard/api/document-shares and .../revoke): the same
 * rules as the customer surface's, for a dashboard browser whose bb_staff cookie is scoped to
 * /dashboard and so never reaches /api. The issuer is the signed-in company user.
 */
export function registerDashboardDocumentShareRoutes(surface: Surface, context: AppContext): void {
  guardSharePaths(surface, context);
  registerShareIssuerRoutes(surface, documentSharing(context), {
    security: 'companyStaff',
    operationSuffix: 'FromDashboard',
    issuerOf: (ctx) => {
      const staff = ctx.state.staff;
      if (!staff) throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to the company dashboard');
      const { staffUserId, companyId, role, sessionId, membershipId } = staff;
      return { kind: 'STAFF', staffUserId, companyId, role, sessionId, membershipId };
    },
  });
}
