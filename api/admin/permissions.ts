import {
  ADMIN_PERMISSIONS,
  ADMIN_ROLES,
  PERMISSION_DESCRIPTIONS,
  ROLE_DESCRIPTIONS,
  ROLE_PERMISSIONS,
} from '../../domain/permissions.js';
import type { AppContext } from '../app.js';
import { currentAdmin, type AdminPrincipal } from '../auth/admin-auth.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { docs } from './permissions.openapi.js';

/** GET /permissions: the catalogue of permissions and roles, and the caller's own. */
export function registerPermissionRoutes(surface: Surface, _context: AppContext): void {
  surface.route({
    ...docs.adminPermissions,
    method: 'get',
    path: '/permissions',
    security: 'administrator',
    handler: async (ctx) => ok(ctx, permissionCatalogue(currentAdmin(ctx))),
  });
}

/** The permissions and roles there are, and what the administrator holds of them. */
function permissionCatalogue(admin: AdminPrincipal) {
  return {
    permissions: ADMIN_PERMISSIONS.map((name) => ({ name, description: PERMISSION_DESCRIPTIONS[name] })),
    roles: ADMIN_ROLES.map((name) => ({
      name,
      description: ROLE_DESCRIPTIONS[name],
      permissions: [...ROLE_PERMISSIONS[name]],
    })),
    mine: {
      role: admin.role,
      grantedPermissions: admin.grantedPermissions.filter((name) =>
        (ADMIN_PERMISSIONS as readonly string[]).includes(name),
      ),
      permissions: admin.permissions,
    },
  };
}
