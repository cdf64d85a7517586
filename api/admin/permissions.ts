import { z } from 'zod';
import {
  ADMIN_PERMISSIONS,
  ADMIN_ROLES,
  PERMISSION_DESCRIPTIONS,
  ROLE_DESCRIPTIONS,
  ROLE_PERMISSIONS,
} from '../../domain/permissions.js';
import type { AppContext } from '../app.js';
import { currentAdmin } from '../auth/admin-auth.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { Permission, Role } from './schemas.js';

const PermissionsResponse = z.object({
  success: z.literal(true),
  data: z.object({
    permissions: z.array(z.object({ name: Permission, description: z.string() })),
    roles: z.array(z.object({ name: Role, description: z.string(), permissions: z.array(Permission) })),
    mine: z.object({
      role: Role,
      grantedPermissions: z.array(Permission),
      permissions: z
        .array(Permission)
        .meta({ description: "the caller's role permissions plus the granted ones" }),
    }),
  }),
});

/** GET /permissions: the catalogue of permissions and roles, and the caller's own. */
export function registerPermissionRoutes(surface: Surface, _context: AppContext): void {
  surface.route({
    method: 'get',
    path: '/permissions',
    operationId: 'adminPermissions',
    summary: "Administration permissions, roles, and the signed-in administrator's own",
    description:
      'Any signed-in administrator. An administrator holds the permissions of their role plus any granted one by one. ' +
      'Roles: SUPER_ADMIN (every permission), ADMIN (all but admins.manage), SUPPORT (companies.view, tickets.view, ' +
      'tickets.manage, platform.view, incidents.manage), ANALYST (companies.view, analytics.view, platform.view, ' +
      'waitlist.view). A route that needs a permission the caller lacks answers 403 PERMISSION_DENIED with ' +
      'details.permission.',
    tags: ['Administration: administrators'],
    security: 'administrator',
    responses: {
      200: { description: "The catalogue and the caller's permissions", schema: PermissionsResponse },
      ...errorResponses(401, 403),
    },
    handler: async (ctx) => {
      const admin = currentAdmin(ctx);
      ctx.body = {
        success: true,
        data: {
          permissions: ADMIN_PERMISSIONS.map((name) => ({
            name,
            description: PERMISSION_DESCRIPTIONS[name],
          })),
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
        },
      };
    },
  });
}
