import type { z } from 'zod';
import type { TicketMessageRow, TicketRow } from '../../db/queries/support-tickets.js';
import type { AppContext } from '../app.js';
import { created, ok } from '../http/respond.js';
import type { Infer, OperationDoc, Surface } from '../http/route.js';
import { adminRoute, type ActingAdmin } from './admin-route.js';
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
  type TicketAnswer,
} from '../use-cases/support-tickets.js';
import { AssignBody, CloseBody, docs, NewTicketBody, ReplyBody, TicketQuery } from './tickets.openapi.js';

/** A ticket and its messages, as support reads it. */
type TicketDetail = { ticket: TicketRow; messages: TicketMessageRow[] };

const detail = (found: TicketDetail) => ({
  ticket: supportTicketView(found.ticket),
  messages: found.messages.map(supportMessageView),
});

/** What a change answers: the ticket and its messages, or (to one without tickets.view) its receipt. */
const changed = (answer: TicketAnswer) => ('receipt' in answer ? { ticket: answer.receipt } : detail(answer));

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
      created(ctx, changed(await openTicketForSupport(db, audit, body)));
    },
  });

  const reply = { ...docs.adminReplyToTicket, path: '/tickets/{id}/replies', body: ReplyBody };
  ticketStepRoute(surface, reply, (audit, id, body) => replyToTicket(db, audit, id, body.message));
  const assignment = { ...docs.adminAssignTicket, path: '/tickets/{id}/assign', body: AssignBody };
  ticketStepRoute(surface, assignment, (audit, id, body) => assignTicketTo(db, audit, id, body.assigneeId));
  const closing = { ...docs.adminCloseTicket, path: '/tickets/{id}/close', body: CloseBody };
  ticketStepRoute(surface, closing, (audit, id, body) => closeTicketWith(db, audit, id, body.resolution));
}

/**
 * POST `path` (/tickets/{id}/…): one step on a ticket (tickets.manage), answered with the ticket
 * after it (or, to one without tickets.view, its receipt).
 */
function ticketStepRoute<B extends z.ZodType>(
  surface: Surface,
  route: OperationDoc & { path: string; body: B },
  step: (audit: ActingAdmin['audit'], ticketId: string, body: Infer<B>) => Promise<TicketAnswer>,
): void {
  adminRoute(surface, 'tickets.manage', {
    ...route,
    method: 'post',
    params: IdParams,
    handler: async (ctx, { audit }, { params, body }) => {
      ok(ctx, changed(await step(audit, params.id, body)));
    },
  });
}
