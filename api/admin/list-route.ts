import type { z } from 'zod';
import type { AuditActor } from '../../db/writes/audit.js';
import type { AdminPermission } from '../../domain/permissions.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { OperationDoc, Surface } from '../http/route.js';
import { itemsPage } from '../http/respond.js';
import { adminRoute } from './admin-route.js';

/** What one administration list needs beyond its path and permission: its query, its read and its view of a row. */
export interface AdminList<Q extends z.ZodType<{ limit: number; offset: number }>, Row> {
  query: Q;
  /** The page the query asks for; an audited list records the read on behalf of `audit`. */
  read: (query: z.output<Q>, audit: AuditActor) => Promise<{ items: Row[]; total: number }>;
  /** One row as the API answers it. */
  view: (row: Row) => unknown;
  /** A heavy list's limit per administrator, counted before anything is read or recorded. */
  perAdmin?: RateLimiter;
}

/**
 * GET `path`: a page of a list of the administration, for an administrator holding `permission`
 * (else 403 PERMISSION_DENIED), answered as `{ items, total, limit, offset }`.
 */
export function adminListRoute<Q extends z.ZodType<{ limit: number; offset: number }>, Row>(
  surface: Surface,
  doc: OperationDoc,
  path: string,
  permission: AdminPermission,
  list: AdminList<Q, Row>,
): void {
  adminRoute(surface, permission, {
    ...doc,
    method: 'get',
    path,
    query: list.query,
    handler: async (ctx, { admin, audit }, input) => {
      await list.perAdmin?.consume(ctx, admin.adminId);
      // Infer<Q> stays unresolved for a generic Q; the route validated the query with `list.query`.
      const query = input.query as z.output<Q>;
      const page = await list.read(query, audit);
      itemsPage(ctx, page.items.map(list.view), query, page.total);
    },
  });
}
