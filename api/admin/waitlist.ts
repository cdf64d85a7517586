import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { adminListRoute } from './list-route.js';
import { readWaitlist } from '../use-cases/waitlist.js';
import { docs, WaitlistQuery } from './waitlist.openapi.js';

/** GET /waitlist: the pre-launch sign-ups. */
export function registerWaitlistRoutes(surface: Surface, { db }: AppContext): void {
  adminListRoute(surface, docs.adminListWaitlist, '/waitlist', 'waitlist.view', {
    query: WaitlistQuery,
    read: (query, audit) => readWaitlist(db, audit, query),
    view: (row) => ({ id: row.id, email: row.email, createdAt: row.created_at }),
  });
}
