import type { PoolClient } from 'pg';
import { seatsPrice } from '../../../domain/booking.js';
import {
  BookingRefusal,
  modificationAlreadyMade,
  modificationRefusal,
  repeatOfMadeModification,
  targetRefusal,
  type BookingRoute,
  type ModificationTarget,
} from '../../../domain/booking-rules.js';
import type { InventoryScope } from '../../../domain/inventory-scope.js';
import type { BookingChannel } from '../../../domain/journey-confirmation.js';
import type { Database } from '../../orm.js';
import { PG_EXCLUSION_VIOLATION, pgCode, withDeadlockRetry } from '../../pg-errors.js';
import { isBookableStatus } from '../../queries/inventory.js';
import { expectedDepartureSql } from '../../queries/leg-boarding.js';
import { seatsByLabel, type LabelledSeat } from '../../queries/layout-seats.js';
import { companyScopeSql } from '../../queries/scope.js';
import { columnsOf } from '../../row-fields.js';
import { allocationsInIdOrder } from '../allocation-locks.js';
import { revokeCredentials, signTicketsOf, type SigningOptions } from '../boarding-credentials.js';
import { expireLapsedHolds } from '../seat-locks.js';
import {
  amountsAfterMove,
  recordVoucherDiscount,
  requireAutomaticConfirmationOf,
  type MovedAmounts,
} from './modify-terms.js';
import {
  inTurnWithTrips,
  lockedFactsOf,
  lockOwnBookingToMove,
  refuseWith,
  type BookingCaller,
  type LockedBooking,
  type LockTurn,
} from './own-booking.js';

/** PATCH /bookings/{id} action modify: the booking moves to another trip (or other seats). */

export interface ModificationInput {
  bookingId: string;
  newTripId: string;
  /** Seat labels of the new trip's active layout; traveller i (ticket order) gets seat i. */
  newSeatNumbers: string[];
}

/** Who modifies: the booking's traveller, with the channel they call through (web or mobile). */
export interface ModifyingCaller extends BookingCaller {
  channel: BookingChannel;
}

export interface ChangeOptions {
  signing?: SigningOptions;
  now?: Date;
}

interface TargetTrip {
  id: string;
  company_id: string;
  bus_id: string;
  status: string;
  departure_at: string;
  price_base: string;
  price_vip: string | null;
  origin_city_id: string;
  destination_city_id: string;
  board_id: string | null;
  board_sequence: number | null;
  board_share: number | null;
  /** When the bus is expected to leave the boarding call (else the trip's first): plan plus announced delay. */
  expected_departure_at: string;
  /** The boarding call's (else the trip's first) planned departure: the trip takes no new traveller after it. */
  planned_departure_at: string;
  alight_id: string | null;
  alight_sequence: number | null;
  alight_share: number | null;
}

/** The stops the booking's leg ($4, $5) boards and alights at, and whether it rides to its trip's last call. */
const CURRENT_LEG_STOPS = `
  select bc.stop_id as board_stop_id, ac.stop_id as alight_stop_id,
         not exists (select 1 from trip_stop_calls n where n.trip_id = ac.trip_id and n.sequence > ac.sequence) as rides_to_end
  from journey_legs l
  join trip_stop_calls bc on bc.id = l.board_stop_call_id
  join trip_stop_calls ac on ac.id = l.alight_stop_call_id
  where l.journey_id = $4 and l.sequence = $5`;

/**
 * The new trip in the caller's inventory scope (else 404 TRIP_NOT_FOUND), with the stop calls the
 * moved leg uses: the same ride where the new trip allows it, so a seat change or a move to a trip
 * through the same stops keeps the booking's stretch and fare. Boarding: the new trip's call at the
 * stop the booking boards at, else its first call in the boarding city. Alighting, after that call
 * and with a higher fare share (so the leg has a fare): the call at the stop the booking alights
 * at, else, for a booking that rides to its trip's end (a POST /bookings booking: first call to
 * last), the new trip's last call when it is in the alighting city, else the first call there.
 */
async function readTarget(
  client: PoolClient,
  scope: InventoryScope,
  tripId: string,
  booking: LockedBooking,
): Promise<TargetTrip> {
  const params: unknown[] = [
    tripId,
    booking.board_city_id,
    booking.alight_city_id,
    booking.journey_id,
    booking.leg_sequence,
  ];
  const { rows } = await client.query<TargetTrip>(
    `select t.id, t.company_id, t.bus_id, t.status, t.departure_at, t.price_base, t.price_vip, r.origin_city_id, r.destination_city_id,
            b.id as board_id, b.sequence as board_sequence, b.fare_share_bp as board_share,
            ${expectedDepartureSql('t', 'coalesce(b.departure_at, t.departure_at)')} as expected_departure_at,
            coalesce(b.departure_at, t.departure_at) as planned_departure_at,
            a.id as alight_id, a.sequence as alight_sequence, a.fare_share_bp as alight_share
     from trips t
     join companies c on c.id = t.company_id
     join routes r on r.id = t.route_id
     left join lateral (${CURRENT_LEG_STOPS}) cur on true
     left join lateral (select id, sequence, fare_share_bp, departure_at from trip_stop_calls
                        where trip_id = t.id and city_id = $2
                        order by (stop_id = cur.board_stop_id) is true desc, sequence limit 1) b on true
     left join lateral (select id, sequence, fare_share_bp from trip_stop_calls s
                        where trip_id = t.id and city_id = $3 and sequence > b.sequence and fare_share_bp > b.fare_share_bp
                        order by (stop_id = cur.alight_stop_id) is true desc,
                                 (cur.rides_to_end and not exists (select 1 from trip_stop_calls n
                                                                   where n.trip_id = t.id and n.sequence > s.sequence)) is true desc,
                                 sequence limit 1) a on true
     where t.id = $1 and ${companyScopeSql(scope, params, 'c')}`,
    params,
  );
  if (!rows[0]) throw new BookingRefusal(404, 'TRIP_NOT_FOUND', 'No such trip');
  return rows[0];
}

/** The new trip's seats by label, in the order asked; 422 SEAT_NOT_FOUND names labels the layout lacks. */
async function chosenSeats(client: PoolClient, trip: TargetTrip, labels: string[]): Promise<LabelledSeat[]> {
  const { seats, unknown } = await seatsByLabel(client, trip.bus_id, labels);
  if (unknown.length) {
    throw new BookingRefusal(422, 'SEAT_NOT_FOUND', 'The new trip has no seat with this label', {
      seat_numbers: unknown,
    });
  }
  return seats;
}

const occupied = (labels: string[]) =>
  new BookingRefusal(409, 'SEAT_OCCUPIED', 'A chosen seat is taken on this trip', { seat_numbers: labels });

/**
 * Frees the booking's seats on its current trip and takes the new ones, CONFIRMED. Holds on the
 * chosen seats that already expired are closed first, since the exclusion constraint still counts them.
 */
async function moveAllocations(
  client: PoolClient,
  booking: LockedBooking,
  target: TargetTrip,
  seats: LabelledSeat[],
): Promise<void> {
  await client.query(
    `update seat_allocations set status = 'RELEASED', released_at = now()
     where ${allocationsInIdOrder(`owner_kind = 'JOURNEY' and owner_id = $1 and trip_id = $2 and status in ('HELD', 'CONFIRMED')`)}`,
    [booking.journey_id, booking.trip_id],
  );
  const seatIds = seats.map((seat) => seat.seat_id);
  await expireLapsedHolds(client, target.id, seatIds);
  const { rows: taken } = await client.query<{ seat_id: string }>(
    `select distinct seat_id from seat_allocations
     where trip_id = $1 and seat_id = any($2::text[]) and status in ('HELD', 'CONFIRMED')
       and board_sequence < $4 and alight_sequence > $3`,
    [target.id, seatIds, target.board_sequence, target.alight_sequence],
  );
  if (taken.length) {
    const takenIds = new Set(taken.map((row) => row.seat_id));
    throw occupied(seats.filter((seat) => takenIds.has(seat.seat_id)).map((seat) => seat.seat_number));
  }
  try {
    await client.query(
      `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, owner_kind, owner_id)
       select $1, seat_id, $2, $3, 'CONFIRMED', 'JOURNEY', $4 from unnest($5::text[]) as seat_id`,
      [target.id, target.board_sequence, target.alight_sequence, booking.journey_id, seatIds],
    );
  } catch (error) {
    // A writer that does not lock the trip may still win a seat; the constraint has the last word.
    if (pgCode(error) === PG_EXCLUSION_VIOLATION) throw occupied(seats.map((seat) => seat.seat_number));
    throw error;
  }
}

/**
 * Rotates the QR codes: the leg's current tickets become REISSUED with their credentials on the
 * revocation list, and new tickets (new ids) for the same travellers are signed for the new trip
 * and seats.
 */
async function reissueTickets(
  client: PoolClient,
  booking: LockedBooking,
  target: TargetTrip,
  seats: LabelledSeat[],
  signing: SigningOptions,
): Promise<void> {
  const { rows: current } = await client.query<{
    id: string;
    traveller_index: number;
    traveller_name: string;
    traveller_phone: string | null;
  }>(
    `update journey_tickets set status = 'REISSUED', boarding_authorized = false
     where journey_id = $1 and leg_sequence = $2 and status <> 'REISSUED'
     returning id, traveller_index, traveller_name, traveller_phone`,
    [booking.journey_id, booking.leg_sequence],
  );
  await revokeCredentials(
    client,
    current.map((ticket) => ticket.id),
    'REISSUED',
  );
  // Each traveller keeps their place in the booking and takes the new seat of that place.
  const travellers = [...current].sort((a, b) => a.traveller_index - b.traveller_index);
  const reissued = travellers.map((ticket, index) => {
    const seat = seats[index]!;
    return { ...ticket, seat_id: seat.seat_id, seat_number: seat.seat_number };
  });
  await client.query(
    `insert into journey_tickets (journey_id, leg_sequence, traveller_index, traveller_name, traveller_phone, trip_id, company_id,
                                  seat_id, seat_number)
     select $1, $2, v.traveller_index, v.traveller_name, v.traveller_phone, $3, $4, v.seat_id, v.seat_number
     from unnest($5::int[], $6::text[], $7::text[], $8::text[], $9::text[])
          as v(traveller_index, traveller_name, traveller_phone, seat_id, seat_number)`,
    [
      booking.journey_id,
      booking.leg_sequence,
      target.id,
      target.company_id,
      ...columnsOf(reissued, [
        'traveller_index',
        'traveller_name',
        'traveller_phone',
        'seat_id',
        'seat_number',
      ]),
    ],
  );
  await signTicketsOf(client, { kind: 'JOURNEY', id: booking.journey_id! }, signing);
}

/** The new seats' price on the moved leg. */
const priceOf = (target: TargetTrip, seats: LabelledSeat[]) =>
  seatsPrice(
    {
      priceBase: Number(target.price_base),
      priceVip: target.price_vip === null ? null : Number(target.price_vip),
      boardShareBp: target.board_share!,
      alightShareBp: target.alight_share!,
    },
    seats.map((seat) => seat.seat_class),
  );

/**
 * The leg, the booking row, and the journey (and order) totals follow the new trip, its seat price
 * and the amounts after the move.
 */
async function rewriteBooking(
  client: PoolClient,
  booking: LockedBooking,
  target: TargetTrip,
  seats: LabelledSeat[],
  amounts: MovedAmounts & { unitPrice: number },
): Promise<void> {
  await client.query(
    `update journey_legs set trip_id = $3, company_id = $4, board_stop_call_id = $5, alight_stop_call_id = $6,
            board_sequence = $7, alight_sequence = $8, unit_price = $9, quantity = $10, subtotal = $11
     where journey_id = $1 and sequence = $2`,
    [
      booking.journey_id,
      booking.leg_sequence,
      target.id,
      target.company_id,
      target.board_id,
      target.alight_id,
      target.board_sequence,
      target.alight_sequence,
      amounts.unitPrice,
      seats.length,
      amounts.subtotal,
    ],
  );
  await client.query(
    `update bookings set trip_id = $2, seat_numbers = $3, subtotal = $4, discount = $5, total_price = $6, updated_at = now()
     where id = $1`,
    [
      booking.id,
      target.id,
      seats.map((seat) => seat.seat_number),
      amounts.subtotal,
      amounts.discount,
      amounts.total,
    ],
  );
  // Cash the traveller announced but nobody collected yet is now the new total; a move that makes
  // the booking free cancels it instead: a booking of total 0 has no cash line (NOTHING_TO_COLLECT).
  await client.query(
    amounts.total > 0
      ? `update payment_operations set amount = $2, updated_at = now() where booking_id = $1 and status = 'PENDING'`
      : `update payment_operations set status = 'CANCELLED', cancelled_at = now(), updated_at = now()
          where booking_id = $1 and status = 'PENDING'`,
    amounts.total > 0 ? [booking.id, amounts.total] : [booking.id],
  );
  // The journey (and its order) is this one booking: its total moves by the booking's change.
  const change = amounts.total - Number(booking.total_price);
  await client.query(`update journeys set total_price = total_price + $2, updated_at = now() where id = $1`, [
    booking.journey_id,
    change,
  ]);
  if (booking.order_id) {
    await client.query(
      `update journey_orders set total_price = total_price + $2, updated_at = now() where id = $1`,
      [booking.order_id, change],
    );
  }
}

const routeOf = (booking: LockedBooking): BookingRoute => ({
  companyId: booking.company_id,
  originCityId: booking.origin_city_id,
  destinationCityId: booking.destination_city_id,
  seatCount: booking.seats_count,
});

const targetOf = (target: TargetTrip, seatCount: number): ModificationTarget => ({
  companyId: target.company_id,
  originCityId: target.origin_city_id,
  destinationCityId: target.destination_city_id,
  seatCount,
  bookable: isBookableStatus(target.status),
  departureAt: new Date(target.expected_departure_at),
  plannedDepartureAt: new Date(target.planned_departure_at),
  callsAtBookingCities: target.board_id !== null && target.alight_id !== null,
});

/**
 * Whether a modification ever moved the booking's leg: a ticket of it left REISSUED on another trip or
 * seat than its traveller's current ticket (reissueTickets). A traveller's re-issue of a ticket
 * (db/writes/tickets.ts) keeps its trip and seat, and is no move.
 */
async function legMoved(client: PoolClient, booking: LockedBooking): Promise<boolean> {
  if (booking.journey_id === null || booking.leg_sequence === null) return false;
  const { rows } = await client.query<{ moved: boolean }>(
    `select exists (
       select 1 from journey_tickets old
       join journey_tickets cur on cur.journey_id = old.journey_id and cur.leg_sequence = old.leg_sequence
                               and cur.traveller_index = old.traveller_index and cur.status <> 'REISSUED'
       where old.journey_id = $1 and old.leg_sequence = $2 and old.status = 'REISSUED'
         and (old.trip_id <> cur.trip_id or old.seat_id <> cur.seat_id)) as moved`,
    [booking.journey_id, booking.leg_sequence],
  );
  return rows[0]!.moved;
}

/**
 * The seat each traveller of the booking's leg holds now, in traveller order (its current tickets by
 * traveller_index): the order newSeatNumbers speaks in, whatever order the booking row lists its
 * seats in. A booking without tickets (an imported row) has only its row's labels.
 */
async function travellerSeats(client: PoolClient, booking: LockedBooking): Promise<string[]> {
  if (booking.journey_id === null || booking.leg_sequence === null) return booking.seat_numbers;
  const { rows } = await client.query<{ seat_number: string }>(
    `select seat_number from journey_tickets
     where journey_id = $1 and leg_sequence = $2 and status <> 'REISSUED'
     order by traveller_index`,
    [booking.journey_id, booking.leg_sequence],
  );
  return rows.length > 0 ? rows.map((row) => row.seat_number) : booking.seat_numbers;
}

/**
 * PATCH /bookings/{id} action modify: moves the booking to another trip of the same company
 * between the same cities, with as many seats, in one transaction. A repeat of a modification
 * already made (same trip, same seats in the same order, the booking moved there and not cancelled
 * or expired since) changes nothing and is answered as made before the booking's state is judged:
 * the new trip now within 6 hours, or the booking paid or checked in since, refuse other changes,
 * not the repeat (repeatOfMadeModification; ownership is settled by then). As POST /bookings, it
 * refuses a company that confirms the caller's channel itself (409 JOURNEY_FLOW_REQUIRED) and
 * checks the booking's voucher on the new trip (modify-terms.ts). The booking's trip must
 * not have departed (DEPART seen under the trip lock). It locks the trips (its own FOR SHARE, the
 * new one FOR NO KEY UPDATE, in id order) before the journey and booking (lockOwnBookingToMove), as
 * a dispatch CANCEL, a refund and a traveller's cancel that found a trip busy do, so each waits for
 * the other on a trip instead of deadlocking: a modify after a CANCEL of its trip finds the booking
 * as the cancel left it (test/api/dashboard/cancel-races.test.ts, modify-lock-order.test.ts).
 */
export async function modifyBooking(
  db: Database,
  caller: ModifyingCaller,
  input: ModificationInput,
  options: ChangeOptions = {},
): Promise<void> {
  const now = options.now ?? new Date();
  await withDeadlockRetry(() =>
    inTurnWithTrips((turn) => moveBooking(db, caller, input, { ...options, turn }, now), 'trips first'),
  );
}

async function moveBooking(
  db: Database,
  caller: ModifyingCaller,
  input: ModificationInput,
  options: ChangeOptions & { turn: LockTurn },
  now: Date,
): Promise<void> {
  await db.transaction(async (client) => {
    const { booking, trips } = await lockOwnBookingToMove(
      client,
      caller.userId,
      input.bookingId,
      input.newTripId,
      options.turn,
    );
    const current = { tripId: booking.trip_id, seatNumbers: await travellerSeats(client, booking) };
    const asked = { tripId: input.newTripId, seatNumbers: input.newSeatNumbers };
    const sameSeats = modificationAlreadyMade(current, asked);
    // A repeat of the move made is answered before the booking's state, which that move made.
    if (sameSeats) {
      const moved = await legMoved(client, booking);
      if (repeatOfMadeModification({ ...current, status: booking.status, moved }, asked)) return;
    }
    const facts = await lockedFactsOf(client, [booking], trips);
    refuseWith(modificationRefusal(facts.get(booking.id)!, now));
    // Naming the seats the booking already has (never moved): nothing to do.
    if (sameSeats) return;
    const target = await readTarget(client, caller.scope, input.newTripId, booking);
    refuseWith(targetRefusal(routeOf(booking), targetOf(target, input.newSeatNumbers.length), now));
    await requireAutomaticConfirmationOf(client, target.company_id, caller.channel);
    const seats = await chosenSeats(client, target, input.newSeatNumbers);
    const price = priceOf(target, seats);
    const amounts = await amountsAfterMove(client, booking, {
      tripId: target.id,
      companyId: target.company_id,
      // The planned departure, the day POST /bookings checked the voucher's days against.
      departureAt: new Date(target.departure_at),
      subtotal: price.subtotal,
      seatPrices: price.seatPrices,
    });
    await moveAllocations(client, booking, target, seats);
    await rewriteBooking(client, booking, target, seats, { ...amounts, unitPrice: price.unitPrice });
    await recordVoucherDiscount(client, booking, amounts);
    await reissueTickets(client, booking, target, seats, options.signing ?? {});
  });
}
