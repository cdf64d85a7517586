import { z } from 'zod';
import { TICKET_STATUSES } from '../../domain/support-tickets.js';
import { Instant, Pagination, PrintedProse, PrintedText, Uuid, textRule } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText as Id, successWith } from '../http/answer-schemas.js';
import { idempotencyKeyHeaders } from '../http/idempotency-key.js';

/**
 * The OpenAPI side of the traveller's support tickets (api/customer/support-tickets.ts). They live
 * at /support-tickets because /tickets is the boarding-ticket API.
 */
const TAGS = ['Support tickets'];

export const TicketPageQuery = z.object({ ...Pagination }).strict();

/**
 * What the traveller writes, support reads (and answers in the same ticket): no control or
 * bidirectional-override character, which could make one text read as another; the subject is one
 * line, a message prose that keeps its line breaks and tabs (as support's own, api/admin/tickets).
 */
const Message = PrintedProse(1, 5000);

export const NewTicketBody = z
  .object({
    bookingId: Uuid.meta({ description: 'one of your bookings' }),
    subject: PrintedText(3, 200).meta({ description: textRule(3, 200, 'line') }),
    message: Message,
  })
  .strict();

/** A new ticket's optional Idempotency-Key header (api/http/idempotency-key.ts), kept per traveller. */
export const NewTicketHeaders = idempotencyKeyHeaders(
  'client-chosen key, stored per traveller: a retry with the same key and body answers the ticket the first call ' +
    'opened (201) instead of opening another',
);

export const MessageBody = z.object({ message: Message }).strict();

const TravellerTicket = z
  .object({
    id: Id,
    subject: z.string(),
    status: z.enum(TICKET_STATUSES),
    booking: z.object({ id: Id, code: z.string() }).nullable(),
    company: z.object({ id: Id, name: z.string() }).nullable(),
    resolution: z.string().nullable(),
    createdAt: Instant,
    updatedAt: Instant,
    closedAt: Instant.nullable(),
    messages: z
      .array(
        z.object({
          id: Id,
          from: z.enum(['TRAVELLER', 'SUPPORT']),
          body: z.string(),
          createdAt: Instant,
        }),
      )
      .optional()
      .meta({ description: 'oldest first; in the answers about one ticket' }),
  })
  .meta({ id: 'TravellerSupportTicket' });

const TicketList = successWith(
  z.object({ items: z.array(TravellerTicket), total: z.int(), limit: z.int(), offset: z.int() }),
);
const TicketRecord = successWith(TravellerTicket);

const COMMON =
  'Needs a traveller session (401 AUTH_REQUIRED); only your own tickets (anyone else’s is 404 TICKET_NOT_FOUND). ' +
  'Support tickets are at /support-tickets because /tickets is the boarding-ticket API.';
const WRITES =
  'Web calls send X-CSRF-Token. Opening tickets and writing messages together are limited per traveller ' +
  '(SUPPORT_TICKET_RATE_LIMIT_PER_HOUR, 20 an hour; 429 RATE_LIMITED). The flag support.traveller_tickets switches ' +
  'both off (503 FEATURE_DISABLED, details {flag}; checked before the limit, so it uses up none of it); 503 ' +
  'MAINTENANCE during a maintenance window.';

export const docs = taggedOperations(TAGS, {
  listSupportTickets: {
    summary: 'Your support tickets, newest first',
    description: `${COMMON} limit (default 20, at most 100) and offset, with the total.`,
    responses: answers(200, 'Your tickets', TicketList, [400, 401]),
  },
  openSupportTicket: {
    summary: 'Ask support about one of your bookings',
    description:
      `${COMMON} Body {bookingId, subject, message}: the booking must be yours (else 404 BOOKING_NOT_FOUND); its ` +
      'company is attached. The ticket starts OPEN. Idempotency-Key (optional header, 8 to 128 characters of A-Z a-z ' +
      '0-9 _ -, else 400 VALIDATION_FAILED), kept per traveller: a retry with the same key and body, even while the ' +
      'first call is still running, answers 201 with the ticket that call opened (as it is now) and opens nothing ' +
      'more (a retry once that call has answered is answered before the flag and the limit, using up none of it); ' +
      'the same key with another body is 409 ' +
      'IDEMPOTENCY_KEY_REUSED; a refused ticket keeps nothing under its key. Without the header every call opens a ' +
      `ticket, so a client that may send again sends one. ${WRITES}`,
    responses: answers(201, 'Opened', TicketRecord, [400, 401, 403, 404, 409, 429, 503]),
  },
  readSupportTicket: {
    summary: 'One of your support tickets with its messages',
    description: `${COMMON} Support's replies are from SUPPORT; the people behind them are not named.`,
    responses: answers(200, 'The ticket', TicketRecord, [400, 401, 404]),
  },
  writeSupportTicket: {
    summary: 'Write on one of your support tickets',
    description:
      `${COMMON} Body {message}; the ticket is OPEN again (waiting for support). A closed ticket is 409 TICKET_CLOSED. ` +
      WRITES,
    responses: answers(200, 'Written', TicketRecord, [400, 401, 403, 404, 409, 429, 503]),
  },
});
