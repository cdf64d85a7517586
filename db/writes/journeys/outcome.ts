import type { PoolClient } from 'pg';
import type {
  AwaitedDecision,
  BookingChannel,
  ConfirmationScope,
} from '../../../domain/journey-confirmation.js';
import { signTicketsOf, type SigningOptions } from '../boarding-credentials.js';
import { allocationsInIdOrder } from '../allocation-locks.js';
import { withBookingEvents } from '../outbox.js';
import { isBookableStatus } from '../../queries/inventory.js';
import { iso } from '../../row-fields.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import type { Database } from '../../orm.js';
import {
  journeyTransaction,
  JourneyRefusal,
  lockScope,
  setScopeStatus,
  type LockedScope,
  type Queryable,
} from './scope.js';

export type { AwaitedDecision };

export interface ConfirmOutcome {
  status: 'CONFIRMED' | 'REQUESTED';
  /** ISO 8601: the earliest pending deadline when REQUESTED. */
  deadline: string | null;
  awaiting: AwaitedDecision[];
}

/**
 * Every company agreed (or none had to): allocations CONFIRMED for good, tickets signed with the
 * active key and boarding_authorized, booking rows and the scope CONFIRMED (booking.confirmed for
 * each booking row). Runs inside the caller's transaction. A held seat lost meanwhile (its hold swept after expiry) refuses:
 * the seats confirmed must be party_size for every leg of every journey, whatever tickets were written.
 * The booking rows and the scope are stamped `at`: the caller's writeTime, read once it holds its rows,
 * so a confirmation that waited for a lock is never dated before the writer it waited for.
 */
export async function finalizeConfirmed(
  client: PoolClient,
  scope: ConfirmationScope,
  journeyIds: string[],
  signing: SigningOptions,
  stamp: { at: string; channel?: BookingChannel | undefined },
): Promise<void> {
  // The allocations confirmed and the seats the journeys need (party_size on each leg), in one round trip.
  const { rows } = await client.query<{ confirmed: number; expected: number }>(
    `with a as (update seat_allocations set status = 'CONFIRMED', expires_at = null
                where ${allocationsInIdOrder(`owner_kind = 'JOURNEY' and owner_id = any($1::uuid[]) and status = 'HELD'`)}
                returning 1)
     select (select count(*) from a)::int as confirmed,
            (select coalesce(sum(j.party_size), 0) from journey_legs l join journeys j on j.id = l.journey_id
             where l.journey_id = any($1::uuid[]))::int as expected`,
    [journeyIds],
  );
  if (rows[0]!.confirmed !== rows[0]!.expected) throw seatsLost();
  await signTicketsOf(client, scope, signing, stamp.at);
  await client.query(
    withBookingEvents(
      `update bookings set status = 'CONFIRMED', updated_at = $2::timestamptz where journey_id = any($1::uuid[])`,
      ['booking.confirmed'],
    ),
    [journeyIds, stamp.at],
  );
  await setScopeStatus(client, scope, {
    status: 'CONFIRMED',
    deadline: null,
    at: stamp.at,
    ...(stamp.channel ? { channel: stamp.channel } : {}),
  });
}

/** A leg of a journey of the scope: a confirm must find party_size seats of its trip held. */
export interface ScopeLeg {
  journey_id: string;
  sequence: number;
  trip_id: string;
  /** The company running the leg's trip. */
  company_id: string;
  /** The planned departure from the leg's boarding stop, in epoch milliseconds. */
  departure_ms: number;
}

/**
 * The legs of the journeys, once every trip is known to be still bookable, as a hold, a seat lock
 * and a booking require: a trip no longer SCHEDULED, BOARDING or DELAYED (departed, cancelled,
 * ...) or whose boarding call has departed cannot be confirmed (409 TRIP_NOT_BOOKABLE; the hold
 * expires). The caller holds the trips FOR SHARE (inTripLockedScope, lockScopeTrips): a DEPART or
 * a CANCEL either came first, and is seen here, or waits for this transaction and sees what it wrote.
 */
export async function bookableLegs(client: Queryable, journeyIds: string[]): Promise<ScopeLeg[]> {
  const { rows } = await client.query<ScopeLeg & { trip_status: string; upcoming: boolean }>(
    `select l.journey_id, l.sequence, l.trip_id, l.company_id, (extract(epoch from bc.departure_at) * 1000)::float8 as departure_ms,
            t.status as trip_status,
            bc.departure_at > now() as upcoming
     from journey_legs l join trips t on t.id = l.trip_id join trip_stop_calls bc on bc.id = l.board_stop_call_id
     where l.journey_id = any($1::uuid[]) order by l.journey_id, l.sequence`,
    [journeyIds],
  );
  const unbookable = rows.find((leg) => !isBookableStatus(leg.trip_status) || !leg.upcoming);
  if (unbookable) {
    throw new JourneyRefusal(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked', {
      journey_id: unbookable.journey_id,
      leg_sequence: unbookable.sequence,
    });
  }
  return rows.map(({ journey_id, sequence, trip_id, company_id, departure_ms }) => ({
    journey_id,
    sequence,
    trip_id,
    company_id,
    departure_ms,
  }));
}

/**
 * Takes the trips of the scope's legs FOR SHARE, in id order, before the scope itself: the order a
 * trip's DEPART and CANCEL keep (trip, then the orders and journeys on it), so a confirm and a trip
 * action take turns instead of passing each other (a confirm read the trip as BOARDING while DEPART
 * read its bookings, and both went through). A held journey's legs keep their trips.
 */
export async function lockScopeTrips(client: Queryable, scope: ConfirmationScope): Promise<void> {
  await client.query(
    `select t.id from trips t
     where t.id in (select l.trip_id from journey_legs l join journeys j on j.id = l.journey_id
                    where ${scope.kind === 'JOURNEY' ? 'j.id' : 'j.order_id'} = $1)
     order by t.id for share of t`,
    [scope.id],
  );
}

/**
 * inLockedScope for the transitions that confirm (a confirm, a company's approval): the scope's
 * trips first (lockScopeTrips), then the scope. Run again on a deadlock: a hold of the same
 * account meeting it takes the account before the trips, where a confirm takes the trips first.
 */
export function inTripLockedScope<T>(
  db: Database,
  scope: ConfirmationScope,
  work: (client: PoolClient, locked: LockedScope) => Promise<T>,
): Promise<T> {
  return withDeadlockRetry(() =>
    journeyTransaction(db, async (client) => {
      await lockScopeTrips(client, scope);
      return work(client, await lockScope(client, scope));
    }),
  );
}

/** Some seats of the hold are no longer held (swept after expiry): the hold must be placed again. */
export const seatsLost = () =>
  new JourneyRefusal(409, 'HOLD_EXPIRED', 'Some held seats are no longer held; hold the journey again');

/** The scope's outcome as it stands: CONFIRMED, or REQUESTED with the decisions still awaited. */
export async function currentOutcome(
  client: PoolClient,
  scope: ConfirmationScope,
  status: 'REQUESTED' | 'CONFIRMED',
): Promise<ConfirmOutcome> {
  if (status === 'CONFIRMED') return { status, deadline: null, awaiting: [] };
  const awaiting = await awaitedDecisions(client, scope);
  const { rows } = await client.query<{ deadline: string | null }>(
    `select min(deadline) as deadline from confirmation_requests where scope_kind = $1 and scope_id = $2 and status = 'PENDING'`,
    [scope.kind, scope.id],
  );
  const deadline = rows[0]?.deadline;
  return { status, deadline: deadline ? iso(deadline) : null, awaiting };
}

export async function awaitedDecisions(
  client: Queryable,
  scope: ConfirmationScope,
): Promise<AwaitedDecision[]> {
  const { rows } = await client.query<{ company_id: string; remaining: number }>(
    `select company_id, greatest(0, extract(epoch from deadline - now()) * 1000)::float8 as remaining
     from confirmation_requests where scope_kind = $1 and scope_id = $2 and status = 'PENDING' order by company_id`,
    [scope.kind, scope.id],
  );
  return rows.map((row) => ({
    companyId: row.company_id,
    remainingMilliseconds: Math.ceil(Number(row.remaining)),
  }));
}
