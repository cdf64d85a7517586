import { z } from 'zod';
import { credentialText } from '../../domain/documents.js';
import { findOwnTicket, listOwnTickets, type TicketRow } from '../../db/queries/tickets.js';
import { reissueTicket } from '../../db/writes/tickets.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams, Pagination, Uuid, Instant } from '../http/schemas.js';
import { IdText, NamedRef } from './catalogue.js';

/**
 * The traveller's journey tickets (SPEC leaves the shapes open): one ticket per traveller and leg,
 * with its boarding state. The signed credential (payload, signature, qr_text) is shown only
 * while the ticket authorizes boarding, the same rule as the confirmation projection.
 */

const Name = z.object({ ar: z.string(), en: z.string() });

const TicketSchema = z
  .object({
    id: IdText,
    booking: z
      .object({ id: IdText, code: z.string() })
      .nullable()
      .meta({ description: 'the booking (GET /bookings/{id}, its documents) this ticket belongs to' }),
    journey_id: IdText.meta({ description: 'the journey (bookingId of the /journeys routes)' }),
    leg_sequence: z.int().meta({ description: '1-based leg of the journey' }),
    traveller_name: z.string(),
    seat_number: z.string().meta({ description: 'the seat label of the layout' }),
    status: z.enum(['PENDING_CONFIRMATION', 'VALID', 'CANCELLED', 'USED', 'REISSUED']),
    boarding_authorized: z.boolean().meta({ description: 'the only flag a client may show a QR code by' }),
    payload: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'the signed boarding credential payload; null unless boarding_authorized' }),
    signature: z
      .string()
      .nullable()
      .meta({ description: 'Ed25519 signature, base64url; null unless boarding_authorized' }),
    key_id: z.string().nullable(),
    qr_text: z
      .string()
      .nullable()
      .meta({
        description:
          'the exact text to encode in the QR code: canonical JSON {"payload":…,"signature":…}, as the driver app sends ' +
          'it to POST /driver/api/verify; null unless boarding_authorized',
      }),
    issued_at: Instant.nullable(),
    trip: z.object({
      id: IdText,
      status: z.string(),
      company: NamedRef,
      origin: Name,
      destination: Name,
      departure_at: Instant.meta({ description: 'when the bus leaves the boarding stop' }),
      arrival_at: Instant.meta({ description: 'when it reaches the alighting stop' }),
    }),
  })
  .meta({ id: 'JourneyTicket' });

const TicketsResponse = z.object({
  success: z.literal(true),
  data: z.object({
    tickets: z.array(TicketSchema),
    pagination: z.object({ limit: z.int(), offset: z.int(), total: z.int() }),
  }),
});

const TicketResponse = z.object({ success: z.literal(true), data: z.object({ ticket: TicketSchema }) });

const ReissueResponse = z.object({
  success: z.literal(true),
  data: z.object({
    ticket: TicketSchema,
    replaced_ticket_id: IdText.meta({ description: 'the old ticket, now REISSUED and revoked' }),
  }),
});

const TicketsQuery = z.object(Pagination).strict();

const ReissueBody = z
  .object({
    ticket_id: Uuid.meta({ description: 'an own VALID ticket' }),
    reason: z
      .enum(['LOST_DEVICE', 'CREDENTIAL_LEAKED', 'OTHER'])
      .default('OTHER')
      .meta({ description: 'why the old credential must stop working (kept with the revocation)' }),
  })
  .strict()
  .meta({ id: 'TicketReissueRequest' });

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The credential of a ticket that authorizes boarding right now; nothing for any other. */
function boardingCredential(row: TicketRow) {
  const authorized =
    row.status === 'VALID' && row.boarding_authorized && !row.revoked && row.signature !== null;
  if (!authorized)
    return { boarding_authorized: false, payload: null, signature: null, key_id: null, qr_text: null };
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<
    string,
    unknown
  >;
  return {
    boarding_authorized: true,
    payload,
    signature: row.signature,
    key_id: row.key_id,
    qr_text: credentialText(payload, row.signature!),
  };
}

function ticketOf(row: TicketRow) {
  return {
    id: row.id,
    booking: row.booking_id ? { id: row.booking_id, code: row.booking_code! } : null,
    journey_id: row.journey_id,
    leg_sequence: row.leg_sequence,
    traveller_name: row.traveller_name,
    seat_number: row.seat_number,
    status: row.status,
    ...boardingCredential(row),
    issued_at: iso(row.issued_at),
    trip: {
      id: row.trip_id,
      status: row.trip_status,
      company: { id: row.company_id, name_ar: row.company_name_ar, name_en: row.company_name_en },
      origin: { ar: row.origin_ar, en: row.origin_en },
      destination: { ar: row.destination_ar, en: row.destination_en },
      departure_at: iso(row.departure_at)!,
      arrival_at: iso(row.arrival_at)!,
    },
  };
}

const ticketNotFound = () => new Refusal(404, 'TICKET_NOT_FOUND', 'No such ticket');

export function registerTicketRoutes(surface: Surface, { db, config }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/tickets',
    operationId: 'listTickets',
    summary: "The caller's journey tickets",
    description:
      "One entry per traveller and leg of the caller's journeys (re-issued tickets are replaced by their new ticket), " +
      'latest departure first; limit (1 to 100, default 20) and offset. payload, signature and qr_text are present only ' +
      'while the ticket is VALID with boarding_authorized true; clients show a QR code by boarding_authorized only.',
    tags: ['Tickets and documents'],
    security: 'traveller',
    query: TicketsQuery,
    responses: { 200: { description: 'The tickets', schema: TicketsResponse }, ...errorResponses(400, 401) },
    handler: async (ctx, { query }) => {
      const { tickets, total } = await listOwnTickets(db, ctx.state.traveller!.userId, query);
      ctx.body = {
        success: true,
        data: {
          tickets: tickets.map(ticketOf),
          pagination: { limit: query.limit, offset: query.offset, total },
        },
      };
    },
  });

  surface.route({
    method: 'get',
    path: '/tickets/{id}',
    operationId: 'getTicket',
    summary: 'One own ticket',
    description:
      "A ticket of the caller's journeys in any state (a re-issued one answers status REISSUED without credential); " +
      "another traveller's ticket, or none: 404 TICKET_NOT_FOUND.",
    tags: ['Tickets and documents'],
    security: 'traveller',
    params: IdParams,
    responses: {
      200: { description: 'The ticket', schema: TicketResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { params }) => {
      const row = await findOwnTicket(db, ctx.state.traveller!.userId, params.id);
      if (!row) throw ticketNotFound();
      ctx.body = { success: true, data: { ticket: ticketOf(row) } };
    },
  });

  surface.route({
    method: 'post',
    path: '/tickets',
    operationId: 'reissueTicket',
    summary: "Re-issue a ticket's boarding credential (lost phone, leaked screenshot)",
    description:
      'Replaces an own VALID ticket of a CONFIRMED booking before its trip departs: the old ticket becomes REISSUED ' +
      'and its credential goes on the revocation list (GET /driver/api/revocations), so its QR code no longer boards ' +
      'anyone, online or offline; a new ticket (new id) for the same traveller, leg and seat is signed and returned ' +
      '(201). Documents downloaded afterwards carry the new credential. Refusals, with nothing changed: 404 ' +
      "TICKET_NOT_FOUND (not the caller's), 409 BOOKING_NOT_CONFIRMED, 409 TICKET_NOT_VALID (pending, cancelled, used " +
      'or already re-issued), 409 TRIP_ALREADY_DEPARTED. Cookie sessions send X-CSRF-Token.',
    tags: ['Tickets and documents'],
    security: 'traveller',
    body: ReissueBody,
    responses: {
      201: { description: 'The new ticket', schema: ReissueResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      const userId = ctx.state.traveller!.userId;
      const reissued = await reissueTicket(db, {
        ticketId: body.ticket_id,
        userId,
        reason: body.reason,
        signing: { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM },
      });
      const row = await findOwnTicket(db, userId, reissued.ticketId);
      ctx.status = 201;
      ctx.body = {
        success: true,
        data: { ticket: ticketOf(row!), replaced_ticket_id: reissued.replacedTicketId },
      };
    },
  });
}
