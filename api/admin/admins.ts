import type { AdminRow } from '../../db/queries/admins.js';
import { effectivePermissions } from '../../domain/permissions.js';
import type { AppContext } from '../app.js';
import { adminAuditActor, requirePermission } from '../auth/admin-auth.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { createAdministrator, listAdministrators, updateAdministrator } from '../use-cases/administrators.js';
import { CreateBody, docs, ListQuery, UpdateBody } from './admins.openapi.js';

/** GET, POST /admins and PATCH /admins/{id}. */
export function registerAdminsRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.adminListAdministrators,
    method: 'get',
    path: '/admins',
    security: 'administrator',
    query: ListQuery,
    handler: async (ctx, { query }) => {
      requirePermission(ctx, 'admins.view');
      const page = await listAdministrators(db, adminAuditActor(ctx), query);
      const { limit, offset } = query;
      ctx.body = {
        success: true,
        data: { items: page.items.map(adminRecord), total: page.total, limit, offset },
      };
    },
  });

  surface.route({
    ...docs.adminCreateAdministrator,
    method: 'post',
    path: '/admins',
    security: 'administrator',
    body: CreateBody,
    handler: async (ctx, { body }) => {
      const actor = requirePermission(ctx, 'admins.manage');
      const created = await createAdministrator(db, actor, adminAuditActor(ctx), body);
      ctx.status = 201;
      ctx.body = { success: true, data: adminRecord(created) };
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
      ctx.body = { success: true, data: adminRecord(updated) };
    },
  });
}

function adminRecord(row: AdminRow) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    grantedPermissions: row.permissions,
    permissions: effectivePermissions(row.role, row.permissions),
    status: row.status,
    totpRequired: row.totp_required,
    totpEnabled: row.totp_enabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
