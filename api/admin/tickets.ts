import type { TicketMessageRow, TicketRow } from '../../db/queries/support-tickets.js';
import type { AppContext } from '../app.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { adminRoute } from './admin-route.js';
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

  adminRoute(surface, 'tickets.view', {
    ...docs.adminReadTicket,
    method: 'get',
    path: '/tickets/{id}',
    params: IdParams,
    handler: async (ctx, { audit }, { params }) => {
      ok(ctx, detail(await readTicketRecorded(db, audit, params.id)));
    },
  });

  registerTicketChangeRoutes(surface, db);
}

/** POST /tickets and a ticket's reply, assign and close (tickets.manage). */
function registerTicketChangeRoutes(surface: Surface, db: AppContext['db']): void {
  adminRoute(surface, 'tickets.manage', {
    ...docs.adminCreateTicket,
    method: 'post',
    path: '/tickets',
    body: NewTicketBody,
    handler: async (ctx, { audit }, { body }) => {
      created(ctx, detail(await openTicketForSupport(db, audit, body)));
    },
  });

  adminRoute(surface, 'tickets.manage', {
    ...docs.adminReplyToTicket,
    method: 'post',
    path: '/tickets/{id}/replies',
    params: IdParams,
    body: ReplyBody,
    handler: async (ctx, { audit }, { params, body }) => {
      ok(ctx, detail(await replyToTicket(db, audit, params.id, body.message)));
    },
  });

  adminRoute(surface, 'tickets.manage', {
    ...docs.adminAssignTicket,
    method: 'post',
    path: '/tickets/{id}/assign',
    params: IdParams,
    body: AssignBody,
    handler: async (ctx, { audit }, { params, body }) => {
      ok(ctx, detail(await assignTicketTo(db, audit, params.id, body.assigneeId)));
    },
  });

  adminRoute(surface, 'tickets.manage', {
    ...docs.adminCloseTicket,
    method: 'post',
    path: '/tickets/{id}/close',
    params: IdParams,
    body: CloseBody,
    handler: async (ctx, { audit }, { params, body }) => {
      ok(ctx, detail(await closeTicketWith(db, audit, params.id, body.resolution)));
    },
  });
}
