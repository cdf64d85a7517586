import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { newBookingCode, seatsPrice, SEAT_LOCK_EXPIRED } from '../../../domain/booking.js';
import type { BookingChannel } from '../../../domain/journey-confirmation.js';
import type { InventoryScope } from '../../../domain/inventory-scope.js';
import {
  activeSigningKey,
  signTickets,
  type SignedTicket,
  type SigningKey,
  type SigningOptions,
} from '../boarding-credentials.js';
import { consumeVoucher } from '../loyalty/index.js';
import { allocationsInIdOrder } from '../allocation-locks.js';
import { BOOKING_EVENT_COLUMNS, bookingEventsSql } from '../outbox.js';
import type { AccountCaps } from '../inventory-caps.js';
import { bookableTrip, requireAutomaticConfirmation, type BookableTrip } from '../seat-locks.js';
import { lockRefusal, requireUsable, type LockedLock } from './seat-lock.js';

/** One booked trip (a "line"): its lock, its price and voucher part, and the one statement that stores it. */

export interface BookingCaller {
  userId: string;
  scope: InventoryScope;
  channel: BookingChannel;
  /** The account's abuse caps (config); absent, none is enforced. */
  caps?: AccountCaps;
}

export interface PassengerInput {
  passengerName: string;
  passengerPhone: string;
  rewardCode?: string | undefined;
}

export interface Line {
  lock: LockedLock;
  trip: BookableTrip;
  subtotal: number;
  /** The average seat price, for the journey leg's record only. */
  unitPrice: number;
  /** Each seat's own fare, in lock order: what a free-trip voucher makes free. */
  seatPrices: number[];
  discount: number;
  journeyId: string;
  bookingId: string;
}

/** What the line costs once its voucher is applied: the booking's total_price. */
export const lineTotal = (line: Line) => line.subtotal - line.discount;

/** How many of the lines leave something to pay once their voucher is applied (the unpaid cap counts those). */
export const linesToPay = (lines: Line[]) => lines.filter((line) => lineTotal(line) > 0).length;

/**
 * Takes the booking's trips FOR SHARE, in id order, before its seat locks: a dispatch CANCEL holds
 * its trip FOR NO KEY UPDATE from before it gathers the trip's bookings and releases its seat locks
 * until it commits. So a booking either waits for the cancel and then finds its lock released or
 * the trip CANCELLED, or commits first and is cancelled with the others. Without this a booking
 * read the trip while the cancel ran and stayed CONFIRMED on a cancelled trip; taken after the seat
 * lock, the two deadlocked (test/api/dashboard/cancel-races.test.ts). Bookings share it. One
 * statement a trip, by its key: an `= any($1)` form planned a scan of trips.
 */
export async function shareLockTrips(client: PoolClient, tripIds: string[]): Promise<void> {
  for (const tripId of [...new Set(tripIds)].sort()) {
    await client.query(`select id from trips where id = $1 for share`, [tripId]);
  }
}

/** The trips of seat locks, read without locking them: a seat lock's seats never change trip. */
export async function tripsOfSeatLocks(client: PoolClient, seatLockIds: string[]): Promise<string[]> {
  const { rows } = await client.query<{ trip_id: string }>(
    `select distinct trip_id from seat_allocations where hold_batch_id = any($1::uuid[])`,
    [seatLockIds],
  );
  return rows.map((row) => row.trip_id);
}

/**
 * Checks the lock's trip (scope, bookable, automatic confirmation) and prices its seats. The read
 * holds the trip's company row FOR SHARE to the booking's commit (bookableTrip): a suspension waits
 * for a booking past this check, and a booking meeting a suspension in flight waits and is refused.
 */
export async function lineOf(client: PoolClient, caller: BookingCaller, lock: LockedLock): Promise<Line> {
  requireUsable(lock);
  const trip = await bookableTrip(client, caller.scope, lock.seats[0]!.trip_id);
  requireAutomaticConfirmation(trip, caller.channel);
  const price = seatsPrice(
    {
      priceBase: Number(trip.price_base),
      priceVip: trip.price_vip === null ? null : Number(trip.price_vip),
      boardShareBp: trip.first_share_bp,
      alightShareBp: trip.last_share_bp,
    },
    lock.seats.map((seat) => seat.seat_class),
  );
  return {
    lock,
    trip,
    subtotal: price.subtotal,
    unitPrice: price.unitPrice,
    seatPrices: price.seatPrices,
    discount: 0,
    journeyId: randomUUID(),
    bookingId: randomUUID(),
  };
}

/** The voucher, when one is given, priced over every line and marked used (LoyaltyRefusal otherwise). */
export async function applyVoucher(
  client: PoolClient,
  caller: BookingCaller,
  rewardCode: string | undefined,
  lines: Line[],
): Promise<string | null> {
  if (!rewardCode) return null;
  const voucher = await consumeVoucher(client, {
    code: rewardCode,
    userId: caller.userId,
    bookingIds: lines.map((line) => line.bookingId),
    lines: lines.map((line) => ({
      tripId: line.trip.id,
      companyId: line.trip.company_id,
      routeId: line.trip.route_id,
      departureAt: new Date(line.trip.departure_at),
      subtotal: line.subtotal,
      seatPrices: line.seatPrices,
    })),
  });
  lines.forEach((line, index) => {
    line.discount = voucher.lineDiscounts[index] ?? 0;
  });
  return voucher.redemptionId;
}

/**
 * The key and instant every ticket of one booking transaction is signed with: the write's own
 * database instant (`at`, read once its locks are held), never this host's clock, so a ticket is
 * not issued before its booking nor after a scan that follows it.
 */
interface Signer {
  key: SigningKey;
  issuedAt: Date;
}

export const signerOf = async (client: PoolClient, signing: SigningOptions, at: string): Promise<Signer> => ({
  key: await activeSigningKey(client, signing),
  issuedAt: new Date(at),
});

/** One ticket per seat, signed before it is written (the booking is CONFIRMED at once). */
function signedTickets(line: Line, passenger: PassengerInput, signer: Signer): SignedTicket[] {
  const { trip } = line;
  const tickets = line.lock.seats.map((seat) => ({
    id: randomUUID(),
    trip_id: trip.id,
    company_id: trip.company_id,
    leg_sequence: 1,
    traveller_name: passenger.passengerName,
    seat_number: seat.seat_number,
    board_stop_call_id: trip.first_call_id,
    alight_stop_call_id: trip.last_call_id,
    departure_at: trip.departure_at,
  }));
  return signTickets(tickets, signer.key, signer.issuedAt);
}

/**
 * Journey, leg, signed VALID tickets and bookings row; the lock's allocations CONFIRMED for the
 * journey and the lock CONSUMED, the journey, booking row and lock stamped with the booking's write
 * time ($30). One statement (foreign keys are checked at its end), so the booking costs one round
 * trip to the database here rather than eight.
 */
const WRITE_LINE = `with u as (select id, passenger_id from users where id = $1),
     j as (
       insert into journeys (id, quote_id, origin, order_id, owner_user_id, passenger_id, channel, party_size, status,
                             total_price, currency, confirmed_at)
       select $2, null, 'BOOKING_API', $3, u.id, u.passenger_id, $4, $5, 'CONFIRMED', $6, $7, $30::timestamptz from u
       returning id),
     l as (
       insert into journey_legs (journey_id, sequence, trip_id, company_id, board_stop_call_id, alight_stop_call_id,
                                 board_sequence, alight_sequence, unit_price, quantity, subtotal)
       select j.id, 1, $8, $9, $10, $11, $12, $13, $14, $5, $15 from j
       returning journey_id),
     t as (
       insert into journey_tickets (id, journey_id, leg_sequence, traveller_index, traveller_name, traveller_phone, trip_id,
                                    company_id, seat_id, seat_number, status, payload, signature, key_id, issued_at,
                                    boarding_authorized)
       select s.id, j.id, 1, s.index - 1, $16, $17, $8, $9, s.seat_id, s.seat_number, 'VALID', s.payload::jsonb,
              s.signature, $25, $26, true
       from j, unnest($27::uuid[], $18::text[], $19::text[], $28::text[], $29::text[])
               with ordinality as s(id, seat_id, seat_number, payload, signature, index)
       returning id),
     b as (
       insert into bookings (id, booking_code, journey_id, company_id, trip_id, passenger_id, owner_user_id, passenger_name,
                             passenger_phone, seats_count, seat_numbers, status, payment_status, subtotal, discount,
                             total_price, currency, channel, seat_lock_session_id, reward_redemption_id, updated_at)
       select $20, $21, j.id, $9, $8, u.passenger_id, u.id, $16, $17, $5, $19, 'CONFIRMED', 'UNPAID', $15, $22, $6, $7, $4,
              $23, $24, $30::timestamptz
       from u, j
       returning ${BOOKING_EVENT_COLUMNS}),
     -- Booked through a seat lock, the booking is confirmed at once: both events, in this statement.
     ev as (${bookingEventsSql('b', ['booking.created', 'booking.confirmed'])} returning 1),
     a as (
       update seat_allocations set status = 'CONFIRMED', expires_at = null, owner_kind = 'JOURNEY', owner_id = $2
       where ${allocationsInIdOrder(`hold_batch_id = $23 and status = 'HELD'`)}
       returning id),
     h as (update hold_batches set status = 'CONSUMED', closed_at = $30::timestamptz where id = $23 returning id)
     select (select count(*) from a)::int as confirmed`;

interface LineExtra {
  orderId: string | null;
  redemptionId: string | null;
  signer: Signer;
  /**
   * The booking transaction's writeTime, read once it holds its rows: the journey's confirmed_at, the
   * booking row's updated_at and the lock's closed_at, so a booking that waited for a lock is never
   * dated before the writer it waited for.
   */
  at: string;
}

/** The parameters of WRITE_LINE, $1 to $30 in order. */
function writeLineParams(
  caller: BookingCaller,
  line: Line,
  passenger: PassengerInput,
  extra: LineExtra,
  tickets: SignedTicket[],
): unknown[] {
  const { trip, lock } = line;
  const seats = lock.seats;
  return [
    caller.userId,
    line.journeyId,
    extra.orderId,
    caller.channel,
    seats.length,
    lineTotal(line),
    trip.currency,
    trip.id,
    trip.company_id,
    trip.first_call_id,
    trip.last_call_id,
    trip.first_sequence,
    trip.last_sequence,
    line.unitPrice,
    line.subtotal,
    passenger.passengerName,
    passenger.passengerPhone,
    seats.map((seat) => seat.seat_id),
    seats.map((seat) => seat.seat_number),
    line.bookingId,
    newBookingCode(),
    line.discount,
    lock.id,
    extra.redemptionId,
    extra.signer.key.keyId,
    extra.signer.issuedAt,
    tickets.map((ticket) => ticket.id),
    tickets.map((ticket) => ticket.payload),
    tickets.map((ticket) => ticket.signature),
    extra.at,
  ];
}

/** Stores the line; a seat whose hold lapsed under the lock means the lock expired after all. */
export async function writeLine(
  client: PoolClient,
  caller: BookingCaller,
  line: Line,
  passenger: PassengerInput,
  extra: LineExtra,
): Promise<void> {
  const tickets = signedTickets(line, passenger, extra.signer);
  const { rows } = await client.query<{ confirmed: number }>(
    WRITE_LINE,
    writeLineParams(caller, line, passenger, extra, tickets),
  );
  if (rows[0]!.confirmed !== line.lock.seats.length) throw lockRefusal(line.lock.id, SEAT_LOCK_EXPIRED);
}
