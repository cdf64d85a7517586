import type { TicketMessageRow, TicketRow } from '../../db/queries/support-tickets.js';
import type { AppContext } from '../app.js';
import { adminAuditActor, requirePermission } from '../auth/admin-auth.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { adminListRoute } from './list-route.js';
import { IdParams } from '../http/schemas.js';
import {
  assignTicketTo,
  closeTicketWith,
  listTicketsRecorded,
  openTicketForSupport,
  readTicketRecorded,
  replyToTicket,
  supportMessageView,
  supportTicketView,
} from '../use-cases/support-tickets.js';
import { AssignBody, CloseBody, docs, NewTicketBody, ReplyBody, TicketQuery } from './tickets.openapi.js';

const detail = (found: { ticket: TicketRow; messages: TicketMessageRow[] }) => ({
  ticket: supportTicketView(found.ticket),
  messages: found.messages.map(supportMessageView),
});

/** GET, POST /tickets, GET /tickets/{id} and its reply, assign and close. */
export function registerTicketRoutes(surface: Surface, { db }: AppContext): void {
  adminListRoute(surface, docs.adminListTickets, '/tickets', 'tickets.view', {
    query: TicketQuery,
    read: (query, audit) => listTicketsRecorded(db, audit, query),
    view: supportTicketView,
  });

  surface.route({
    ...docs.adminReadTicket,
    method: 'get',
    path: '/tickets/{id}',
    security: 'administrator',
    params: IdParams,
    handler: async (ctx, { params }) => {
      requirePermission(ctx, 'tickets.view');
      ok(ctx, detail(await readTicketRecorded(db, adminAuditActor(ctx), params.id)));
    },
  });

  registerTicketChangeRoutes(surface, db);
}

/** POST /tickets and a ticket's reply, assign and close (tickets.manage). */
function registerTicketChangeRoutes(surface: Surface, db: AppContext['db']): void {
  surface.route({
    ...docs.adminCreateTicket,
    method: 'post',
    path: '/tickets',
    security: 'administrator',
    body: NewTicketBody,
    handler: async (ctx, { body }) => {
      const admin = requirePermission(ctx, 'tickets.manage');
      const opened = await openTicketForSupport(
        db,
        { ...adminAuditActor(ctx), actorId: admin.adminId },
        body,
      );
      created(ctx, detail(opened));
    },
  });

  surface.route({
    ...docs.adminReplyToTicket,
    method: 'post',
    path: '/tickets/{id}/replies',
    security: 'administrator',
    params: IdParams,
    body: ReplyBody,
    handler: async (ctx, { params, body }) => {
      const admin = requirePermission(ctx, 'tickets.manage');
      const audit = { ...adminAuditActor(ctx), actorId: admin.adminId };
      ok(ctx, detail(await replyToTicket(db, audit, params.id, body.message)));
    },
  });

  surface.route({
    ...docs.adminAssignTicket,
    method: 'post',
    path: '/tickets/{id}/assign',
    security: 'administrator',
    params: IdParams,
    body: AssignBody,
    handler: async (ctx, { params, body }) => {
      requirePermission(ctx, 'tickets.manage');
      ok(ctx, detail(await assignTicketTo(db, adminAuditActor(ctx), params.id, body.assigneeId)));
    },
  });

  surface.route({
    ...docs.adminCloseTicket,
    method: 'post',
    path: '/tickets/{id}/close',
    security: 'administrator',
    params: IdParams,
    body: CloseBody,
    handler: async (ctx, { params, body }) => {
      requirePermission(ctx, 'tickets.manage');
      ok(ctx, detail(await closeTicketWith(db, adminAuditActor(ctx), params.id, body.resolution)));
    },
  });
}
