import { findOwnTicket, listOwnTickets } from '../../db/queries/tickets.js';
import { releaseOverdueScopesOf } from '../../db/writes/journeys/index.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { documentSharing } from '../use-cases/document-sharing.js';
import { reissueOwnTicket } from '../use-cases/tickets.js';
import { docs, ReissueBody, TicketsQuery } from './tickets.openapi.js';
import { created, ok } from '../http/respond.js';

/**
 * The traveller's journey tickets (SPEC leaves the shapes open): one ticket per traveller and leg,
 * with its boarding state (db/queries/tickets.ts shows the credential only while it boards), read
 * once a request past its decision deadline is released (releaseOverdueScopesOf).
 */

const ticketNotFound = () => new Refusal(404, 'TICKET_NOT_FOUND', 'No such ticket');

export function registerTicketRoutes(surface: Surface, context: AppContext): void {
  const { db, config } = context;
  const sharing = documentSharing(context);
  surface.route({
    ...docs.listTickets,
    method: 'get',
    path: '/tickets',
    security: 'traveller',
    query: TicketsQuery,
    handler: async (ctx, { query }) => {
      const { userId } = ctx.state.traveller!;
      await releaseOverdueScopesOf(db, { kind: 'TRAVELLER', id: userId });
      const { tickets, total } = await listOwnTickets(db, userId, query);
      ok(ctx, { tickets, pagination: { limit: query.limit, offset: query.offset, total } });
    },
  });

  surface.route({
    ...docs.getTicket,
    method: 'get',
    path: '/tickets/{id}',
    security: 'traveller',
    params: IdParams,
    handler: async (ctx, { params }) => {
      await releaseOverdueScopesOf(db, { kind: 'TICKET', id: params.id });
      const ticket = await findOwnTicket(db, ctx.state.traveller!.userId, params.id);
      if (!ticket) throw ticketNotFound();
      ok(ctx, { ticket });
    },
  });

  surface.route({
    ...docs.reissueTicket,
    method: 'post',
    path: '/tickets',
    security: 'traveller',
    body: ReissueBody,
    handler: async (ctx, { body }) => {
      const { ticket, replacedTicketId } = await reissueOwnTicket(sharing, {
        ticketId: body.ticket_id,
        userId: ctx.state.traveller!.userId,
        reason: body.reason,
        signing: { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM, logger: context.logger },
      });
      created(ctx, { ticket, replaced_ticket_id: replacedTicketId });
    },
  });
}
