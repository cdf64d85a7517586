import type { PoolClient } from 'pg';
import { allocationsInIdOrder } from '../allocation-locks.js';
import { revokeCredentials } from '../boarding-credentials.js';
import { withBookingEvents } from '../outbox.js';

/** The rows of a booking that end with it (journey_id null: an imported row, whose seats it owns). */
export interface EndingBooking {
  id: string;
  journey_id: string | null;
  order_id: string | null;
  trip_id: string;
}

/** A journey with one of these statuses is still live (an order ends once none of its journeys is). */
const LIVE_JOURNEY = `('HELD', 'REQUESTED', 'CONFIRMED')`;

/**
 * Ends a booking that has not travelled: a traveller's cancel (cancel.ts) and a full refund of such a
 * booking (db/writes/payment-decisions.ts refundPayment). Its seats on its trip are RELEASED, its
 * tickets of the trip CANCELLED and no longer boarding, their signed credentials put on the
 * revocation list with `reason`, its pending payment lines CANCELLED (nothing is left to collect;
 * they say when, as every CANCELLED line, and name no staff member, as none decided on them) and
 * the booking CANCELLED with its booking.cancelled event. Its journey ends once none of the
 * journey's bookings is left, and the journey's order once none of the order's journeys is: a traveller's cancel ends
 * every booking of the aggregate one after the other, and the last one ends them. A
 * voucher the booking used stays spent: the caller forfeits it (forfeitVouchers). The caller holds
 * the locks: the order, the journey, the booking and its trip FOR SHARE (a refund takes the trip
 * first; a traveller's cancel last, without waiting for it: see cancel.ts). Everything is stamped
 * `at` when given (a refund's or a cancel's writeTime, read once it holds its locks), else at the
 * transaction's start.
 */
export async function endJourneyBooking(
  client: PoolClient,
  booking: EndingBooking,
  reason: string,
  at?: string,
): Promise<void> {
  const leg = [booking.journey_id, booking.trip_id];
  const when = at ?? null;
  // An imported booking (no journey) owns its seats, and has no tickets or journey to end.
  await client.query(
    `update seat_allocations set status = 'RELEASED', released_at = coalesce($3::timestamptz, now())
     where ${allocationsInIdOrder(`((owner_kind = 'JOURNEY' and owner_id = $1 and trip_id = $2)
                                    or (owner_kind = 'BOOKING' and owner_id = $4))
                                   and status in ('HELD', 'CONFIRMED')`)}`,
    [...leg, when, booking.id],
  );
  const { rows: tickets } = await client.query<{ id: string }>(
    `update journey_tickets set status = 'CANCELLED', boarding_authorized = false
     where journey_id = $1 and trip_id = $2 and status <> 'REISSUED' returning id`,
    leg,
  );
  await revokeCredentials(
    client,
    tickets.map((ticket) => ticket.id),
    reason,
    at,
  );
  await client.query(
    `update payment_operations p set status = 'CANCELLED', cancelled_at = w.at, updated_at = w.at
       from (select coalesce($2::timestamptz, now()) as at) w
     where p.booking_id = $1 and p.status = 'PENDING'`,
    [booking.id, when],
  );
  await client.query(
    withBookingEvents(
      `update bookings set status = 'CANCELLED', updated_at = coalesce($2::timestamptz, now()) where id = $1`,
      ['booking.cancelled'],
    ),
    [booking.id, when],
  );
  await client.query(
    `update journeys j set status = 'CANCELLED', closed_at = w.at, updated_at = w.at
       from (select coalesce($2::timestamptz, now()) as at) w
     where j.id = $1 and not exists (select 1 from bookings b where b.journey_id = $1 and b.status not in ('CANCELLED', 'EXPIRED'))`,
    [booking.journey_id, when],
  );
  if (booking.order_id) {
    await client.query(
      `update journey_orders o set status = 'CANCELLED', closed_at = w.at, updated_at = w.at
         from (select coalesce($2::timestamptz, now()) as at) w
       where o.id = $1 and not exists (select 1 from journeys j where j.order_id = $1 and j.status in ${LIVE_JOURNEY})`,
      [booking.order_id, when],
    );
  }
}
