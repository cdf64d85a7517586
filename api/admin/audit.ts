import type { AuditRow } from '../../db/queries/admins.js';
import { camelFields } from '../../db/row-fields.js';
import type { AppContext } from '../app.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { adminListRoute } from './list-route.js';
import { readAuditLog } from '../use-cases/administrators.js';
import { AuditQuery, docs } from './audit.openapi.js';

/** GET /audit-log, counted against the administrator's budget of heavy reads (`perAdmin`, shared). */
export function registerAuditRoutes(surface: Surface, { db }: AppContext, perAdmin: RateLimiter): void {
  adminListRoute(surface, docs.adminAuditLog, '/audit-log', 'audit.view', {
    query: AuditQuery,
    // The filter as the query names it is what the audit row shows.
    read: ({ limit, offset, actor, target, ...filters }, audit) =>
      readAuditLog(
        db,
        audit,
        { ...filters, actorId: actor, targetId: target, limit, offset },
        { actor, target, ...filters },
      ),
    view: auditEntry,
    // The log gains rows with every administrative request and its filters combine freely: a heavy read.
    perAdmin,
  });
}

/** An audit row as the API answers it: its columns, camelCased. */
const auditEntry = (row: AuditRow) =>
  camelFields(row, [
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
