import { findOwnTicket, listOwnTickets } from '../../db/queries/tickets.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { reissueOwnTicket } from '../use-cases/tickets.js';
import {
  GET_TICKET_RULES,
  LIST_TICKETS_RULES,
  REISSUE_TICKET_RULES,
  ReissueBody,
  ReissueResponse,
  TicketResponse,
  TicketsQuery,
  TicketsResponse,
} from './tickets.openapi.js';

/**
 * The traveller's journey tickets (SPEC leaves the shapes open): one ticket per traveller and leg,
 * with its boarding state (db/queries/tickets.ts shows the credential only while it boards).
 */

const TAGS = ['Tickets and documents'];

const ticketNotFound = () => new Refusal(404, 'TICKET_NOT_FOUND', 'No such ticket');

export function registerTicketRoutes(surface: Surface, { db, config }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/tickets',
    operationId: 'listTickets',
    summary: "The caller's journey tickets",
    description: LIST_TICKETS_RULES,
    tags: TAGS,
    security: 'traveller',
    query: TicketsQuery,
    responses: { 200: { description: 'The tickets', schema: TicketsResponse }, ...errorResponses(400, 401) },
    handler: async (ctx, { query }) => {
      const { tickets, total } = await listOwnTickets(db, ctx.state.traveller!.userId, query);
      ctx.body = {
        success: true,
        data: { tickets, pagination: { limit: query.limit, offset: query.offset, total } },
      };
    },
  });

  surface.route({
    method: 'get',
    path: '/tickets/{id}',
    operationId: 'getTicket',
    summary: 'One own ticket',
    description: GET_TICKET_RULES,
    tags: TAGS,
    security: 'traveller',
    params: IdParams,
    responses: {
      200: { description: 'The ticket', schema: TicketResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { params }) => {
      const ticket = await findOwnTicket(db, ctx.state.traveller!.userId, params.id);
      if (!ticket) throw ticketNotFound();
      ctx.body = { success: true, data: { ticket } };
    },
  });

  surface.route({
    method: 'post',
    path: '/tickets',
    operationId: 'reissueTicket',
    summary: "Re-issue a ticket's boarding credential (lost phone, leaked screenshot)",
    description: REISSUE_TICKET_RULES,
    tags: TAGS,
    security: 'traveller',
    body: ReissueBody,
    responses: {
      201: { description: 'The new ticket', schema: ReissueResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      const { ticket, replacedTicketId } = await reissueOwnTicket(db, {
        ticketId: body.ticket_id,
        userId: ctx.state.traveller!.userId,
        reason: body.reason,
        signing: { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM },
      });
      ctx.status = 201;
      ctx.body = { success: true, data: { ticket, replaced_ticket_id: replacedTicketId } };
    },
  });
}
