import {
  boardingTickets,
  credentialText,
  newestIssue,
  refuseCancellation,
  refuseInvoice,
  type BoardingTicketFacts,
  type SnapshotData,
  type SnapshotPayment,
  type SnapshotTraveller,
  type TicketStatus,
} from '../../domain/documents.js';
import type { Database } from '../orm.js';
import { camelFields } from '../row-fields.js';
import { BOOKING_ENDING, BOOKING_ENDING_REASON } from './booking-ending.js';
import { legOverSql } from './leg-boarding.js';
import { STRETCH_CITIES_JOIN, STRETCH_COLUMNS, type StretchColumns } from './named-ref.js';

/**
 * What a booking document prints (SnapshotData), read from the booking, its journey tickets and its
 * collection records (the stored snapshots and renders are in document-snapshots.ts). db/writes/documents.ts builds a
 * document from these (buildBookingDocument); whether one may be issued is decided by the rules in
 * domain/documents.ts.
 *
 * Every instant printed is a fact of the booking (confirmation, collection, cancellation), never
 * "now", so asking again with nothing changed gives the same data, hence the same snapshot and
 * the same bytes. Tickets re-issued since give new credentials, hence a new snapshot.
 */

const iso = (value: string | number) => new Date(value).toISOString();

/** The booking row with everything any document prints about it; timestamps as the pool hands them over (text). */
interface BookingFactsRow extends StretchColumns {
  id: string;
  booking_code: string;
  status: string;
  payment_status: string;
  created_at: string;
  updated_at: string;
  seats_count: number;
  seat_numbers: string[];
  passenger_name: string;
  subtotal: string;
  discount: string;
  total_price: string;
  currency: string;
  company_id: string;
  owner_user_id: string | null;
  passenger_id: string | null;
  journey_id: string | null;
  trip_id: string;
  journey_status: string | null;
  confirmed_at: string | null;
  cancelled_at: string | null;
  cancellation_reason: string | null;
  company_name_ar: string;
  company_name_en: string;
  company_phone: string | null;
  company_matches: boolean;
  trip_over: boolean;
  pickup_name_ar: string;
  pickup_name_en: string;
  pickup_address_ar: string;
  pickup_address_en: string;
  pickup_directions_ar: string;
  pickup_directions_en: string;
}

/** A booking as its documents see it. */
export interface BookingFacts {
  id: string;
  code: string;
  status: string;
  companyId: string;
  ownerUserId: string | null;
  /** The canonical passenger it was made for (an imported booking's only traveller key). */
  passengerId: string | null;
  journeyId: string | null;
  tripId: string;
  journeyStatus: string | null;
  /** The trip and its route are the booking's company's (a mismatched record is never used). */
  companyMatches: boolean;
  /** The booking's leg no longer boards (legOverSql): the bus left its boarding call, or the trip ended. */
  tripOver: boolean;
  /** The legacy row's traveller and seat labels, for a booking without journey tickets. */
  passengerName: string;
  seatNumbers: string[];
  /** ISO-8601 instants. */
  createdAt: string;
  confirmedAt: string | null;
  /** When the booking was cancelled (its own ending, else its journey's closing), else its last change. */
  cancelledAt: string;
  /** Why the booking was cancelled (TRIP_CANCELLED, COMPANY_REJECTED, ...); null when its traveller or a refund ended it. */
  failureReason: string | null;
  /** What every document prints of the booking: the company, the booking and the trip. */
  printed: Pick<SnapshotData, 'company' | 'booking' | 'trip'>;
}

function toBookingFacts(row: BookingFactsRow): BookingFacts {
  return {
    id: row.id,
    code: row.booking_code,
    ...camelFields(row, [
      'status',
      'company_id',
      'owner_user_id',
      'passenger_id',
      'journey_id',
      'trip_id',
      'journey_status',
      'company_matches',
      'trip_over',
      'passenger_name',
      'seat_numbers',
    ]),
    createdAt: iso(row.created_at),
    confirmedAt: row.confirmed_at === null ? null : iso(row.confirmed_at),
    cancelledAt: iso(row.cancelled_at ?? row.updated_at),
    failureReason: row.cancellation_reason,
    printed: printedFacts(row),
  };
}

function printedFacts(row: BookingFactsRow): BookingFacts['printed'] {
  return {
    company: { name_ar: row.company_name_ar, name_en: row.company_name_en, phone: row.company_phone },
    booking: {
      id: row.id,
      code: row.booking_code,
      status: row.status,
      created_at: iso(row.created_at),
      seats_count: row.seats_count,
      subtotal: Number(row.subtotal),
      discount: Number(row.discount),
      total: Number(row.total_price),
      currency: row.currency,
      payment_status: row.payment_status,
    },
    trip: {
      origin: { ar: row.origin_ar, en: row.origin_en },
      destination: { ar: row.destination_ar, en: row.destination_en },
      departure_at: iso(row.departure_at),
      arrival_at: iso(row.arrival_at),
      pickup: {
        name: { ar: row.pickup_name_ar, en: row.pickup_name_en },
        address: { ar: row.pickup_address_ar, en: row.pickup_address_en },
        directions: { ar: row.pickup_directions_ar, en: row.pickup_directions_en },
      },
    },
  };
}

/**
 * The bookings row `b` that `param` names: its own id, or the id of a journey with exactly one
 * booking (SPEC's `/journeys/{bookingId}`): how the document routes and sharing read a bookingId.
 */
export const bookingNamedBy = (param: string) =>
  `(b.id = ${param} or (b.journey_id = ${param} and (select count(*) from bookings o where o.journey_id = ${param}) = 1))`;

/**
 * The booking named by `id`: a bookings row, or the one bookings row of a journey. Its leg gives
 * the boarding and alighting stop calls; a legacy row without a journey spans the whole trip.
 */
export async function readBookingFacts(db: Database, id: string): Promise<BookingFacts | undefined> {
  const [row] = await db.query<BookingFactsRow>(
    `select b.id, b.booking_code, b.status, b.payment_status, b.created_at, b.updated_at, b.seats_count, b.seat_numbers,
            b.passenger_name, b.subtotal, b.discount, b.total_price, b.currency, b.company_id, b.owner_user_id,
            b.passenger_id, b.journey_id, b.trip_id, j.status as journey_status, j.confirmed_at,
            coalesce(ended.revoked_at, j.closed_at) as cancelled_at,
            ${BOOKING_ENDING_REASON} as cancellation_reason,
            c.name_ar as company_name_ar, c.name_en as company_name_en, c.phone as company_phone,
            (t.company_id = b.company_id and r.company_id = b.company_id) as company_matches,
            ${legOverSql({ trip: 't', board: 'bc', alight: 'ac' })} as trip_over,
            ${STRETCH_COLUMNS},
            bs.name_ar as pickup_name_ar, bs.name_en as pickup_name_en, bs.address_ar as pickup_address_ar,
            bs.address_en as pickup_address_en, bs.directions_ar as pickup_directions_ar,
            bs.directions_en as pickup_directions_en
     from bookings b
     join companies c on c.id = b.company_id
     join trips t on t.id = b.trip_id
     join routes r on r.id = t.route_id
     left join journeys j on j.id = b.journey_id
     left join lateral (
       select l.board_stop_call_id, l.alight_stop_call_id from journey_legs l
       where l.journey_id = b.journey_id and l.trip_id = b.trip_id order by l.sequence limit 1) leg on true
     join trip_stop_calls bc on bc.id = coalesce(leg.board_stop_call_id,
       (select s.id from trip_stop_calls s where s.trip_id = t.id order by s.sequence limit 1))
     join trip_stop_calls ac on ac.id = coalesce(leg.alight_stop_call_id,
       (select s.id from trip_stop_calls s where s.trip_id = t.id order by s.sequence desc limit 1))
     join stops bs on bs.id = bc.stop_id
     ${STRETCH_CITIES_JOIN}
     left join lateral (${BOOKING_ENDING}) ended on true
     where ${bookingNamedBy('$1')}`,
    [id],
  );
  return row ? toBookingFacts(row) : undefined;
}

interface DocumentTicketRow {
  id: string;
  traveller_name: string;
  seat_number: string;
  leg_sequence: number;
  status: TicketStatus;
  payload: unknown;
  signature: string | null;
  boarding_authorized: boolean;
  issued_at: string | null;
  revoked: boolean;
}

interface DocumentTicket extends BoardingTicketFacts {
  travellerName: string;
  seatNumber: string;
  leg: number;
  /** The signed boarding credential's payload (jsonb). */
  payload: unknown;
}

const toDocumentTicket = (row: DocumentTicketRow): DocumentTicket => ({
  travellerName: row.traveller_name,
  seatNumber: row.seat_number,
  leg: row.leg_sequence,
  status: row.status,
  payload: row.payload,
  signature: row.signature,
  boardingAuthorized: row.boarding_authorized,
  issuedAt: row.issued_at === null ? null : new Date(row.issued_at).getTime(),
  revoked: row.revoked,
});

/** The booking's current tickets (re-issued ones are history), in traveller order; none without a journey. */
async function readTickets(db: Database, booking: BookingFacts): Promise<DocumentTicket[]> {
  if (!booking.journeyId) return [];
  const rows = await db.query<DocumentTicketRow>(
    `select t.id, t.traveller_name, t.seat_number, t.leg_sequence, t.status, t.payload, t.signature,
            t.boarding_authorized, t.issued_at, r.ticket_id is not null as revoked
     from journey_tickets t left join credential_revocations r on r.ticket_id = t.id
     where t.journey_id = $1 and t.trip_id = $2 and t.status <> 'REISSUED'
     order by t.leg_sequence, t.traveller_index`,
    [booking.journeyId, booking.tripId],
  );
  return rows.map(toDocumentTicket);
}

function baseData(booking: BookingFacts, travellers: SnapshotTraveller[], issuedAt: string): SnapshotData {
  return { ...booking.printed, travellers, payment: null, cancellation: null, issued_at: issuedAt };
}

const travellerOf = (ticket: DocumentTicket): SnapshotTraveller => ({
  name: ticket.travellerName,
  seat_number: ticket.seatNumber,
  leg: ticket.leg,
});

/** Names and seats without credentials: from the tickets, or from the legacy row's seat labels. */
async function plainTravellers(db: Database, booking: BookingFacts): Promise<SnapshotTraveller[]> {
  const tickets = await readTickets(db, booking);
  if (tickets.length > 0) return tickets.map(travellerOf);
  return booking.seatNumbers.map((seat) => ({ name: booking.passengerName, seat_number: seat, leg: 1 }));
}

/**
 * TICKET and BOOKING_CONFIRMATION: every printable ticket with its signed credential. The
 * confirmation lists every traveller of the booking (README "Documents"): a ticket whose QR can no
 * longer be printed (its traveller checked in, the credential consumed) is listed with its seat and
 * no credential; the ticket document prints only the printable tickets, one page each.
 */
export async function boardingDocumentData(
  db: Database,
  booking: BookingFacts,
  kind: 'TICKET' | 'BOOKING_CONFIRMATION',
): Promise<SnapshotData> {
  const tickets = await readTickets(db, booking);
  const printable = boardingTickets(booking, tickets);
  const credentials = new Map<DocumentTicket, string>(
    printable.map((ticket) => [ticket, credentialText(ticket.payload, ticket.signature)]),
  );
  const listed: DocumentTicket[] = kind === 'BOOKING_CONFIRMATION' ? tickets : printable;
  const travellers = listed.map((ticket) => {
    const credential = credentials.get(ticket);
    return credential === undefined ? travellerOf(ticket) : { ...travellerOf(ticket), credential };
  });
  return baseData(booking, travellers, newestIssue(printable));
}

/** INVOICE, issued at the confirmation. */
export async function invoiceDocumentData(db: Database, booking: BookingFacts): Promise<SnapshotData> {
  const refusal = refuseInvoice(booking.status);
  if (refusal) throw refusal;
  return baseData(booking, await plainTravellers(db, booking), booking.confirmedAt ?? booking.createdAt);
}

/** CANCELLATION_CONFIRMATION, issued at the cancellation. */
export async function cancellationDocumentData(db: Database, booking: BookingFacts): Promise<SnapshotData> {
  const refusal = refuseCancellation(booking.status);
  if (refusal) throw refusal;
  return {
    ...baseData(booking, await plainTravellers(db, booking), booking.cancelledAt),
    cancellation: { cancelled_at: booking.cancelledAt, reason: booking.failureReason },
  };
}

interface CollectionRecordRow {
  id: string;
  source: 'transaction' | 'driver' | 'office' | 'booking';
  method: string;
  /** bigint, as text. */
  amount: string;
  status: 'COMPLETED' | 'REFUNDED';
  collected_at: string;
  refunded_at: string | null;
}

export interface CollectionRecord {
  id: string;
  source: CollectionRecordRow['source'];
  method: string;
  amount: number;
  status: 'COMPLETED' | 'REFUNDED';
  /** ISO-8601 instants. */
  collectedAt: string;
  refundedAt: string | null;
}

const toCollectionRecord = (row: CollectionRecordRow): CollectionRecord => ({
  id: row.id,
  source: row.source,
  method: row.method,
  amount: Number(row.amount),
  status: row.status,
  collectedAt: iso(row.collected_at),
  refundedAt: row.refunded_at === null ? null : iso(row.refunded_at),
});

/**
 * The most reliable proof that the booking's money was collected: a verified operation record
 * ('transaction' with a deciding staff user), then the driver's collection, the office's, and
 * last the booking payment fact; newest first within a source. Only COMPLETED or REFUNDED records
 * of the booking's own company count, and none when the booking's trip or route belongs to
 * another company: a mismatched record is never used.
 */
export async function pickCollectionRecord(
  db: Database,
  booking: BookingFacts,
): Promise<CollectionRecord | undefined> {
  if (!booking.companyMatches) return undefined;
  const [row] = await db.query<CollectionRecordRow>(
    // A refund still owed (REFUND_DUE) is collected money: its receipt stands until the refund is paid.
    `select id, source, method, amount, case status when 'REFUNDED' then 'REFUNDED' else 'COMPLETED' end as status,
            collected_at, refunded_at
     from payment_operations
     where booking_id = $1 and company_id = $2 and status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED')
       and collected_at is not null
     order by case
                when source = 'transaction' and decided_at is not null then 0
                when source = 'driver' then 1
                when source = 'office' then 2
                when source = 'booking' then 3
                else 4
              end,
              collected_at desc, id`,
    [booking.id, booking.companyId],
  );
  return row ? toCollectionRecord(row) : undefined;
}

interface IssuedReceiptRow {
  data: SnapshotData;
}

/**
 * PAYMENT_RECEIPT or REFUND_NOTICE under its fixed number: the data of the number's first snapshot,
 * in whichever language it was first issued (an issued receipt never changes), else the collection
 * record's facts, issued when the number was assigned. The data is the same for both languages
 * (every name in it is bilingual, codes are put into words when printed), so the other language
 * prints the facts of the issue too; each language is still its own snapshot and render.
 */
export async function receiptDocumentData(
  db: Database,
  booking: BookingFacts,
  document: { kind: 'PAYMENT_RECEIPT' | 'REFUND_NOTICE'; record: CollectionRecord },
  receipt: { number: string; issuedAt: string },
): Promise<SnapshotData> {
  const [issued] = await db.query<IssuedReceiptRow>(
    `select data from document_snapshots where company_id = $1 and kind = $2 and number = $3
     order by created_at, id limit 1`,
    [booking.companyId, document.kind, receipt.number],
  );
  if (issued) return issued.data;
  const { record } = document;
  const payment: SnapshotPayment = {
    number: receipt.number,
    method: record.method,
    amount: record.amount,
    // A refund notice prints the refund's time (a REFUNDED record always has one: a check constraint).
    collected_at:
      document.kind === 'REFUND_NOTICE' ? (record.refundedAt ?? record.collectedAt) : record.collectedAt,
    source: record.source,
  };
  return { ...baseData(booking, await plainTravellers(db, booking), receipt.issuedAt), payment };
}
