import type { AppContext } from '../app.js';
import { adminAuditActor, requirePermission } from '../auth/admin-auth.js';
import type { Surface } from '../http/route.js';
import { readWaitlist } from '../use-cases/waitlist.js';
import { docs, WaitlistQuery } from './waitlist.openapi.js';

/** GET /waitlist: the pre-launch sign-ups. */
export function registerWaitlistRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.adminListWaitlist,
    method: 'get',
    path: '/waitlist',
    security: 'administrator',
    query: WaitlistQuery,
    handler: async (ctx, { query }) => {
      requirePermission(ctx, 'waitlist.view');
      const page = await readWaitlist(db, adminAuditActor(ctx), query);
      const items = page.items.map((row) => ({ id: row.id, email: row.email, createdAt: row.created_at }));
      ctx.body = {
        success: true,
        data: { items, total: page.total, limit: query.limit, offset: query.offset },
      };
    },
  });
}
