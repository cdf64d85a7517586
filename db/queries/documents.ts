import { canonicalJson } from '../../domain/boarding-credential.js';
import { Refusal } from '../../domain/refusal.js';
import type {
  DocumentKind,
  DocumentLocale,
  SnapshotData,
  SnapshotPayment,
  SnapshotTraveller,
} from '../../domain/documents.js';
import type { Database } from '../orm.js';
import { issueReceiptNumber, type ReceiptKind } from '../writes/receipts.js';

/**
 * What a booking document prints (SnapshotData), built from the booking, its journey tickets and
 * its collection records, or the reason it may not be issued. The customer document and receipt
 * routes and document shares all build through buildBookingDocument, so a traveller and the
 * recipient of a share see the same snapshot.
 *
 * Rules (SPEC "Tickets and documents", "Document ticket validity", the 410 rule):
 *   - TICKET and BOOKING_CONFIRMATION only while the confirmation projection authorizes boarding:
 *     journey CONFIRMED and its tickets VALID with boarding_authorized. A request not (yet)
 *     confirmed is 409 BOOKING_NOT_CONFIRMED: no QR, no PDF. A QR that expired (trip departed,
 *     arrived, completed or cancelled; the alighting time passed; the booking cancelled) or was
 *     consumed (ticket USED) is 410 DOCUMENT_GONE.
 *   - PAYMENT_RECEIPT only once collection is proved: a COMPLETED (or REFUNDED) payment operation
 *     of the booking's company; a REFUNDED one gives the REFUND_NOTICE. Else 409
 *     PAYMENT_NOT_COLLECTED. The record used and its fixed number are described at
 *     pickCollectionRecord and in db/writes/receipts.ts.
 *   - INVOICE for a booking once confirmed; CANCELLATION_CONFIRMATION for a cancelled booking.
 *
 * Every instant printed is a fact of the booking (confirmation, collection, cancellation), never
 * "now", so asking again with nothing changed gives the same data, hence the same snapshot and
 * the same bytes. Tickets re-issued since give new credentials, hence a new snapshot.
 */

/** Who asks: the route has authenticated them; the builder checks they may see this booking. */
export type DocumentViewer =
  /** A traveller: only their own bookings. */
  | { kind: 'TRAVELLER'; userId: string }
  /** A company user or driver: only bookings of that company. */
  | { kind: 'COMPANY'; companyId: string }
  /** Access already proved elsewhere (an accepted document share grant). */
  | { kind: 'GRANT' };

export interface BookingDocumentInput {
  /** The compatibility booking id, or the id of a journey that has exactly one booking row. */
  bookingId: string;
  kind: DocumentKind;
  locale: DocumentLocale;
  viewer: DocumentViewer;
}

/** Everything saveSnapshot needs, plus what a route names the file after. */
export interface BookingDocument {
  /** May differ from the kind asked: a PAYMENT_RECEIPT of a refunded payment is its REFUND_NOTICE. */
  kind: DocumentKind;
  locale: DocumentLocale;
  /** Always the compatibility bookings row id (also when a journey id was given). */
  bookingId: string;
  bookingCode: string;
  companyId: string;
  ownerUserId: string | null;
  /** The fixed receipt or refund number; null for other kinds. */
  number: string | null;
  data: SnapshotData;
}

/** Why a document may not be issued (404, 409 or 410 with its errorCode). */
export class DocumentRefusal extends Refusal {
  constructor(facts: { status: 404 | 409 | 410; errorCode: string; message: string }) {
    super(facts.status, facts.errorCode, facts.message);
  }
}

const DOCUMENT_REFUSALS = {
  notFound: { status: 404, errorCode: 'BOOKING_NOT_FOUND', message: 'No such booking' },
  notConfirmed: {
    status: 409,
    errorCode: 'BOOKING_NOT_CONFIRMED',
    message: 'The booking is not confirmed for boarding yet; no ticket document exists',
  },
  gone: {
    status: 410,
    errorCode: 'DOCUMENT_GONE',
    message:
      'The boarding credential of this booking expired or was used; the ticket document is no longer issued',
  },
  notCollected: {
    status: 409,
    errorCode: 'PAYMENT_NOT_COLLECTED',
    message: 'No collected payment is recorded for this booking yet',
  },
  notRefunded: {
    status: 409,
    errorCode: 'PAYMENT_NOT_REFUNDED',
    message: 'The payment of this booking was not refunded',
  },
  notCancelled: { status: 409, errorCode: 'BOOKING_NOT_CANCELLED', message: 'The booking is not cancelled' },
} as const;

const refuse = (refusal: keyof typeof DOCUMENT_REFUSALS) => new DocumentRefusal(DOCUMENT_REFUSALS[refusal]);

const iso = (value: unknown) => new Date(value as string | Date).toISOString();

/** The booking row with everything any document prints about it. */
interface BookingFacts {
  id: string;
  booking_code: string;
  status: string;
  payment_status: string;
  created_at: Date;
  updated_at: Date;
  seats_count: number;
  seat_numbers: string[];
  passenger_name: string;
  subtotal: string;
  discount: string;
  total_price: string;
  currency: string;
  company_id: string;
  owner_user_id: string | null;
  journey_id: string | null;
  trip_id: string;
  journey_status: string | null;
  confirmed_at: Date | null;
  closed_at: Date | null;
  failure_reason: string | null;
  company_name_ar: string;
  company_name_en: string;
  company_phone: string | null;
  /** The trip and its route are the booking's company's (a mismatched record is never used). */
  company_matches: boolean;
  /** The trip no longer boards: departed, arrived, completed or cancelled, or the alighting time passed. */
  trip_over: boolean;
  origin_ar: string;
  origin_en: string;
  destination_ar: string;
  destination_en: string;
  departure_at: Date;
  arrival_at: Date;
  pickup_name_ar: string;
  pickup_name_en: string;
  pickup_address_ar: string;
  pickup_address_en: string;
  pickup_directions_ar: string;
  pickup_directions_en: string;
}

/**
 * The booking named by `id`: a bookings row, or the one bookings row of a journey. Its leg gives
 * the boarding and alighting stop calls; a legacy row without a journey spans the whole trip.
 */
async function readBookingFacts(db: Database, id: string): Promise<BookingFacts | undefined> {
  const [row] = await db.query<BookingFacts>(
    `select b.id, b.booking_code, b.status, b.payment_status, b.created_at, b.updated_at, b.seats_count, b.seat_numbers,
            b.passenger_name, b.subtotal, b.discount, b.total_price, b.currency, b.company_id, b.owner_user_id,
            b.journey_id, b.trip_id, j.status as journey_status, j.confirmed_at, j.closed_at, j.failure_reason,
            c.name_ar as company_name_ar, c.name_en as company_name_en, c.phone as company_phone,
            (t.company_id = b.company_id and r.company_id = b.company_id) as company_matches,
            (t.status in ('DEPARTED', 'ARRIVED', 'COMPLETED', 'CANCELLED') or ac.arrival_at < now()) as trip_over,
            oc.name_ar as origin_ar, oc.name_en as origin_en, dc.name_ar as destination_ar, dc.name_en as destination_en,
            bc.departure_at, ac.arrival_at,
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
     join cities oc on oc.id = bc.city_id
     join cities dc on dc.id = ac.city_id
     where b.id = $1
        or (b.journey_id = $1 and (select count(*) from bookings o where o.journey_id = $1) = 1)`,
    [id],
  );
  return row;
}

function mayView(viewer: DocumentViewer, booking: BookingFacts): boolean {
  if (viewer.kind === 'TRAVELLER') return booking.owner_user_id === viewer.userId;
  if (viewer.kind === 'COMPANY') return booking.company_id === viewer.companyId;
  return true;
}

interface TicketFacts {
  id: string;
  traveller_name: string;
  seat_number: string;
  leg_sequence: number;
  status: 'PENDING_CONFIRMATION' | 'VALID' | 'CANCELLED' | 'USED' | 'REISSUED';
  payload: unknown;
  signature: string | null;
  boarding_authorized: boolean;
  issued_at: Date | null;
  revoked: boolean;
}

/** The booking's current tickets (re-issued ones are history), in traveller order. */
function readTickets(db: Database, booking: BookingFacts): Promise<TicketFacts[]> {
  return db.query<TicketFacts>(
    `select t.id, t.traveller_name, t.seat_number, t.leg_sequence, t.status, t.payload, t.signature,
            t.boarding_authorized, t.issued_at, r.ticket_id is not null as revoked
     from journey_tickets t left join credential_revocations r on r.ticket_id = t.id
     where t.journey_id = $1 and t.trip_id = $2 and t.status <> 'REISSUED'
     order by t.leg_sequence, t.traveller_index`,
    [booking.journey_id, booking.trip_id],
  );
}

/**
 * The text of a ticket's QR code: the signed boarding credential exactly as the driver app sends
 * it to POST /driver/api/verify (with the trip it is boarding), `{"payload":…,"signature":…}` in
 * canonical JSON. The payload goes through canonicalJson because jsonb re-orders its keys.
 */
export function credentialText(payload: unknown, signature: string): string {
  const value = typeof payload === 'string' ? (JSON.parse(payload) as unknown) : payload;
  return canonicalJson({ payload: value, signature });
}

const authorized = (ticket: TicketFacts) =>
  ticket.status === 'VALID' && ticket.boarding_authorized && ticket.signature !== null && !ticket.revoked;

/** The boarding-document verdict: the tickets to print, or the refusal thrown when there is no document. */
function boardingTickets(booking: BookingFacts, tickets: TicketFacts[]): TicketFacts[] {
  const cancelled = booking.status === 'CANCELLED' || booking.journey_status === 'CANCELLED';
  const everSigned = tickets.some((ticket) => ticket.issued_at !== null);
  if (!everSigned) throw refuse(cancelled || booking.trip_over ? 'gone' : 'notConfirmed');
  if (cancelled || booking.trip_over) throw refuse('gone');
  if (booking.journey_status !== 'CONFIRMED') throw refuse('notConfirmed');
  const printable = tickets.filter(authorized);
  if (printable.length > 0) return printable;
  throw refuse(tickets.some((ticket) => ticket.status === 'PENDING_CONFIRMATION') ? 'notConfirmed' : 'gone');
}

function baseData(booking: BookingFacts, travellers: SnapshotTraveller[], issuedAt: string): SnapshotData {
  return {
    company: {
      name_ar: booking.company_name_ar,
      name_en: booking.company_name_en,
      phone: booking.company_phone,
    },
    booking: {
      id: booking.id,
      code: booking.booking_code,
      status: booking.status,
      created_at: iso(booking.created_at),
      seats_count: booking.seats_count,
      subtotal: Number(booking.subtotal),
      discount: Number(booking.discount),
      total: Number(booking.total_price),
      currency: booking.currency,
      payment_status: booking.payment_status,
    },
    trip: {
      origin: { ar: booking.origin_ar, en: booking.origin_en },
      destination: { ar: booking.destination_ar, en: booking.destination_en },
      departure_at: iso(booking.departure_at),
      arrival_at: iso(booking.arrival_at),
      pickup: {
        name: { ar: booking.pickup_name_ar, en: booking.pickup_name_en },
        address: { ar: booking.pickup_address_ar, en: booking.pickup_address_en },
        directions: { ar: booking.pickup_directions_ar, en: booking.pickup_directions_en },
      },
    },
    travellers,
    payment: null,
    cancellation: null,
    issued_at: issuedAt,
  };
}

/** Names and seats without credentials: from the tickets, or from the legacy row's seat labels. */
async function plainTravellers(db: Database, booking: BookingFacts): Promise<SnapshotTraveller[]> {
  const tickets = booking.journey_id ? await readTickets(db, booking) : [];
  if (tickets.length > 0) {
    return tickets.map((ticket) => ({
      name: ticket.traveller_name,
      seat_number: ticket.seat_number,
      leg: ticket.leg_sequence,
    }));
  }
  return booking.seat_numbers.map((seat) => ({ name: booking.passenger_name, seat_number: seat, leg: 1 }));
}

/** The instant a boarding document is issued: when its newest credential was signed. */
const newestIssue = (tickets: TicketFacts[]) =>
  iso(Math.max(...tickets.map((ticket) => new Date(ticket.issued_at!).getTime())));

async function boardingDocument(db: Database, booking: BookingFacts): Promise<SnapshotData> {
  const tickets = booking.journey_id ? await readTickets(db, booking) : [];
  const printable = boardingTickets(booking, tickets);
  const travellers = printable.map((ticket) => ({
    name: ticket.traveller_name,
    seat_number: ticket.seat_number,
    leg: ticket.leg_sequence,
    credential: credentialText(ticket.payload, ticket.signature!),
  }));
  return baseData(booking, travellers, newestIssue(printable));
}

export interface CollectionRecord {
  id: string;
  source: 'transaction' | 'driver' | 'office' | 'booking';
  method: string;
  amount: string;
  status: 'COMPLETED' | 'REFUNDED';
  collected_at: Date;
  refunded_at: Date | null;
}

/**
 * The most reliable proof that the booking's money was collected: a verified operation record
 * ('transaction' with a deciding staff user), then the driver's collection, the office's, and
 * last the booking payment fact; newest first within a source. Only COMPLETED or REFUNDED records
 * of the booking's own company count, and none when the booking's trip or route belongs to
 * another company: a mismatched record is never used.
 */
export async function pickCollectionRecord(
  db: Database,
  booking: { id: string; company_id: string; company_matches: boolean },
): Promise<CollectionRecord | undefined> {
  if (!booking.company_matches) return undefined;
  const [record] = await db.query<CollectionRecord>(
    `select id, source, method, amount, status, collected_at, refunded_at
     from payment_operations
     where booking_id = $1 and company_id = $2 and status in ('COMPLETED', 'REFUNDED') and collected_at is not null
     order by case
                when source = 'transaction' and decided_at is not null then 0
                when source = 'driver' then 1
                when source = 'office' then 2
                when source = 'booking' then 3
                else 4
              end,
              collected_at desc, id`,
    [booking.id, booking.company_id],
  );
  return record;
}

/** The data of an earlier snapshot of this receipt number in this locale: an issued receipt never changes. */
async function issuedReceiptData(
  db: Database,
  companyId: string,
  kind: ReceiptKind,
  number: string,
  locale: DocumentLocale,
): Promise<SnapshotData | undefined> {
  const [row] = await db.query<{ data: SnapshotData }>(
    `select data from document_snapshots where company_id = $1 and kind = $2 and number = $3 and locale = $4
     order by created_at, id limit 1`,
    [companyId, kind, number, locale],
  );
  return row?.data;
}

async function receiptDocument(
  db: Database,
  booking: BookingFacts,
  asked: 'PAYMENT_RECEIPT' | 'REFUND_NOTICE',
  locale: DocumentLocale,
): Promise<{ kind: ReceiptKind; number: string; data: SnapshotData }> {
  const record = await pickCollectionRecord(db, booking);
  if (!record) throw refuse('notCollected');
  if (asked === 'REFUND_NOTICE' && record.status !== 'REFUNDED') throw refuse('notRefunded');
  const kind: ReceiptKind = record.status === 'REFUNDED' ? 'REFUND_NOTICE' : 'PAYMENT_RECEIPT';
  const receipt = await issueReceiptNumber(db, {
    paymentId: record.id,
    kind,
    companyId: booking.company_id,
    bookingId: booking.id,
  });
  const issued = await issuedReceiptData(db, booking.company_id, kind, receipt.number, locale);
  if (issued) return { kind, number: receipt.number, data: issued };
  const payment: SnapshotPayment = {
    number: receipt.number,
    method: record.method,
    amount: Number(record.amount),
    collected_at: iso(kind === 'REFUND_NOTICE' ? record.refunded_at : record.collected_at),
    source: record.source,
  };
  const data = { ...baseData(booking, await plainTravellers(db, booking), receipt.issuedAt), payment };
  return { kind, number: receipt.number, data };
}

const CONFIRMED_BOOKING_STATUSES = new Set(['CONFIRMED', 'CHECKED_IN', 'NO_SHOW', 'COMPLETED']);

async function invoiceDocument(db: Database, booking: BookingFacts): Promise<SnapshotData> {
  if (!CONFIRMED_BOOKING_STATUSES.has(booking.status)) {
    throw refuse(booking.status === 'CANCELLED' ? 'gone' : 'notConfirmed');
  }
  return baseData(
    booking,
    await plainTravellers(db, booking),
    iso(booking.confirmed_at ?? booking.created_at),
  );
}

async function cancellationDocument(db: Database, booking: BookingFacts): Promise<SnapshotData> {
  if (booking.status !== 'CANCELLED') throw refuse('notCancelled');
  const cancelledAt = iso(booking.closed_at ?? booking.updated_at);
  return {
    ...baseData(booking, await plainTravellers(db, booking), cancelledAt),
    cancellation: { cancelled_at: cancelledAt, reason: booking.failure_reason },
  };
}

/**
 * The document of a booking for this viewer; throws the DocumentRefusal when it may not be given.
 * For PAYMENT_RECEIPT and REFUND_NOTICE it assigns the collection record's fixed number on first
 * use (its one write), so every way of asking for the receipt gets the same number.
 */
export async function buildBookingDocument(
  db: Database,
  input: BookingDocumentInput,
): Promise<BookingDocument> {
  const booking = await readBookingFacts(db, input.bookingId);
  if (!booking || !mayView(input.viewer, booking)) throw refuse('notFound');
  const { kind, number, data } = await documentData(db, booking, input);
  return {
    kind,
    locale: input.locale,
    bookingId: booking.id,
    bookingCode: booking.booking_code,
    companyId: booking.company_id,
    ownerUserId: booking.owner_user_id,
    number,
    data,
  };
}

async function documentData(
  db: Database,
  booking: BookingFacts,
  input: BookingDocumentInput,
): Promise<{ kind: DocumentKind; number: string | null; data: SnapshotData }> {
  switch (input.kind) {
    case 'TICKET':
    case 'BOOKING_CONFIRMATION':
      return { kind: input.kind, number: null, data: await boardingDocument(db, booking) };
    case 'PAYMENT_RECEIPT':
    case 'REFUND_NOTICE':
      return receiptDocument(db, booking, input.kind, input.locale);
    case 'INVOICE':
      return { kind: input.kind, number: null, data: await invoiceDocument(db, booking) };
    case 'CANCELLATION_CONFIRMATION':
      return { kind: input.kind, number: null, data: await cancellationDocument(db, booking) };
  }
}
