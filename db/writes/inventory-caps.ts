import type { PoolClient } from 'pg';
import {
  heldSeatsRefusal,
  unpaidBookingsRefusal,
  type AccountCaps,
  type TripHeldSeats,
} from '../../domain/inventory-caps.js';
import { Refusal } from '../../domain/refusal.js';
import { BOOKABLE_TRIP_SQL } from '../queries/inventory.js';
import { overdueRequestRowSql } from '../queries/journeys.js';
import { amountDueSql } from '../queries/payments.js';
import { JourneyRefusal } from './journeys/scope.js';

/**
 * The abuse caps of domain/inventory-caps.ts inside the write transactions that take inventory
 * (seat locks, journey holds, bookings). Each such transaction first locks the account's users row
 * (`for no key update`: foreign keys to the user still insert freely), so two requests of one
 * account take turns and the second counts what the first wrote; then it counts and asks the rule.
 * A refusal rolls the whole transaction back: nothing past a cap is ever written.
 */
export type { AccountCaps } from '../../domain/inventory-caps.js';

type Queryable = Pick<PoolClient, 'query'>;

/**
 * Serializes the account's inventory writes until the transaction ends. An account that is no
 * longer ACTIVE once its row is ours was merged into another while this waited on it
 * (complete-phone disables it and ends its sessions, holding the row): 401 AUTH_REQUIRED, as the
 * same request gets a moment later, and nothing is written for an account nobody can use.
 */
export async function lockActiveTraveller(q: Queryable, userId: string): Promise<void> {
  const { rows } = await q.query(
    `select id from users where id = $1 and status = 'ACTIVE' for no key update`,
    [userId],
  );
  if (rows.length === 0) throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to continue');
}

/**
 * Seats the account holds per trip (HELD allocations of its live seat locks and journey holds), each
 * seat once however many stretches of the trip it is held on (seat 1 held A → B and B → C is one
 * seat, as one hold A → C is): `held` counts the seats held outside `batchId` (a hold this
 * transaction just wrote), `adding` the batch's seats not among them, so no seat counts twice.
 */
async function heldSeatsByTrip(
  q: Queryable,
  userId: string,
  batchId: string | null,
): Promise<TripHeldSeats[]> {
  const { rows } = await q.query<{ trip_id: string; held: number; adding: number }>(
    `select a.trip_id,
            count(distinct a.seat_id) filter (where a.hold_batch_id is distinct from $2::uuid)::int as held,
            (count(distinct a.seat_id)
              - count(distinct a.seat_id) filter (where a.hold_batch_id is distinct from $2::uuid))::int as adding
     from hold_batches b join seat_allocations a on a.hold_batch_id = b.id
     where b.owner_user_id = $1 and b.status = 'ACTIVE' and b.expires_at > now()
       and a.status = 'HELD' and a.expires_at > now()
     group by a.trip_id`,
    [userId, batchId],
  );
  return rows.map((row) => ({ tripId: row.trip_id, held: row.held, adding: row.adding }));
}

function refuseOver(trips: TripHeldSeats[], caps: AccountCaps): void {
  const refusal = heldSeatsRefusal(caps, trips);
  if (refusal) throw JourneyRefusal.of(refusal);
}

const capsOff = (caps: AccountCaps) => caps.heldSeatsPerTrip <= 0 && caps.heldSeatsTotal <= 0;

/** Before a seat lock of `seats` seats of one trip is written: 409 SEAT_HOLD_LIMIT_REACHED past a cap. */
export async function requireSeatsWithinCaps(
  q: Queryable,
  userId: string,
  caps: AccountCaps,
  request: { tripId: string; seats: number },
): Promise<void> {
  if (capsOff(caps)) return;
  const trips = await heldSeatsByTrip(q, userId, null);
  const trip = trips.find((row) => row.tripId === request.tripId);
  if (trip) trip.adding = request.seats;
  else trips.push({ tripId: request.tripId, held: 0, adding: request.seats });
  refuseOver(trips, caps);
}

/** After a journey hold wrote its allocations (batch `batchId`): 409 SEAT_HOLD_LIMIT_REACHED past a cap. */
export async function requireHoldWithinCaps(
  q: Queryable,
  userId: string,
  caps: AccountCaps,
  batchId: string,
): Promise<void> {
  if (capsOff(caps)) return;
  refuseOver(await heldSeatsByTrip(q, userId, batchId), caps);
}

/**
 * Before a confirm writes its booking rows (one per journey and trip): the account's row locked,
 * then the unpaid cap with those rows added. A hold counts one booking against the cap when it is
 * placed, but held journeys are not bookings yet, so several holds made under the cap would each
 * confirm past it without this check.
 */
export async function requireConfirmWithinCap(
  q: Queryable,
  userId: string,
  caps: AccountCaps,
  journeyIds: string[],
): Promise<void> {
  if (caps.unpaidBookings <= 0) return;
  await lockActiveTraveller(q, userId);
  const { rows } = await q.query<{ adding: number }>(
    `select count(distinct (journey_id, trip_id))::int as adding from journey_legs where journey_id = any($1::uuid[])`,
    [journeyIds],
  );
  await requireUnpaidWithinCap(q, userId, caps, rows[0]!.adding);
}

/**
 * When booking `k` (of trip `t`) leaves: its leg's boarding call (an imported booking without a leg:
 * the trip's first), plus the delay the company announced (trips.delay_minutes).
 */
const BOOKING_DEPARTURE_SQL = `(coalesce(
  (select min(bc.departure_at) from journey_legs l join trip_stop_calls bc on bc.id = l.board_stop_call_id
   where l.journey_id = k.journey_id and l.trip_id = k.trip_id),
  t.departure_at) + t.delay_minutes * interval '1 minute')`;

/**
 * 409 UNPAID_BOOKING_LIMIT_REACHED when `adding` bookings more would take the account past its
 * cap. Unpaid live bookings: payment UNPAID with something to pay (a booking of total 0, such as
 * one on a free-trip voucher, can never be paid: NOTHING_TO_COLLECT), status HELD,
 * PENDING_CONFIRMATION (until its decision deadline, whether or not a worker has released its scope
 * yet: overdueRequestRowSql) or CONFIRMED, on a trip that has not left: still SCHEDULED, BOARDING or
 * DELAYED and its departure from the booking's boarding stop (with the trip's delay) still ahead.
 * Once it leaves, the cash is collected on board or the seat is a no-show; a trip that ran on its
 * timetable without ever being dispatched stays SCHEDULED, and its bookings, which can no longer be
 * cancelled, must not hold the cap forever.
 */
export async function requireUnpaidWithinCap(
  q: Queryable,
  userId: string,
  caps: AccountCaps,
  adding: number,
): Promise<void> {
  if (caps.unpaidBookings <= 0 || adding <= 0) return;
  const { rows } = await q.query<{ unpaid: number }>(
    `select count(*)::int as unpaid from bookings k join trips t on t.id = k.trip_id
     where k.owner_user_id = $1 and k.payment_status = 'UNPAID' and ${amountDueSql('k')}
       and k.status in ('HELD', 'PENDING_CONFIRMATION', 'CONFIRMED') and not ${overdueRequestRowSql('k')}
       and ${BOOKABLE_TRIP_SQL} and ${BOOKING_DEPARTURE_SQL} > now()`,
    [userId],
  );
  const refusal = unpaidBookingsRefusal(caps.unpaidBookings, rows[0]!.unpaid, adding);
  if (refusal) throw JourneyRefusal.of(refusal);
}
