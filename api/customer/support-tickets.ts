import type { AppContext } from '../app.js';
import { hourlyLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import {
  addTravellerMessage,
  openTravellerTicket,
  ownTicket,
  ownTickets,
  travellerTicketView,
} from '../use-cases/support-tickets.js';
import {
  docs,
  MessageBody,
  NewTicketBody,
  NewTicketHeaders,
  TicketPageQuery,
} from './support-tickets.openapi.js';
import { created, ok } from '../http/respond.js';

/** GET, POST /support-tickets, GET /support-tickets/{id} and POST /support-tickets/{id}/messages. */
export function registerSupportTicketRoutes(surface: Surface, { db, config, platform }: AppContext): void {
  const perTraveller = hourlyLimiter(
    db,
    'support-ticket-traveller',
    config.SUPPORT_TICKET_RATE_LIMIT_PER_HOUR,
  );

  surface.route({
    ...docs.listSupportTickets,
    method: 'get',
    path: '/support-tickets',
    security: 'traveller',
    query: TicketPageQuery,
    handler: async (ctx, { query }) => {
      const page = await ownTickets(db, ctx.state.traveller!.userId, query);
      const items = page.items.map((ticket) => travellerTicketView({ ticket }));
      ok(ctx, { items, total: page.total, limit: query.limit, offset: query.offset });
    },
  });

  surface.route({
    ...docs.openSupportTicket,
    method: 'post',
    path: '/support-tickets',
    security: 'traveller',
    body: NewTicketBody,
    headers: NewTicketHeaders,
    handler: async (ctx, { body, headers }) => {
      const userId = ctx.state.traveller!.userId;
      const limit = () => perTraveller.consume(ctx, userId);
      const input = { ...body, idempotencyKey: headers['Idempotency-Key'] };
      created(ctx, travellerTicketView(await openTravellerTicket(db, platform, userId, input, limit)));
    },
  });

  surface.route({
    ...docs.readSupportTicket,
    method: 'get',
    path: '/support-tickets/{id}',
    security: 'traveller',
    params: IdParams,
    handler: async (ctx, { params }) => {
      ok(ctx, travellerTicketView(await ownTicket(db, ctx.state.traveller!.userId, params.id)));
    },
  });

  surface.route({
    ...docs.writeSupportTicket,
    method: 'post',
    path: '/support-tickets/{id}/messages',
    security: 'traveller',
    params: IdParams,
    body: MessageBody,
    handler: async (ctx, { params, body }) => {
      const userId = ctx.state.traveller!.userId;
      const limit = () => perTraveller.consume(ctx, userId);
      const written = await addTravellerMessage(db, platform, userId, params.id, body.message, limit);
      ok(ctx, travellerTicketView(written));
    },
  });
}
