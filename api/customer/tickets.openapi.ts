import { z } from 'zod';
import { Instant, Pagination, Uuid } from '../http/schemas.js';
import { IdText, NamedRef } from './catalogue.openapi.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { PaginationText, successWith, DelayMinutesText } from '../http/answer-schemas.js';
import {
  CredentialPayload,
  CredentialSignatureText,
  JourneyTicketStatus,
  SHOWN_CREDENTIAL_RULE,
} from '../http/credential-schemas.js';

/** OpenAPI of the customer ticket routes (tickets.ts): schemas and the rules they document. */

const TAGS = ['Tickets and documents'];

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
    status: JourneyTicketStatus,
    boarding_authorized: z.boolean().meta({ description: SHOWN_CREDENTIAL_RULE }),
    payload: CredentialPayload.nullable().meta({
      description: 'the signed boarding credential payload; null unless boarding_authorized',
    }),
    signature: CredentialSignatureText.meta({
      description: 'Ed25519 signature, base64url; null unless boarding_authorized',
    }),
    key_id: z.string().nullable().meta({ description: 'the published key; null unless boarding_authorized' }),
    qr_text: z
      .string()
      .nullable()
      .meta({
        description:
          'the exact text to encode in the QR code: canonical JSON {"payload":…,"signature":…}, as the driver app sends ' +
          'it to POST /driver/api/verify; null unless boarding_authorized',
      }),
    issued_at: Instant.nullable(),
    trip: z
      .object({
        id: IdText,
        status: z
          .string()
          .meta({ description: 'DELAYED once the company announced a delay (see delay_minutes)' }),
        company: NamedRef,
        origin: Name,
        destination: Name,
        departure_at: Instant.meta({ description: 'when the bus is planned to leave the boarding stop' }),
        arrival_at: Instant.meta({ description: 'when it is planned to reach the alighting stop' }),
        delay_minutes: DelayMinutesText,
        expected_departure_at: Instant.meta({
          description:
            "the departure the company announced from the ticket's boarding stop: departure_at plus delay_minutes (or " +
            'how late the bus actually left its first stop, when more); departure_at when on time. The same as ' +
            "trip.expected_departure_at of the ticket's booking (GET /bookings/{id}) while the ticket is current",
        }),
      })
      .meta({
        description:
          'the trip and stretch the ticket was issued for: a ticket re-issued by a modification keeps the old trip ' +
          'and its stops, with the booking it belongs to',
      }),
  })
  .meta({ id: 'JourneyTicket' });

const TicketsResponse = successWith(
  z.object({
    tickets: z.array(TicketSchema),
    pagination: PaginationText,
  }),
);

const TicketResponse = successWith(z.object({ ticket: TicketSchema }));

const ReissueResponse = successWith(
  z.object({
    ticket: TicketSchema,
    replaced_ticket_id: IdText.meta({ description: 'the old ticket, now REISSUED and revoked' }),
  }),
);

export const TicketsQuery = z.object(Pagination).strict();

export const ReissueBody = z
  .object({
    ticket_id: Uuid.meta({ description: 'an own VALID ticket' }),
    reason: z
      .enum(['LOST_DEVICE', 'CREDENTIAL_LEAKED', 'OTHER'])
      .default('OTHER')
      .meta({ description: 'why the old credential must stop working (kept with the revocation)' }),
  })
  .strict()
  .meta({ id: 'TicketReissueRequest' });

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  listTickets: {
    summary: "The caller's journey tickets",
    description:
      "One entry per traveller and leg of the caller's journeys (re-issued tickets are replaced by their new ticket), " +
      'latest departure first; limit (1 to 100, default 20) and offset. payload, signature, key_id and qr_text are ' +
      'present only while boarding_authorized is true: the ticket is VALID, authorised, signed and not revoked, and ' +
      'the bus has not left its boarding stop nor the trip ended (the rule of the documents, re-issue and verify, ' +
      'and of the booking and journey reads); clients show a QR code by boarding_authorized only. trip carries the ' +
      "delay the company announced (delay_minutes) and the departure announced from the ticket's boarding stop " +
      '(expected_departure_at), beside the planned departure_at.',
    responses: answers(200, 'The tickets', TicketsResponse, [400, 401]),
  },
  getTicket: {
    summary: 'One own ticket',
    description:
      "A ticket of the caller's journeys in any state (a re-issued one answers status REISSUED without credential, " +
      'with the trip, stops and booking it was issued for); ' +
      "another traveller's ticket, or none: 404 TICKET_NOT_FOUND.",
    responses: answers(200, 'The ticket', TicketResponse, [400, 401, 404]),
  },
  reissueTicket: {
    summary: "Re-issue a ticket's boarding credential (lost phone, leaked screenshot)",
    description:
      'Replaces an own VALID ticket of a CONFIRMED booking while the bus has not left its boarding stop: ' +
      'the old ticket becomes REISSUED and its credential goes on the revocation list (GET ' +
      '/driver/api/revocations), so its QR code no longer boards anyone, online or offline; a new ticket ' +
      '(new id) for the same traveller, leg and seat is signed and returned (201). Documents downloaded ' +
      'afterwards carry the new credential. Refusals, with nothing changed: 404 TICKET_NOT_FOUND (not the ' +
      "caller's), 409 BOOKING_NOT_CONFIRMED, 409 TICKET_NOT_VALID (pending, cancelled, used, already " +
      're-issued, or revoked by a refund that kept the booking), 409 TRIP_ALREADY_DEPARTED (the trip arrived, completed or was cancelled; it departed ' +
      "from the ticket's boarding stop, the trip's first; or that stop's planned departure plus the trip's " +
      'lateness, its announced delay or how late it left its first stop, has passed). With reason ' +
      "CREDENTIAL_LEAKED the live shares of the booking's confirmation (POST /document-shares) are revoked " +
      'first, even when the re-issue is then refused. Cookie sessions send X-CSRF-Token.',
    responses: answers(201, 'The new ticket', ReissueResponse, [400, 401, 403, 404, 409, 503]),
  },
});
