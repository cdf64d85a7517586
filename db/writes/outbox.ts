import type { PoolClient } from 'pg';
import type { WebhookEvent } from '../../domain/webhook-events.js';

type Queryable = Pick<PoolClient, 'query'>;

/** Which bookings an event concerns: named ones, or every booking of a trip in the given statuses. */
export type EventBookings =
  { bookingIds: readonly string[] } | { tripId: string; statuses: readonly string[] };

/** The columns of a bookings row that its events are made of: what a write's RETURNING gives `bookingEventsSql`. */
export const BOOKING_EVENT_COLUMNS = 'id, company_id, booking_code, trip_id, seats_count, total_price';

/**
 * The insert of each event of `events` (an SQL text[] expression) for each booking `b` of `source`
 * (a FROM item with BOOKING_EVENT_COLUMNS), booking by booking in the events' order, with SPEC's data
 * taken from the booking row.
 */
export const bookingEventsSql = (source: string, events: string, where = 'true') =>
  `insert into outbox_events (company_id, event, booking_id, trip_id, data)
     select b.company_id, e.event, b.id, b.trip_id,
            jsonb_build_object('booking_id', b.id, 'booking_code', b.booking_code, 'trip_id', b.trip_id,
                               'passenger_count', b.seats_count, 'total_amount', b.total_price)
     from ${source} cross join unnest(${events}) with ordinality as e(event, position)
     where ${where}
     order by b.id, e.position`;

/**
 * `change`, a statement that writes bookings rows (without its RETURNING), and the events `events`
 * (an SQL text[] expression) of every row it wrote, as ONE statement: the write and its events
 * commit together and cost one round trip. It returns no rows; its row count is the events recorded.
 */
export const withBookingEvents = (change: string, events: string) =>
  `with b as (${change} returning ${BOOKING_EVENT_COLUMNS}) ${bookingEventsSql('b', events)}`;

/**
 * Records `event` (or each of several events, in the order given) for each booking in the caller's
 * transaction (outbox_events), with SPEC's data taken from the booking row as it stands now: the
 * event commits with the change that caused it, or not at all. Returns how many events were recorded.
 */
export async function recordBookingEvents(
  client: Queryable,
  event: WebhookEvent | readonly WebhookEvent[],
  bookings: EventBookings,
): Promise<number> {
  const [filter, parameter] =
    'bookingIds' in bookings
      ? ['b.id = any($2::uuid[])', bookings.bookingIds]
      : ['b.trip_id = $2 and b.status = any($3::text[])', bookings.tripId];
  const parameters: unknown[] = [typeof event === 'string' ? [event] : event, parameter];
  if (!('bookingIds' in bookings)) parameters.push(bookings.statuses);
  const { rowCount } = await client.query(bookingEventsSql('bookings b', '$1::text[]', filter), parameters);
  return rowCount ?? 0;
}

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
 * bookings, so the event commits with the transition or not at all. Returns how many were recorded.
 */
export function recordTripEvent(
  client: Queryable,
  tripId: string,
  action: keyof typeof TRIP_EVENT_BOOKINGS,
): Promise<number> {
  const { event, statuses } = TRIP_EVENT_BOOKINGS[action];
  return recordBookingEvents(client, event, { tripId, statuses });
}
