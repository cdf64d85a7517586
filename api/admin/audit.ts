import type { AuditRow } from '../../db/queries/admins.js';
import type { AppContext } from '../app.js';
import { adminAuditActor, requirePermission } from '../auth/admin-auth.js';
import type { Surface } from '../http/route.js';
import { readAuditLog } from '../use-cases/administrators.js';
import { AuditQuery, docs } from './audit.openapi.js';

/** GET /audit-log. */
export function registerAuditRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;
  surface.route({
    ...docs.adminAuditLog,
    method: 'get',
    path: '/audit-log',
    security: 'administrator',
    query: AuditQuery,
    handler: async (ctx, { query }) => {
      requirePermission(ctx, 'audit.view');
      const { limit, offset, actor, target, ...filters } = query;
      const page = await readAuditLog(
        db,
        adminAuditActor(ctx),
        { ...filters, actorId: actor, targetId: target, limit, offset },
        { actor, target, ...filters },
      );
      ctx.body = {
        success: true,
        data: { items: page.items.map(auditEntry), total: page.total, limit, offset },
      };
    },
  });
}

function auditEntry(row: AuditRow) {
  return {
    id: row.id,
    actorKind: row.actor_kind,
    actorId: row.actor_id,
    action: row.action,
    targetKind: row.target_kind,
    targetId: row.target_id,
    details: row.details,
    ip: row.ip,
    requestId: row.request_id,
    createdAt: row.created_at,
  };
}
