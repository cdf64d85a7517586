import type { PoolClient } from 'pg';
import type { WebhookEvent } from '../../domain/webhook-events.js';

type Queryable = Pick<PoolClient, 'query'>;

/** The columns of a bookings row that its events are made of: what a write's RETURNING gives `bookingEventsSql`. */
export const BOOKING_EVENT_COLUMNS = 'id, company_id, booking_code, trip_id, seats_count, total_price';

/**
 * The insert of each of `events` for each booking `b` of `source` (a FROM item with
 * BOOKING_EVENT_COLUMNS), booking by booking in the events' order, with SPEC's data taken from the
 * booking row. The names come from the closed WebhookEvent list, so they are written into the text.
 * occurred_at is the clock as the row is written (clock_timestamp(), not the transaction's start, so
 * an event is timed after every change it waited for), each later event of a booking at least 1 µs
 * after the one before: booking.created sorts before booking.confirmed even when the clock has not
 * moved between the two rows.
 */
export const bookingEventsSql = (source: string, events: readonly WebhookEvent[], where = 'true') =>
  `insert into outbox_events (company_id, event, booking_id, trip_id, data, occurred_at)
     select b.company_id, e.event, b.id, b.trip_id,
            jsonb_build_object('booking_id', b.id, 'booking_code', b.booking_code, 'trip_id', b.trip_id,
                               'passenger_count', b.seats_count, 'total_amount', b.total_price),
            clock_timestamp() + (e.position - 1) * interval '1 microsecond'
     from ${source} cross join unnest(array[${events.map((event) => `'${event}'`).join(', ')}]::text[])
          with ordinality as e(event, position)
     where ${where}
     order by b.id, e.position`;

/**
 * `change`, a statement that writes bookings rows (without its RETURNING), and the events `events`
 * of every row it wrote, as ONE statement: the write and its events commit together and cost one
 * round trip. It returns no rows; its row count is the events recorded.
 */
export const withBookingEvents = (change: string, events: readonly WebhookEvent[]) =>
  `with b as (${change} returning ${BOOKING_EVENT_COLUMNS}) ${bookingEventsSql('b', events)}`;

/**
 * The bookings a trip event concerns: at departure every booking still on the trip, at completion
 * every booking the completion closed (attendance already settled to COMPLETED or NO_SHOW).
 */
export const TRIP_EVENT_BOOKINGS = {
  DEPART: { event: 'trip.started', statuses: ['CONFIRMED', 'CHECKED_IN', 'NO_SHOW'] },
  COMPLETE: { event: 'trip.completed', statuses: ['COMPLETED', 'NO_SHOW'] },
} as const satisfies Record<string, { event: WebhookEvent; statuses: readonly string[] }>;

/**
 * `trip.started` (DEPART) or `trip.completed` (COMPLETE) for each booking of the trip, in the
 * caller's transaction: the dispatch transition calls it after it has changed the trip and its
 * bookings, so the event commits with the transition or not at all, with SPEC's data taken from
 * each booking row as it stands then. Returns how many were recorded.
 */
export async function recordTripEvent(
  client: Queryable,
  tripId: string,
  action: keyof typeof TRIP_EVENT_BOOKINGS,
): Promise<number> {
  const { event, statuses } = TRIP_EVENT_BOOKINGS[action];
  const { rowCount } = await client.query(
    bookingEventsSql('bookings b', [event], 'b.trip_id = $1 and b.status = any($2::text[])'),
    [tripId, statuses],
  );
  return rowCount ?? 0;
}
