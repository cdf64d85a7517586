import { z } from 'zod';
import {
  PAYMENT_PROVIDERS,
  PAYMENT_SOURCES,
  PAYMENT_STATUSES,
  transitionTableText,
} from '../../domain/payment-ledger.js';
import {
  CalendarDate,
  errorResponses,
  FileBytes,
  ListSearch,
  Locale,
  Pagination,
  NAME_SEARCH,
  PHONE_SEARCH,
  PrintedProse,
  textRule,
  Uuid,
} from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import {
  DateTimeText as Instant,
  IdText as Id,
  PaginationText,
  successWith,
} from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the company's payment ledger (api/dashboard/payments.ts): schemas that also
 * validate, and the decisions SPEC leaves open, in each route's prose.
 */
const TAGS = ['Dashboard: payments'];

export const LedgerQuery = z
  .object({
    status: z.enum(PAYMENT_STATUSES).optional(),
    provider: z.enum(PAYMENT_PROVIDERS).optional(),
    source: z.enum(PAYMENT_SOURCES).optional(),
    date: CalendarDate.optional().meta({
      description:
        "one Damascus day (SPEC's date filter): the same as from and to that day; not with from or to",
    }),
    from: CalendarDate.optional().meta({ description: 'first Damascus day of the period (inclusive)' }),
    to: CalendarDate.optional().meta({ description: 'last Damascus day of the period (inclusive)' }),
    // Empty (or blank) is no filter, as on the other dashboard lists (GET /loyalty's search).
    search: ListSearch(
      `booking code (prefix), passenger name or phone (part), case-insensitive, or ${PHONE_SEARCH}; ${NAME_SEARCH}; ` +
        'empty: no filter',
    ),
    ...Pagination,
  })
  .strict()
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    message: 'from must not be after to',
    path: ['to'],
  })
  .refine((query) => !query.date || (!query.from && !query.to), {
    message: 'date is one day: send it without from and to',
    path: ['date'],
  });

/**
 * A payment's note is read by the company's other staff in the ledger: prose, so line breaks and
 * tabs but no other control or bidirectional-override character, which could make it read as another.
 */
export const RecordPaymentBody = z
  .object({
    booking_id: Uuid,
    note: PrintedProse(1, 1000).optional(),
  })
  .strict()
  .meta({ id: 'OfficePaymentRequest' });

export const NoteBody = z
  .object({
    // The rule at the field, where a reader of `null or text` looks for it.
    note: PrintedProse(0, 1000)
      .nullable()
      .meta({ description: textRule(0, 1000, 'prose') }),
  })
  .strict()
  .meta({ id: 'PaymentNoteChange', description: 'the only field that can change; null or "" clears it' });

const PARTIAL_REFUND = 'PARTIAL_REFUND_NOT_ALLOWED';

/** Refunds are full only: an amount of any kind is refused with its own code. */
export const RefundBody = z.object({}).strict().meta({
  id: 'PaymentRefundRequest',
  description:
    'empty: a refund is always of the full amount; any field (amount, partial...) is 400 PARTIAL_REFUND_NOT_ALLOWED',
});

/**
 * No query either: the route reads none, so `?amount=5000` would otherwise pass unread and the full
 * amount be paid. Any key is the same 400 PARTIAL_REFUND_NOT_ALLOWED (refundErrorCode), nothing written.
 */
export const RefundQuery = z.object({}).strict();

export function refundErrorCode(issues: z.core.$ZodIssue[]): string {
  return issues.some((issue) => issue.code === 'unrecognized_keys') ? PARTIAL_REFUND : 'VALIDATION_FAILED';
}

export const ReceiptParams = z.object({ source: z.enum(PAYMENT_SOURCES), id: Uuid }).strict();
export const ReceiptQuery = z.object({ locale: Locale.default('ar') }).strict();

const LedgerLine = z
  .object({
    id: Id,
    source: z.enum(PAYMENT_SOURCES),
    status: z.enum(PAYMENT_STATUSES),
    method: z.string(),
    provider: z.string(),
    amount: z.number(),
    currency: z.string(),
    note: z.string().nullable(),
    refund_due_reason: z.string().nullable(),
    booking: z.object({
      id: Id,
      booking_code: z.string(),
      status: z.string(),
      payment_status: z.string(),
      passenger_name: z.string(),
      passenger_phone: z.string(),
    }),
    created_at: Instant,
    collected_at: Instant.nullable(),
    refunded_at: Instant.nullable(),
    cancelled_at: Instant.nullable(),
    verified_by: Id.nullable().meta({
      description: 'the staff user who verified or recorded the collection',
    }),
    verified_at: Instant.nullable(),
    refunded_by: Id.nullable(),
    cancelled_by: Id.nullable().meta({
      description:
        'the staff user who cancelled the line (or cancelled or completed its trip); null when another company cancelled ' +
        'its trip, or the booking ended by the traveller’s cancel or by a refund of the whole booking (its other ' +
        'pending lines)',
    }),
    collected_by: Id.nullable().meta({
      description:
        'the driver who recorded taking the cash (source driver: POST /driver/api/trips/{id}/bookings/{bookingId}/' +
        'cash-collection); null for other lines',
    }),
    cash_shift_id: Id.nullable(),
    allowed_actions: z.array(z.enum(['verify', 'refund', 'cancel'])).meta({
      description:
        'the moves the status allows; verify only while the booking can be collected (CONFIRMED, CHECKED_IN or ' +
        'COMPLETED, unpaid), so not for a traveller marked no-show',
    }),
    receipt: z
      .object({ source: z.enum(PAYMENT_SOURCES), id: Id })
      .nullable()
      .meta({
        description: 'the path parameters of GET /payments/receipts/{source}/{id}; null while incomplete',
      }),
  })
  .meta({ id: 'LedgerLine' });

const Totals = z.object({ count: z.int(), amount: z.number() });
const Statistics = z
  .object({
    count: z.int(),
    byStatus: z.record(z.enum(PAYMENT_STATUSES), Totals),
    bySource: z.record(z.enum(PAYMENT_SOURCES), Totals),
    collected: z.number(),
    refunded: z.number(),
    net: z.number(),
    outstanding: z.number(),
    refundDue: z.number(),
  })
  .nullable()
  .meta({ id: 'LedgerStatistics', description: 'null for DISPATCHER and STAFF' });

const LedgerResponse = z.object({
  success: z.literal(true),
  data: z.array(LedgerLine),
  statistics: Statistics,
  pagination: PaginationText,
});
const LineResponse = successWith(LedgerLine);

const SettingsResponse = successWith(
  z.object({
    currency: z.string(),
    methods: z.array(
      z.object({
        method: z.enum(['CASH', 'SHAMCASH', 'CARD']),
        available: z.boolean(),
        collection_points: z.array(z.enum(['office', 'driver'])),
        unavailable_reason: z.string().nullable(),
      }),
    ),
    online_payments_available: z.literal(false),
    refunds: z.literal('FULL_ONLY'),
    cash_shift_max_hours: z.number(),
  }),
);

export const PdfResponse = {
  description: 'The PDF (private, no-store; Content-Digest carries the recorded SHA-256)',
  contentType: 'application/pdf',
  schema: FileBytes,
};

/** What a change of one line answers: the line after it, or why not. */
const lineChanged = (description: string, status = 200) => ({
  [status]: { description, schema: LineResponse },
  ...errorResponses(400, 401, 403, 404, 409),
});

const READERS =
  'Reading: OWNER, ADMIN and ACCOUNTANT see everything; DISPATCHER and STAFF may read lines (to answer "is this booking ' +
  'paid?" at the counter and at boarding) but get statistics null; any other role 403 ROLE_NOT_ALLOWED.';
const DECIDERS =
  'Money decisions: OWNER, ADMIN or ACCOUNTANT (else 403 ROLE_NOT_ALLOWED) of an active company (403 COMPANY_SUSPENDED), ' +
  "with the CSRF header; another company's payment is 404 PAYMENT_NOT_FOUND. One transaction locks the booking, then the " +
  'operation, records the deciding user (and an audit row) and syncs the booking payment fact. The answer is the line ' +
  'after the change. ' +
  'The member is judged as they stand when the write is made, after any change committed while the request waited: ' +
  'signed out or deactivated 401 INVALID_CREDENTIAL, no longer of those roles 403 ROLE_NOT_ALLOWED, nothing changed.';
const TRANSITIONS = `Statuses and the only moves (domain/payment-ledger.ts): ${transitionTableText()}. Final: REFUNDED, CANCELLED, FAILED (FAILED is kept for online providers, which do not exist yet). Any other move is 409 PAYMENT_TRANSITION_NOT_ALLOWED (details.allowedFrom).`;

export const docs = taggedOperations(TAGS, {
  listCompanyPayments: {
    summary: 'The payment ledger with statistics',
    description:
      "One line per payment record of the session's company: operation records (source transaction), driver and office " +
      'collections, and a booking payment fact no other record proves (source booking). A collection that set its ' +
      "booking's payment fact is one line, so nothing is counted twice. Filters: status, provider (cash), source, from/to " +
      "(Damascus days, on the line's creation time), search (booking code prefix, passenger name or phone part, or a " +
      'phone number as sign-in reads it: 0944 123 456 finds +963944123456; the name typed another way too: احمد ' +
      'finds أحمد, الحمزه finds الحمزة; empty: no filter). Newest first; ' +
      'limit (default 20, max 100) and offset; pagination.total counts the filtered set. statistics cover the whole ' +
      'filtered set: count and amount per status and per source, collected (COMPLETED + REFUND_DUE + REFUNDED), refunded, ' +
      `net, outstanding (PENDING) and refundDue. ${READERS}`,
    responses: answers(200, 'A page of the ledger', LedgerResponse, [400, 401, 403]),
  },
  recordOfficePayment: {
    summary: 'The office records the cash payment of a booking',
    description:
      "{booking_id} of the session's company (else 404 BOOKING_NOT_FOUND). The cash goes into the open cash shift: none is " +
      "409 CASH_SHIFT_NOT_OPEN. The booking's pending cash line (the traveller's announced payment, source transaction, " +
      "or the one its trip's driver recorded, source driver) is completed when it has one, else a COMPLETED office " +
      'line is recorded; the booking becomes PAID. A booking already paid is 409 ' +
      'BOOKING_ALREADY_PAID; a cancelled or unconfirmed one 409 BOOKING_NOT_PAYABLE; one of total 0 (a free-trip ' +
      'voucher took the fare; it stays UNPAID, no line, nothing in the shift) 409 NOTHING_TO_COLLECT. 201 with the ' +
      `line. ${DECIDERS}`,
    responses: lineChanged('Recorded', 201),
  },
  getCompanyPayment: {
    summary: 'One ledger line',
    description: `${READERS} Another company's payment is 404 PAYMENT_NOT_FOUND. ${TRANSITIONS}`,
    responses: answers(200, 'The line', LineResponse, [400, 401, 403, 404]),
  },
  changePaymentNote: {
    summary: 'Change the note of a payment',
    description: `Only {note} may change, and only before a final state (409 PAYMENT_FINAL). ${DECIDERS}`,
    responses: lineChanged('Changed'),
  },
  verifyPayment: {
    summary: 'Verify a pending cash payment (money received)',
    description:
      'PENDING → COMPLETED. Needs the open cash shift (409 CASH_SHIFT_NOT_OPEN) and links the payment to it; the booking ' +
      'becomes PAID. A booking that can no longer be collected is 409 BOOKING_ALREADY_PAID or BOOKING_NOT_PAYABLE, one ' +
      'of total 0 409 NOTHING_TO_COLLECT (cancel its line instead). Two verifies at once: one wins, the other is 409. ' +
      `${DECIDERS} ${TRANSITIONS}`,
    responses: lineChanged('Verified'),
  },
  refundPayment: {
    summary: 'Refund a collected payment, in full',
    description:
      'COMPLETED or REFUND_DUE → REFUNDED, always the full amount: a body with any field (amount...) or a query string ' +
      'with any key (?amount=5000) is 400 PARTIAL_REFUND_NOT_ALLOWED, nothing written. The cash is paid back from the ' +
      'open shift (409 CASH_SHIFT_NOT_OPEN; an OUT movement of kind REFUND is recorded; 409 ' +
      'CASH_SHIFT_INSUFFICIENT_CASH if the till cannot hold it). The booking payment_status becomes REFUNDED, so its ' +
      'receipt is now the refund notice (its own RFD number), and the loyalty points it earned are taken back (an ' +
      'EARN_REVERSAL entry; never below a balance of 0); a voucher it used stays spent for good, even when a trip ' +
      "CANCEL ends the booking or the voucher's other bookings (a REFUND_DUE of a booking a trip CANCEL ended leaves " +
      'the voucher to the trip CANCELs). What happens to the booking ' +
      'itself: one that has not travelled (CONFIRMED, its bus not left: trip SCHEDULED, BOARDING or DELAYED) ends in ' +
      'the same transaction as a traveller cancel ends it, ' +
      'whatever the cancellation cut-off (the company decides): status CANCELLED (booking.cancelled event), its seats ' +
      'released for sale, its tickets CANCELLED and no longer boarding, their credentials on the driver revocation ' +
      'list (a scan or verify refuses them, the ticket PDF is 410 DOCUMENT_GONE), its journey (and an order left with no ' +
      'live journey) CANCELLED. One whose bus has left is never cancelled: a CONFIRMED one there (never scanned) keeps ' +
      'its status, seats and tickets and becomes NO_SHOW at COMPLETE as any booking never scanned, and one that ' +
      'travelled (CHECKED_IN, NO_SHOW, COMPLETED) keeps its status: the refund is a compensation, its tickets still ' +
      'VALID keep their status but their credentials go on the driver revocation list (a scan or verify answers ' +
      'REVOKED, no QR code is shown), and the operations room neither checks that traveller in nor restores them ' +
      '(409 TRAVELLER_REFUNDED). A cancelled booking ' +
      '(the REFUND_DUE of a cancelled trip) stays CANCELLED. ' +
      `${DECIDERS} ${TRANSITIONS}`,
    responses: lineChanged('Refunded'),
  },
  cancelPayment: {
    summary: 'Cancel an incomplete (PENDING) payment',
    description: `PENDING → CANCELLED only; the booking stays UNPAID. ${DECIDERS} ${TRANSITIONS}`,
    responses: lineChanged('Cancelled'),
  },
  getPaymentReceipt: {
    summary: 'Receipt or refund notice PDF of a payment record',
    description:
      'source transaction, driver or office: {id} is the ledger line of that source; source booking: {id} is the booking, ' +
      "and the receipt is its payment fact's (the most reliable collection record, as the traveller's receipt). Roles OWNER, " +
      "ADMIN, ACCOUNTANT (403 ROLE_NOT_ALLOWED); another company's record, or a line of another source, 404 " +
      'BOOKING_NOT_FOUND. An incomplete record (PENDING, CANCELLED) has no receipt: 409 PAYMENT_NOT_COLLECTED. A REFUNDED ' +
      'record gives its refund notice. Receipt (RCP-<year>-<n>) and refund notice (RFD-<year>-<n>) are distinct documents ' +
      "whose numbers are fixed at first issue and shared with the traveller's download; each is an immutable snapshot whose " +
      'bytes and SHA-256 are stored, and the download logged, before a private, no-store PDF is sent. locale ar (default) or en. ' +
      '500 DOCUMENT_RENDER_FAILED when the PDF cannot be produced; 503 SERVICE_UNAVAILABLE with Retry-After when Temporal ' +
      'does not answer or the render has not finished within 20 s (the render goes on and a retry gets its PDF). ' +
      'A HEAD sends no bytes, so it is 405 METHOD_NOT_ALLOWED (Allow: GET): nothing rendered, nothing logged.',
    responses: { 200: PdfResponse, ...errorResponses(400, 401, 403, 404, 405, 409, 500) },
  },
  getPaymentSettings: {
    summary: 'How the company is paid',
    description:
      'Cash is the only method (collected at the office or by the driver); SHAMCASH and CARD are listed as unavailable ' +
      '(ONLINE_PAYMENTS_DEVELOPMENT_ONLY). Refunds are full only. Any dashboard role may read it.',
    responses: answers(200, 'The settings', SettingsResponse, [401]),
  },
});
