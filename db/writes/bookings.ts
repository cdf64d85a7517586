import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import {
  newBookingCode,
  roundTripProblem,
  sameSeats,
  seatsPrice,
  type TripEnds,
} from '../../domain/booking.js';
import type { BookingChannel } from '../../domain/journey-confirmation.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import type { Database } from '../orm.js';
import { PICKUP_COLUMNS, toPickupLocation, type PickupLocation } from '../queries/pickup-location.js';
import type { PickupRow } from '../queries/pickup-location.js';
import {
  activeSigningKey,
  signTickets,
  type SigningKey,
  type SigningOptions,
} from './boarding-credentials.js';
import { JourneyRefusal } from './journeys/index.js';
import { consumeVoucher } from './loyalty.js';
import {
  bookableTrip,
  requireAutomaticConfirmation,
  type BookableTrip,
  type Queryable,
  type SeatLockStatus,
} from './seat-locks.js';

/**
 * POST /bookings and POST /bookings/round-trip (SPEC "Booking creation payload", "Bookings"):
 * each is ONE transaction that consumes seat locks and stores the booking the modern way — a
 * journey without a quote (origin BOOKING_API) with one leg over the whole trip, one signed
 * ticket per seat, the compatibility bookings row (the booking id clients use), the lock's
 * allocations CONFIRMED for the journey, and the voucher (reward_code) marked used. Only
 * companies that confirm automatically for the channel take bookings this way, so the booking is
 * CONFIRMED at once with payment_status UNPAID (cash is paid at the office or to the driver); no
 * workflow is involved because nothing waits on a clock or a decision.
 *
 * A refusal anywhere (the voucher included) rolls everything back: the lock stays ACTIVE and the
 * voucher unused. A retry with the same lock by its owner answers the booking it made.
 */
export interface BookingCaller {
  userId: string;
  scope: InventoryScope;
  channel: BookingChannel;
}

export interface PassengerInput {
  passengerName: string;
  passengerPhone: string;
  rewardCode?: string | undefined;
}

export interface BookingInput extends PassengerInput {
  seatLockSessionId: string;
  tripId: string;
  seatNumbers: string[];
}

export interface RoundTripInput extends PassengerInput {
  outboundSeatLockSessionId: string;
  returnSeatLockSessionId: string;
}

export interface BookingRecord {
  id: string;
  booking_code: string;
  status: string;
  trip_id: string;
  seat_numbers: string[];
  seats_count: number;
  passenger_name: string;
  passenger_phone: string;
  subtotal: number;
  discount: number;
  total_price: number;
  currency: string;
  payment_status: string;
  seat_lock_session_id: string | null;
  journey_id: string | null;
  order_id: string | null;
  created_at: string;
  trip: {
    id: string;
    departure_at: string;
    arrival_at: string;
    status: string;
    company: { id: string; name_ar: string; name_en: string };
    origin_city: { id: string; name_ar: string; name_en: string };
    destination_city: { id: string; name_ar: string; name_en: string };
    pickupLocation: PickupLocation;
  };
}

export interface CreatedBooking {
  booking: BookingRecord;
  /** False when a retry found the booking this lock already made. */
  created: boolean;
}

export interface CreatedRoundTrip {
  orderId: string;
  outbound: BookingRecord;
  inbound: BookingRecord;
  created: boolean;
}

const iso = (value: string | Date) => new Date(value).toISOString();

// ---------------------------------------------------------------------------------------------
// The lock a booking consumes
// ---------------------------------------------------------------------------------------------

interface LockedSeat {
  trip_id: string;
  seat_id: string;
  seat_number: string;
  seat_class: 'STANDARD' | 'VIP';
}

interface LockedLock {
  id: string;
  status: SeatLockStatus;
  live: boolean;
  seats: LockedSeat[];
}

/** Locks the batch (FOR UPDATE) and reads its held seats; another traveller's lock is 404. */
async function lockSeatLock(client: PoolClient, userId: string, id: string): Promise<LockedLock> {
  const { rows } = await client.query<{
    owner_user_id: string | null;
    status: SeatLockStatus;
    live: boolean;
  }>(
    `select owner_user_id, status, expires_at > now() as live from hold_batches
       where id = $1 and scope_kind = 'SEAT_LOCK' for update`,
    [id],
  );
  const batch = rows[0];
  if (!batch || batch.owner_user_id !== userId) {
    throw new JourneyRefusal(404, 'SEAT_LOCK_NOT_FOUND', 'No such seat lock', { seat_lock_session_id: id });
  }
  const { rows: seats } = await client.query<LockedSeat>(
    `select a.trip_id, a.seat_id, coalesce(ls.seat_number, a.seat_id) as seat_number,
            coalesce(ls.seat_class, 'STANDARD') as seat_class
     from seat_allocations a
     join trips t on t.id = a.trip_id
     left join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
     left join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
     where a.hold_batch_id = $1 and a.status = 'HELD'
     order by a.seat_id`,
    [id],
  );
  return { id, status: batch.status, live: batch.live, seats };
}

/** A lock that can still be booked: ACTIVE, not expired, every seat still held. */
function requireUsable(lock: LockedLock): void {
  const details = { seat_lock_session_id: lock.id };
  if (lock.status === 'CONSUMED')
    throw new JourneyRefusal(
      409,
      'SEAT_LOCK_CONSUMED',
      'This seat lock was already used for a booking',
      details,
    );
  if (lock.status === 'RELEASED')
    throw new JourneyRefusal(
      409,
      'SEAT_LOCK_RELEASED',
      'This seat lock was released; lock the seats again',
      details,
    );
  if (lock.status === 'EXPIRED' || !lock.live || lock.seats.length === 0) {
    throw new JourneyRefusal(
      409,
      'SEAT_LOCK_EXPIRED',
      'This seat lock has expired; lock the seats again',
      details,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// One booked trip (a "line")
// ---------------------------------------------------------------------------------------------

interface Line {
  lock: LockedLock;
  trip: BookableTrip;
  subtotal: number;
  unitPrice: number;
  discount: number;
  journeyId: string;
  bookingId: string;
}

/** Checks the lock's trip (scope, bookable, automatic confirmation) and prices its seats. */
async function lineOf(client: PoolClient, caller: BookingCaller, lock: LockedLock): Promise<Line> {
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
    discount: 0,
    journeyId: randomUUID(),
    bookingId: randomUUID(),
  };
}

/** The voucher, when one is given, priced over every line and marked used (LoyaltyRefusal otherwise). */
async function applyVoucher(
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
      seatPrice: line.unitPrice,
    })),
  });
  lines.forEach((line, index) => {
    line.discount = voucher.lineDiscounts[index] ?? 0;
  });
  return voucher.redemptionId;
}

/** The key and instant every ticket of one booking transaction is signed with. */
interface Signer {
  key: SigningKey;
  issuedAt: Date;
}

const signerOf = async (client: PoolClient, signing: SigningOptions): Promise<Signer> => ({
  key: await activeSigningKey(client, signing),
  issuedAt: new Date(),
});

/** One ticket per seat, signed before it is written (the booking is CONFIRMED at once). */
function signedTickets(line: Line, passenger: PassengerInput, signer: Signer) {
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
 * journey and the lock CONSUMED. One statement (foreign keys are checked at its end), so the
 * booking costs one round trip to the database here rather than eight.
 */
async function writeLine(
  client: PoolClient,
  caller: BookingCaller,
  line: Line,
  passenger: PassengerInput,
  extra: { orderId: string | null; redemptionId: string | null; signer: Signer },
): Promise<void> {
  const { trip, lock } = line;
  const seats = lock.seats;
  const tickets = signedTickets(line, passenger, extra.signer);
  const { rows } = await client.query<{ confirmed: number }>(
    `with u as (select id, passenger_id from users where id = $1),
     j as (
       insert into journeys (id, quote_id, origin, order_id, owner_user_id, passenger_id, channel, party_size, status,
                             total_price, currency, confirmed_at)
       select $2, null, 'BOOKING_API', $3, u.id, u.passenger_id, $4, $5, 'CONFIRMED', $6, $7, now() from u
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
                             total_price, currency, channel, seat_lock_session_id, reward_redemption_id)
       select $20, $21, j.id, $9, $8, u.passenger_id, u.id, $16, $17, $5, $19, 'CONFIRMED', 'UNPAID', $15, $22, $6, $7, $4,
              $23, $24
       from u, j
       returning id),
     a as (
       update seat_allocations set status = 'CONFIRMED', expires_at = null, owner_kind = 'JOURNEY', owner_id = $2
       where hold_batch_id = $23 and status = 'HELD'
       returning id),
     h as (update hold_batches set status = 'CONSUMED', closed_at = now() where id = $23 returning id)
     select (select count(*) from a)::int as confirmed`,
    [
      caller.userId,
      line.journeyId,
      extra.orderId,
      caller.channel,
      seats.length,
      line.subtotal - line.discount,
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
    ],
  );
  if (rows[0]!.confirmed !== seats.length) {
    throw new JourneyRefusal(409, 'SEAT_LOCK_EXPIRED', 'This seat lock has expired; lock the seats again', {
      seat_lock_session_id: lock.id,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// POST /bookings
// ---------------------------------------------------------------------------------------------

/** The booking a consumed lock made, for a retry by its owner. */
async function bookingOfLock(q: Queryable, lockId: string): Promise<BookingRecord | undefined> {
  const { rows } = await q.query<{ id: string }>(`select id from bookings where seat_lock_session_id = $1`, [
    lockId,
  ]);
  return rows[0] ? (await bookingRecords(q, [rows[0].id]))[0] : undefined;
}

const lockMismatch = (lockId: string, message: string) =>
  new JourneyRefusal(409, 'SEAT_LOCK_MISMATCH', message, { seat_lock_session_id: lockId });

export async function createBooking(
  db: Database,
  caller: BookingCaller,
  input: BookingInput,
  signing: SigningOptions = {},
): Promise<CreatedBooking> {
  return db.transaction(async (client) => {
    const lock = await lockSeatLock(client, caller.userId, input.seatLockSessionId);
    if (lock.status === 'CONSUMED') {
      const booking = await bookingOfLock(client, lock.id);
      if (
        booking &&
        !booking.order_id &&
        booking.trip_id === input.tripId &&
        sameSeats(booking.seat_numbers, input.seatNumbers)
      ) {
        return { booking, created: false };
      }
    }
    requireUsable(lock);
    if (lock.seats[0]!.trip_id !== input.tripId)
      throw lockMismatch(lock.id, 'This seat lock is for another trip');
    if (
      !sameSeats(
        lock.seats.map((seat) => seat.seat_number),
        input.seatNumbers,
      )
    )
      throw lockMismatch(lock.id, 'seat_numbers must be exactly the seats of the seat lock');
    const line = await lineOf(client, caller, lock);
    const redemptionId = await applyVoucher(client, caller, input.rewardCode, [line]);
    const signer = await signerOf(client, signing);
    await writeLine(client, caller, line, input, { orderId: null, redemptionId, signer });
    return { booking: (await bookingRecords(client, [line.bookingId]))[0]!, created: true };
  });
}

// ---------------------------------------------------------------------------------------------
// POST /bookings/round-trip
// ---------------------------------------------------------------------------------------------

const endsOf = (trip: BookableTrip): TripEnds => ({
  originCityId: trip.origin_city_id,
  destinationCityId: trip.destination_city_id,
  departureAt: new Date(trip.departure_at),
  arrivalAt: new Date(trip.arrival_at),
});

const ROUND_TRIP_MESSAGES = {
  ROUND_TRIP_DIRECTION_MISMATCH: 'The return trip must go from the outbound destination back to its origin',
  RETURN_DEPARTS_TOO_EARLY: 'The return trip must depart after the outbound trip arrives',
} as const;

/** A retry: both locks consumed by one round trip of this traveller. */
async function existingRoundTrip(
  client: PoolClient,
  input: RoundTripInput,
): Promise<CreatedRoundTrip | null> {
  const outbound = await bookingOfLock(client, input.outboundSeatLockSessionId);
  const inbound = await bookingOfLock(client, input.returnSeatLockSessionId);
  if (!outbound?.order_id || outbound.order_id !== inbound?.order_id) return null;
  return { orderId: outbound.order_id, outbound, inbound, created: false };
}

/**
 * Both directions in one transaction, all or nothing: a journey order (CONFIRMED) holding two
 * single-leg journeys and two bookings rows. One voucher applies to the total of both; its
 * discount is split across the two bookings (each row keeps its part). The batches are locked in
 * id order so two requests naming the same locks never deadlock.
 */
export async function createRoundTrip(
  db: Database,
  caller: BookingCaller,
  input: RoundTripInput,
  signing: SigningOptions = {},
): Promise<CreatedRoundTrip> {
  return db.transaction(async (client) => {
    const ids = [input.outboundSeatLockSessionId, input.returnSeatLockSessionId];
    const locks = new Map<string, LockedLock>();
    for (const id of [...ids].sort()) locks.set(id, await lockSeatLock(client, caller.userId, id));
    const outboundLock = locks.get(ids[0]!)!;
    const returnLock = locks.get(ids[1]!)!;
    if (outboundLock.status === 'CONSUMED' && returnLock.status === 'CONSUMED') {
      const existing = await existingRoundTrip(client, input);
      if (existing) return existing;
    }
    const outbound = await lineOf(client, caller, outboundLock);
    const inbound = await lineOf(client, caller, returnLock);
    const problem = roundTripProblem(endsOf(outbound.trip), endsOf(inbound.trip));
    if (problem) {
      throw new JourneyRefusal(409, problem, ROUND_TRIP_MESSAGES[problem], {
        outbound_trip_id: outbound.trip.id,
        return_trip_id: inbound.trip.id,
      });
    }
    const lines = [outbound, inbound];
    const redemptionId = await applyVoucher(client, caller, input.rewardCode, lines);
    const orderId = randomUUID();
    const total = lines.reduce((sum, line) => sum + line.subtotal - line.discount, 0);
    await client.query(
      `insert into journey_orders (id, owner_user_id, passenger_id, channel, status, total_price, currency, confirmed_at)
       select $1, u.id, u.passenger_id, $2, 'CONFIRMED', $3, $4, now() from users u where u.id = $5`,
      [orderId, caller.channel, total, outbound.trip.currency, caller.userId],
    );
    const signer = await signerOf(client, signing);
    for (const line of lines) await writeLine(client, caller, line, input, { orderId, redemptionId, signer });
    const records = await bookingRecords(client, [outbound.bookingId, inbound.bookingId]);
    return {
      orderId,
      outbound: records.find((record) => record.id === outbound.bookingId)!,
      inbound: records.find((record) => record.id === inbound.bookingId)!,
      created: true,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The booking as the create routes answer it
// ---------------------------------------------------------------------------------------------

type RecordRow = Record<string, unknown> & {
  id: string;
  booking_code: string;
  status: string;
  trip_id: string;
  seat_numbers: string[];
  seats_count: number;
  passenger_name: string;
  passenger_phone: string;
  subtotal: string;
  discount: string;
  total_price: string;
  currency: string;
  payment_status: string;
  seat_lock_session_id: string | null;
  journey_id: string | null;
  order_id: string | null;
  created_at: string;
  departure_at: string;
  arrival_at: string;
  trip_status: string;
} & PickupRow;

const city = (row: Record<string, unknown>, prefix: 'origin' | 'destination') => ({
  id: row[`${prefix}_id`] as string,
  name_ar: row[`${prefix}_name_ar`] as string,
  name_en: row[`${prefix}_name_en`] as string,
});

/** The bookings with their trip (company, route cities, pickupLocation), in no particular order. */
export async function bookingRecords(q: Queryable, ids: string[]): Promise<BookingRecord[]> {
  const { rows } = await q.query<RecordRow>(
    `select k.id, k.booking_code, k.status, k.trip_id, k.seat_numbers, k.seats_count, k.passenger_name, k.passenger_phone,
            k.subtotal, k.discount, k.total_price, k.currency, k.payment_status, k.seat_lock_session_id, k.journey_id,
            j.order_id, k.created_at, t.departure_at, t.arrival_at, t.status as trip_status,
            c.id as company_id, c.name_ar as company_name_ar, c.name_en as company_name_en,
            oc.id as origin_id, oc.name_ar as origin_name_ar, oc.name_en as origin_name_en,
            dc.id as destination_id, dc.name_ar as destination_name_ar, dc.name_en as destination_name_en,
            ${PICKUP_COLUMNS}
     from bookings k
     left join journeys j on j.id = k.journey_id
     join trips t on t.id = k.trip_id
     join companies c on c.id = t.company_id
     join routes r on r.id = t.route_id
     join cities oc on oc.id = r.origin_city_id
     join cities dc on dc.id = r.destination_city_id
     join stops p on p.id = t.pickup_stop_id
     where k.id = any($1::uuid[])`,
    [ids],
  );
  return rows.map((row) => ({
    id: row.id,
    booking_code: row.booking_code,
    status: row.status,
    trip_id: row.trip_id,
    seat_numbers: row.seat_numbers,
    seats_count: row.seats_count,
    passenger_name: row.passenger_name,
    passenger_phone: row.passenger_phone,
    subtotal: Number(row.subtotal),
    discount: Number(row.discount),
    total_price: Number(row.total_price),
    currency: row.currency,
    payment_status: row.payment_status,
    seat_lock_session_id: row.seat_lock_session_id,
    journey_id: row.journey_id,
    order_id: row.order_id,
    created_at: iso(row.created_at),
    trip: {
      id: row.trip_id,
      departure_at: iso(row.departure_at),
      arrival_at: iso(row.arrival_at),
      status: row.trip_status,
      company: {
        id: row.company_id as string,
        name_ar: row.company_name_ar as string,
        name_en: row.company_name_en as string,
      },
      origin_city: city(row, 'origin'),
      destination_city: city(row, 'destination'),
      pickupLocation: toPickupLocation(row),
    },
  }));
}
