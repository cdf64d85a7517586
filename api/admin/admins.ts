import type { AdminRow } from '../../db/queries/admins.js';
import { effectivePermissions } from '../../domain/permissions.js';
import type { AppContext } from '../app.js';
import { adminAuditActor, requirePermission } from '../auth/admin-auth.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { createAdministrator, listAdministrators, updateAdministrator } from '../use-cases/administrators.js';
import {
  CreateBody,
  describe,
  ListQuery,
  ListResponse,
  RecordResponse,
  TAGS,
  UpdateBody,
} from './admins.openapi.js';

/** GET, POST /admins and PATCH /admins/{id}. */
export function registerAdminsRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/admins',
    operationId: 'adminListAdministrators',
    summary: 'List administrators',
    description: describe.list,
    tags: TAGS,
    security: 'administrator',
    query: ListQuery,
    responses: {
      200: { description: 'A page of administrators', schema: ListResponse },
      ...errorResponses(400, 401, 403),
    },
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
    method: 'post',
    path: '/admins',
    operationId: 'adminCreateAdministrator',
    summary: 'Create an administrator',
    description: describe.create,
    tags: TAGS,
    security: 'administrator',
    body: CreateBody,
    responses: {
      201: { description: 'Created', schema: RecordResponse },
      ...errorResponses(400, 401, 403, 409),
    },
    handler: async (ctx, { body }) => {
      const actor = requirePermission(ctx, 'admins.manage');
      const created = await createAdministrator(db, actor, adminAuditActor(ctx), body);
      ctx.status = 201;
      ctx.body = { success: true, data: adminRecord(created) };
    },
  });

  surface.route({
    method: 'patch',
    path: '/admins/{id}',
    operationId: 'adminUpdateAdministrator',
    summary: "Change an administrator's name, role, permissions, status or second-factor policy",
    description: describe.update,
    tags: TAGS,
    security: 'administrator',
    params: IdParams,
    body: UpdateBody,
    responses: {
      200: { description: 'Changed', schema: RecordResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
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
