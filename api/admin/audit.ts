import type { AuditRow } from '../../db/queries/admins.js';
import { camelFields } from '../../db/row-fields.js';
import { auditDetailsShown } from '../../domain/audit-details.js';
import type { AdminPermission } from '../../domain/permissions.js';
import type { AppContext } from '../app.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { adminRoute } from './admin-route.js';
import { readAuditLog } from '../use-cases/administrators.js';
import { AuditQuery, docs } from './audit.openapi.js';

/**
 * GET /audit-log, counted against the administrator's budget of heavy reads (`perAdmin`, shared):
 * the log gains rows with every administrative request and its filters combine freely. Declared
 * as a route of its own rather than with adminListRoute, as its page also carries the cursor of
 * the next one and its rows depend on the reader's permissions.
 */
export function registerAuditRoutes(surface: Surface, { db }: AppContext, perAdmin: RateLimiter): void {
  adminRoute(surface, 'audit.view', {
    ...docs.adminAuditLog,
    method: 'get',
    path: '/audit-log',
    query: AuditQuery,
    handler: async (ctx, { admin, audit }, { query }) => {
      await perAdmin.consume(ctx, admin.adminId);
      const { limit, offset, actor, target, ...filters } = query;
      // The filter as the query names it is what the audit row shows.
      const page = await readAuditLog(
        db,
        audit,
        { ...filters, actorId: actor, targetId: target, limit, offset },
        { actor, target, ...filters },
      );
      ok(ctx, {
        items: page.items.map((row) => auditEntry(row, admin.permissions)),
        total: page.total,
        limit,
        offset,
        nextBefore: page.nextBefore,
      });
    },
  });
}

/**
 * An audit row as the API answers it to an administrator holding `held`: its columns, camelCased,
 * with its details only when `held` includes the view permission of what the row is about
 * (domain/audit-details.ts), else null; the row itself stays, so the log stays traceable.
 */
function auditEntry(row: AuditRow, held: readonly AdminPermission[]) {
  const entry = camelFields(row, [
    'id',
    'actor_kind',
    'actor_id',
    'action',
    'target_kind',
    'target_id',
    'details',
    'ip',
    'request_id',
    'created_at',
  ]);
  return { ...entry, details: auditDetailsShown(row.action, held) ? entry.details : null };
}
