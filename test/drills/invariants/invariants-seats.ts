import { answerBetweenRecounts, type Reader } from './snapshot.js';
import { allTrips, companyIds, tripIds, type World } from './world.js';

/**
 * Invariants of seats, bookings, tickets and journeys. A seat allocation is live when CONFIRMED or
 * HELD and not yet expired (an expired hold is released lazily by the next writer).
 */
export type Fail = (text: string) => void;

const live = (alias: string) =>
  `(${alias}.status = 'CONFIRMED' or (${alias}.status = 'HELD' and (${alias}.expires_at is null or ${alias}.expires_at > now())))`;
const LIVE = live('a');

/** No seat is live twice over overlapping parts of a trip. */
export async function noSeatTwice(read: Reader, world: World, fail: Fail): Promise<void> {
  const doubles = await read.query(
    `select a.trip_id, a.seat_id, a.id as a_id, b.id as b_id, a.status as a_status, b.status as b_status
       from seat_allocations a join seat_allocations b
         on a.trip_id = b.trip_id and a.seat_id = b.seat_id and a.id < b.id
        and int4range(a.board_sequence, a.alight_sequence) && int4range(b.board_sequence, b.alight_sequence)
      where a.trip_id = any($1) and ${live('a')} and ${live('b')}`,
    [tripIds(world)],
  );
  for (const row of doubles) fail(`seat sold twice: ${JSON.stringify(row)}`);
}

/**
 * A traveller reading a trip sees its seats less the live allocations (none on a trip no longer
 * bookable). A hold runs out at its instant with no writer, so the count is taken just before and
 * just after the read (answerBetweenRecounts).
 */
export async function freeSeatsShown(world: World, fail: Fail): Promise<void> {
  for (const { trip } of allTrips(world)) {
    const { shown, recount, settled } = await answerBetweenRecounts(
      `free seats of trip ${trip.tripId}`,
      () => freeSeatsOf(world, trip.tripId),
      async () =>
        world.answers.record(
          'trip-detail',
          await world.app.request(`/api/trips/${trip.tripId}`, { headers: world.travellers[0]!.headers }),
        ),
    );
    if (shown.status !== 200 || shown.body.data.available_seats !== recount.free) {
      fail(
        `trip ${trip.tripId} (${recount.status}) shows ${shown.body?.data?.available_seats} free seats, not ${recount.free}${settled ? '' : ' (its seats kept changing)'}`,
      );
    }
  }
}

/** The trip's status and its free seats as a traveller should see them, in one statement. */
async function freeSeatsOf(world: World, tripId: string): Promise<{ status: string; free: number }> {
  const [facts] = await world.app.db.query<{ status: string; free: number }>(
    `select t.status,
            case when t.status in ('SCHEDULED', 'BOARDING', 'DELAYED')
                 then t.seats_total - (select count(distinct a.seat_id)::int from seat_allocations a
                                        where a.trip_id = t.id and ${LIVE})
                 else 0 end as free
       from trips t where t.id = $1`,
    [tripId],
  );
  return facts!;
}

export interface BookingFacts {
  id: string;
  trip_id: string;
  status: string;
  payment_status: string;
  seats_count: number;
  total_price: number;
  company_id: string;
  journey_status: string;
  trip_status: string;
  tickets_live: number;
  credentials_unrevoked: number;
  allocations_live: number;
  /** HELD allocations, whether or not their hold has run out. */
  allocations_held: number;
  allocations_confirmed: number;
  /** A REQUESTED journey whose decision deadline has passed, its process not yet woken. */
  request_overdue: boolean;
}

/** Every booking of the drill's companies with what backs it: its journey, tickets and seat allocations. */
export function bookingFacts(read: Reader, world: World): Promise<BookingFacts[]> {
  return read.query<BookingFacts>(
    `select b.id, b.trip_id, b.status, b.payment_status, b.seats_count, b.total_price::float8 as total_price,
            b.company_id, j.status as journey_status, t.status as trip_status,
            (j.status = 'REQUESTED' and j.confirmation_deadline <= now()) as request_overdue,
            (select count(*)::int from journey_tickets k where k.journey_id = b.journey_id and k.trip_id = b.trip_id
               and k.status in ('VALID', 'PENDING_CONFIRMATION', 'USED')) as tickets_live,
            (select count(*)::int from journey_tickets k where k.journey_id = b.journey_id and k.trip_id = b.trip_id
               and k.status = 'VALID' and k.signature is not null
               and not exists (select 1 from credential_revocations r where r.ticket_id = k.id)) as credentials_unrevoked,
            (select count(*)::int from seat_allocations a where a.owner_id = b.journey_id and a.trip_id = b.trip_id
               and ${LIVE}) as allocations_live,
            (select count(*)::int from seat_allocations a where a.owner_id = b.journey_id and a.trip_id = b.trip_id
               and a.status = 'HELD') as allocations_held,
            (select count(*)::int from seat_allocations a where a.owner_id = b.journey_id and a.trip_id = b.trip_id
               and a.status = 'CONFIRMED') as allocations_confirmed
       from bookings b join journeys j on j.id = b.journey_id join trips t on t.id = b.trip_id
      where b.company_id = any($1)`,
    [companyIds(world)],
  );
}

/**
 * A live booking has a live ticket and seat per traveller; an ended one has neither, nor a valid
 * credential. A request past its decision deadline holds its seats until its process wakes and
 * releases them (they are free to others from the deadline on, as the approval is refused from then):
 * its seats are HELD, no longer live, and journeysAgree bounds how long that may last.
 */
export function bookingsBacked(bookings: BookingFacts[], fail: Fail): void {
  for (const b of bookings) {
    const tag = `booking ${b.id} ${b.status}/${b.payment_status} journey ${b.journey_status} trip ${b.trip_status}`;
    if (['CONFIRMED', 'PENDING_CONFIRMATION'].includes(b.status)) {
      if (b.tickets_live !== b.seats_count)
        fail(`${tag}: ${b.tickets_live} live tickets for ${b.seats_count} seats`);
      const overdue = b.status === 'PENDING_CONFIRMATION' && b.request_overdue;
      const backing = overdue ? b.allocations_held : b.allocations_live;
      if (backing !== b.seats_count)
        fail(`${tag}: ${backing} ${overdue ? 'held' : 'live'} seats for ${b.seats_count}`);
    }
    if (b.status === 'CONFIRMED' && b.allocations_confirmed !== b.seats_count) {
      fail(`${tag}: ${b.allocations_confirmed} CONFIRMED seats for ${b.seats_count}`);
    }
    if (['CANCELLED', 'EXPIRED'].includes(b.status)) {
      if (b.credentials_unrevoked > 0)
        fail(`${tag}: ${b.credentials_unrevoked} valid credentials not revoked`);
      if (b.allocations_live > 0) fail(`${tag}: ${b.allocations_live} live seats`);
    }
    if (b.journey_status === 'CONFIRMED' && b.status === 'PENDING_CONFIRMATION')
      fail(`${tag}: confirmed journey, pending booking`);
    if (
      ['CANCELLED', 'RELEASED', 'EXPIRED'].includes(b.journey_status) &&
      !['CANCELLED', 'EXPIRED'].includes(b.status)
    ) {
      fail(`${tag}: the journey ended but the booking did not`);
    }
    if (b.journey_status === 'REQUESTED' && b.status !== 'PENDING_CONFIRMATION')
      fail(`${tag}: requested journey`);
  }
}

/**
 * Journeys agree with their rows: an ended journey holds no seat, an ended ticket's credential is
 * revoked, a CONFIRMED journey has a booking still standing, and no request outlives its decision
 * deadline by more than `deadlineSlackSeconds` (the deadline workflow's lag under the drill's load).
 */
export async function journeysAgree(
  read: Reader,
  world: World,
  fail: Fail,
  deadlineSlackSeconds: number,
): Promise<void> {
  const trips = tripIds(world);
  const endedHolding = await read.query(
    `select j.id, j.status, a.trip_id, a.status as allocation_status from journeys j
       join seat_allocations a on a.owner_id = j.id
      where j.status in ('CANCELLED', 'RELEASED', 'EXPIRED') and a.trip_id = any($1) and ${LIVE}`,
    [trips],
  );
  for (const row of endedHolding) fail(`ended journey still holds a seat: ${JSON.stringify(row)}`);
  const unrevoked = await read.query(
    `select k.id, k.status, k.journey_id, k.trip_id from journey_tickets k
      where k.trip_id = any($1) and k.status in ('CANCELLED', 'REISSUED') and k.signature is not null
        and not exists (select 1 from credential_revocations r where r.ticket_id = k.id)`,
    [trips],
  );
  for (const row of unrevoked) fail(`ended ticket's credential not revoked: ${JSON.stringify(row)}`);
  const hollow = await read.query(
    `select j.id, j.status, array_agg(b.status) as bookings from journeys j join bookings b on b.journey_id = j.id
      where b.company_id = any($1) and j.status = 'CONFIRMED'
      group by j.id, j.status having bool_and(b.status = 'CANCELLED')`,
    [companyIds(world)],
  );
  for (const row of hollow) fail(`CONFIRMED journey whose bookings all ended: ${JSON.stringify(row)}`);
  const late = await read.query(
    `select j.id, j.confirmation_deadline, now() - j.confirmation_deadline as late from journeys j
      where j.status = 'REQUESTED' and j.confirmation_deadline < now() - make_interval(secs => $2)
        and exists (select 1 from journey_legs l where l.journey_id = j.id and l.trip_id = any($1))`,
    [trips, deadlineSlackSeconds],
  );
  for (const row of late) fail(`REQUESTED journey past its deadline: ${JSON.stringify(row)}`);
}
