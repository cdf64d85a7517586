import { z } from 'zod';
import { Permission, Role } from './schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/** The OpenAPI side of the permission catalogue read (api/admin/permissions.ts). */

const PermissionsResponse = successWith(
  z.object({
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
);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Administration: administrators'], {
  adminPermissions: {
    summary: "Administration permissions, roles, and the signed-in administrator's own",
    description:
      'Any signed-in administrator. An administrator holds the permissions of their role plus any granted one by one. ' +
      'Roles: SUPER_ADMIN (every permission), ADMIN (all but admins.manage), SUPPORT (companies.view, tickets.view, ' +
      'tickets.manage, platform.view, incidents.manage), ANALYST (companies.view, analytics.view, platform.view, ' +
      'waitlist.view). A route that needs a permission the caller lacks answers 403 PERMISSION_DENIED with ' +
      'details.permission.',
    responses: answers(200, "The catalogue and the caller's permissions", PermissionsResponse, [401, 403]),
  },
});
