import type { AdminRow } from '../../db/queries/admins.js';
import { camelFields } from '../../db/row-fields.js';
import { effectivePermissions } from '../../domain/permissions.js';
import type { AppContext } from '../app.js';
import { adminAuditActor, requirePermission } from '../auth/admin-auth.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { adminListRoute } from './list-route.js';
import { IdParams } from '../http/schemas.js';
import { createAdministrator, listAdministrators, updateAdministrator } from '../use-cases/administrators.js';
import { CreateBody, docs, ListQuery, UpdateBody } from './admins.openapi.js';

/** GET, POST /admins and PATCH /admins/{id}. */
export function registerAdminsRoutes(surface: Surface, { db }: AppContext): void {
  adminListRoute(surface, docs.adminListAdministrators, '/admins', 'admins.view', {
    query: ListQuery,
    read: (query, audit) => listAdministrators(db, audit, query),
    view: adminRecord,
  });

  surface.route({
    ...docs.adminCreateAdministrator,
    method: 'post',
    path: '/admins',
    security: 'administrator',
    body: CreateBody,
    handler: async (ctx, { body }) => {
      const actor = requirePermission(ctx, 'admins.manage');
      created(ctx, adminRecord(await createAdministrator(db, actor, adminAuditActor(ctx), body)));
    },
  });

  surface.route({
    ...docs.adminUpdateAdministrator,
    method: 'patch',
    path: '/admins/{id}',
    security: 'administrator',
    params: IdParams,
    body: UpdateBody,
    handler: async (ctx, { params, body }) => {
      const actor = requirePermission(ctx, 'admins.manage');
      const updated = await updateAdministrator(db, actor, adminAuditActor(ctx), params.id, body);
      ok(ctx, adminRecord(updated));
    },
  });
}

/** An administrator as the API answers them: the columns camelCased, the grants and what they add up to. */
function adminRecord(row: AdminRow) {
  return {
    ...camelFields(row, ['id', 'email', 'name', 'role']),
    grantedPermissions: row.permissions,
    permissions: effectivePermissions(row.role, row.permissions),
    ...camelFields(row, ['status', 'totp_required', 'totp_enabled', 'created_at', 'updated_at']),
  };
}
