import { BEFORE_DEPARTURE } from '../../../domain/booking-rules.js';
import { FAILURE_REASONS } from '../../../domain/journey-confirmation.js';
import { scopeOfJourney } from '../../queries/journeys.js';
import { allocationsInIdOrder } from '../allocation-locks.js';
import { revokeCredentials } from '../boarding-credentials.js';
import { closeHoldBatch } from '../journeys/scope.js';
import { giveBackVouchers } from '../loyalty/voucher-return.js';
import { withBookingEvents } from '../outbox.js';
import { writeTime } from '../write-time.js';
import type { DispatchEffects, EndedConfirmation, LockedTrip, Queryable } from './trip.js';

/**
 * CANCEL of a trip, inside the transition transaction (the trip locked). Every journey on the trip
 * (its booking there live, or not yet confirmed: ON_TRIP) ends as a whole (SPEC: cancellation goes
 * through the operations room, never one booking row); one whose leg there a refund already ended
 * alone keeps its other legs. Its legs on trips that have not departed lose their bookings,
 * tickets and seats (a leg of a CONFIRMED journey already travelled keeps its record, and so does
 * one on another trip whose traveller is checked in: that bus still leaves with them aboard, and
 * the cash its driver took stays owed to the office; a journey not yet confirmed loses every leg),
 * its signed credentials go on the revocation list, pending confirmation requests and holds end,
 * and the journey is CANCELLED with failure_reason TRIP_CANCELLED, unless a leg kept keeps its
 * booking: then the journey stands. An order still being confirmed ends with all its journeys (it
 * is confirmed all or nothing); a confirmed order ends once none of its journeys is left. Legacy
 * bookings of the trip and seat locks on it end too. Money: the ended bookings' pending cash
 * payments are CANCELLED, collected ones become REFUND_DUE with refund_due_reason for finance (a
 * kept leg's lines stay). A voucher spent on bookings that trip cancels all ended (this one or
 * earlier ones), none refunded or cancelled by its traveller while live (forfeited), is given back
 * (ISSUED again; cancelled with its points returned when its reward has been withdrawn:
 * giveBackVouchers). Each cancelled booking gets a booking.cancelled event in the outbox.
 * The journeys (or orders) it ended while companies were deciding are returned: their
 * journey-confirmation workflow is told once this commits (api/use-cases/trip-dispatch.ts). A HELD
 * one has no workflow (holds are plain transactions): its batch RELEASED ends it.
 *
 * Lock order, after the trip itself (the transition's): the journeys' live orders, the journeys,
 * their legs' other trips FOR SHARE, then their bookings (those that end and those kept) FOR UPDATE,
 * each in id order; tickets, seats and payment lines after. A traveller action on another leg's
 * trip (attendance.ts) takes that trip FOR SHARE, then the booking, then the ticket: the two meet
 * on the booking row and take turns.
 */
export const TRIP_CANCELLED = FAILURE_REASONS.tripCancelled;

/** Trips whose legs are cancelled with the journey: those that have not left yet (BEFORE_DEPARTURE). */
const NOT_DEPARTED = `(${BEFORE_DEPARTURE.map((status) => `'${status}'`).join(', ')})`;

export async function cancelTripBookings(
  client: Queryable,
  trip: LockedTrip,
  reason: string,
  staffUserId: string,
): Promise<{ effects: DispatchEffects; endedConfirmations: EndedConfirmation[] }> {
  await lockAffectedOrders(client, trip.id);
  const journeys = await lockAffectedJourneys(client, trip.id);
  const journeyIds = journeys.map((journey) => journey.id);
  // A journey not yet confirmed (HELD, REQUESTED) has travelled nothing: every leg of it ends, even
  // one whose bus has already left (no ticket of it could board). A CONFIRMED one keeps its legs
  // on trips that have left.
  const unconfirmed = journeys
    .filter((journey) => journey.status !== 'CONFIRMED')
    .map((journey) => journey.id);
  await lockLegTrips(client, trip.id, journeyIds);
  const { bookingIds, keptIds } = await lockAffectedBookings(client, trip.id, journeyIds, unconfirmed);
  // Every stamp of the cancel (the bookings' updated_at, the journeys' and orders' closed_at, the
  // revocations, seats, holds and payment lines) is this one instant, read once the rows it ends are
  // locked: a booking made while this CANCEL waited for a lock before the trip's is never dated
  // cancelled before it was made (its transaction's start, now(), came before that booking).
  const at = await writeTime(client);
  const revokedCredentials = await cancelTickets(client, { journeyIds, unconfirmed, keptIds }, at);
  const releasedSeats = await releaseSeats(
    client,
    trip.id,
    { journeyIds, unconfirmed, bookingIds, keptIds },
    at,
  );
  await endRequestsAndHolds(client, journeys, at);
  const payments = await settlePayments(client, bookingIds, reason, {
    companyId: trip.companyId,
    staffUserId,
    at,
  });
  const { rowCount: events } = await client.query(
    withBookingEvents(
      `update bookings set status = 'CANCELLED', updated_at = $2::timestamptz where id = any($1::uuid[])`,
      ['booking.cancelled'],
    ),
    [bookingIds, at],
  );
  // A journey whose leg was already travelled, or is boarded on another bus (kept), keeps that
  // leg's booking, so it stands (CONFIRMED), as a refund leaves a journey with a booking still standing.
  const { rows: cancelled } = await client.query<{ id: string }>(
    `update journeys j set status = 'CANCELLED', failure_reason = $2, confirmation_deadline = null,
       closed_at = $3::timestamptz, updated_at = $3::timestamptz
     where j.id = any($1::uuid[])
       and not exists (select 1 from bookings b where b.journey_id = j.id and b.status not in ('CANCELLED', 'EXPIRED'))
     returning j.id`,
    [journeyIds, TRIP_CANCELLED, at],
  );
  await endOrders(client, journeys, at);
  // The cancellation is the company's: a voucher spent on the bookings comes back once trip cancels
  // ended all of them (one a refund or its traveller's cancel forfeited stays spent, whichever ended
  // first). After the bookings' update: it reads them CANCELLED.
  await giveBackVouchers(client, bookingIds, { companyId: trip.companyId, staffUserId });
  return {
    effects: {
      cancelledJourneys: cancelled.length,
      cancelledBookings: bookingIds.length,
      releasedSeats,
      revokedCredentials,
      ...payments,
      events: events ?? 0,
    },
    endedConfirmations: endedWhileDeciding(journeys, new Set(cancelled.map((journey) => journey.id))),
  };
}

interface AffectedJourney {
  id: string;
  order_id: string | null;
  owner_user_id: string;
  status: string;
}

/**
 * The scopes (a journey, or the order it belongs to) of the journeys that were REQUESTED, locked
 * so, and are now CANCELLED: those whose workflow waits for company decisions. Once each.
 */
function endedWhileDeciding(journeys: AffectedJourney[], cancelled: Set<string>): EndedConfirmation[] {
  const ended = new Map<string, EndedConfirmation>();
  for (const journey of journeys) {
    if (journey.status !== 'REQUESTED' || !cancelled.has(journey.id)) continue;
    const scope = scopeOfJourney(journey.id, journey.order_id);
    ended.set(`${scope.kind}:${scope.id}`, { scope, ownerUserId: journey.owner_user_id });
  }
  return [...ended.values()];
}

/**
 * The journeys on the trip ($1): those whose booking there is still live, and those not yet
 * confirmed (HELD has no booking yet, REQUESTED a pending one), which end whole. A leg there the
 * company refunded (or its traveller cancelled) ended alone, its journey's other legs kept: the
 * journey is no longer on the trip, and the CANCEL leaves them be.
 */
const ON_TRIP = `select l.journey_id from journey_legs l join journeys j on j.id = l.journey_id
  where l.trip_id = $1
    and (j.status in ('HELD', 'REQUESTED')
         or exists (select 1 from bookings b where b.journey_id = l.journey_id and b.trip_id = $1
                      and b.status in ('HELD', 'PENDING_CONFIRMATION', 'CONFIRMED', 'CHECKED_IN', 'NO_SHOW')))`;

/**
 * The live orders of the journeys on the trip (ON_TRIP), locked in id order before their journeys:
 * the order a traveller's cancel (lockOwnBooking) and an order's confirm (lockScope) keep. Taken
 * last, when endOrders ends them, it deadlocked with a traveller cancelling a journey of the order.
 */
async function lockAffectedOrders(client: Queryable, tripId: string): Promise<void> {
  await client.query(
    `select o.id from journey_orders o
     where o.id in (select j.order_id from journeys j where j.id in (${ON_TRIP}))
       and o.status in ('HELD', 'REQUESTED', 'CONFIRMED')
     order by o.id for update`,
    [tripId],
  );
}

/** The live journeys on the trip (ON_TRIP), and every journey of an order of theirs not yet confirmed; locked in id order. */
async function lockAffectedJourneys(client: Queryable, tripId: string): Promise<AffectedJourney[]> {
  const { rows } = await client.query<AffectedJourney>(
    `with direct as (${ON_TRIP}),
          open_orders as (select distinct j.order_id from journeys j join direct d on d.journey_id = j.id
                          where j.order_id is not null and j.status in ('HELD', 'REQUESTED'))
     select j.id, j.order_id, j.owner_user_id, j.status from journeys j
     where (j.id in (select journey_id from direct) or j.order_id in (select order_id from open_orders))
       and j.status in ('HELD', 'REQUESTED', 'CONFIRMED')
     order by j.id for update`,
    [tripId],
  );
  return rows;
}

/**
 * The other trips of those journeys' legs, FOR SHARE in id order, before their status decides which
 * legs end (lockAffectedBookings, cancelTickets, releaseSeats): a DEPART of one of them either
 * committed first, and its leg (with its trip.started) is kept, or waits for this cancel and sends
 * no trip.started for the bookings it ended. Unlocked, a DEPART ran between the read and the commit
 * and the leg was cancelled on a departed bus after its trip.started
 * (test/api/dashboard/depart-races.test.ts). Taken before the bookings, whose rows a DEPART's
 * events reference. A CANCEL of such a trip, or a hold of a journey over both trips, meeting this
 * one may deadlock with it; both run again (withDeadlockRetry).
 */
async function lockLegTrips(client: Queryable, tripId: string, journeyIds: string[]): Promise<void> {
  await client.query(
    `select t.id from trips t
     where t.id in (select l.trip_id from journey_legs l where l.journey_id = any($2::uuid[])) and t.id <> $1
     order by t.id for share`,
    [tripId, journeyIds],
  );
}

/**
 * SQL condition: booking `b`, a leg of a confirmed journey (not in $3) on another trip than the one
 * cancelled ($1), has its traveller checked in: that bus still leaves with them aboard, so the leg
 * is kept, as a travelled one is (its booking, tickets, seats and payment lines stay). Judged on
 * the row lockAffectedBookings locked, so a RESTORE or no-show cannot change it before the writes.
 */
const BOARDED_ELSEWHERE = `(b.status = 'CHECKED_IN' and b.trip_id <> $1 and not b.journey_id = any($3::uuid[]))`;

/**
 * SQL condition: the leg (`journey`, `trip`) is not one of the kept bookings (`keptParam`), so its
 * tickets and seats end with the others; cancelTickets and releaseSeats follow the decision
 * lockAffectedBookings took under its locks instead of judging again.
 */
function outsideKeptLegs(journey: string, trip: string, keptParam: string): string {
  return `not exists (select 1 from bookings kept where kept.id = any(${keptParam}::uuid[])
                        and kept.journey_id = ${journey} and kept.trip_id = ${trip})`;
}

/**
 * Their live bookings on trips that have not departed (every one of a journey not yet confirmed),
 * and the legacy bookings of this trip, locked in id order, split into those that end and those
 * kept (BOARDED_ELSEWHERE). The kept are locked in the same statement: a traveller action on their
 * trip (attendance.ts: booking, then ticket) waits for this cancel, and one that committed first
 * is read as it left the booking (a RESTORE that left it CONFIRMED: the leg ends).
 */
async function lockAffectedBookings(
  client: Queryable,
  tripId: string,
  journeyIds: string[],
  unconfirmed: string[],
): Promise<{ bookingIds: string[]; keptIds: string[] }> {
  const { rows } = await client.query<{ id: string; kept: boolean | null }>(
    `select b.id, ${BOARDED_ELSEWHERE} as kept from bookings b join trips t on t.id = b.trip_id
     where ((b.journey_id = any($2::uuid[]) and (t.status in ${NOT_DEPARTED} or b.journey_id = any($3::uuid[])))
            or (b.trip_id = $1 and b.journey_id is null))
       and b.status in ('HELD', 'PENDING_CONFIRMATION', 'CONFIRMED', 'CHECKED_IN', 'NO_SHOW')
     order by b.id for update of b`,
    [tripId, journeyIds, unconfirmed],
  );
  return {
    bookingIds: rows.filter((row) => row.kept !== true).map((row) => row.id),
    keptIds: rows.filter((row) => row.kept === true).map((row) => row.id),
  };
}

/**
 * Tickets of the journeys' legs that have not departed (all of a journey not yet confirmed), but
 * those of a kept leg, are CANCELLED (a check-in undone) and revoked.
 */
async function cancelTickets(
  client: Queryable,
  legs: { journeyIds: string[]; unconfirmed: string[]; keptIds: string[] },
  at: string,
): Promise<number> {
  const { rows } = await client.query<{ id: string }>(
    `update journey_tickets k set status = 'CANCELLED', boarding_authorized = false,
       attendance = case when k.attendance = 'CHECKED_IN' then 'PENDING' else k.attendance end
     from trips t
     where t.id = k.trip_id and (t.status in ${NOT_DEPARTED} or k.journey_id = any($2::uuid[]))
       and k.journey_id = any($1::uuid[]) and k.status in ('PENDING_CONFIRMATION', 'VALID', 'USED')
       and ${outsideKeptLegs('k.journey_id', 'k.trip_id', '$3')}
     returning k.id`,
    [legs.journeyIds, legs.unconfirmed, legs.keptIds],
  );
  return revokeCredentials(
    client,
    rows.map((row) => row.id),
    TRIP_CANCELLED,
    at,
  );
}

/**
 * Seats of those legs (all of a journey not yet confirmed) but the kept ones, of the legacy
 * bookings and of seat locks on the trip are RELEASED.
 */
async function releaseSeats(
  client: Queryable,
  tripId: string,
  owners: { journeyIds: string[]; unconfirmed: string[]; bookingIds: string[]; keptIds: string[] },
  at: string,
): Promise<number> {
  const { rows: locks } = await client.query<{ id: string }>(
    `select distinct b.id from hold_batches b join seat_allocations a on a.hold_batch_id = b.id
     where a.trip_id = $1 and a.owner_kind = 'SEAT_LOCK' and a.status = 'HELD' and b.status = 'ACTIVE'
     order by b.id`,
    [tripId],
  );
  for (const lock of locks) await closeHoldBatch(client, lock.id, 'RELEASED', at);
  const released = await client.query(
    `update seat_allocations set status = 'RELEASED', released_at = $5::timestamptz
     where ${allocationsInIdOrder(`(trip_id in (select t.id from trips t where t.status in ${NOT_DEPARTED})
              or (owner_kind = 'JOURNEY' and owner_id = any($3::uuid[])))
       and status in ('HELD', 'CONFIRMED')
       and ((owner_kind = 'JOURNEY' and owner_id = any($1::uuid[])
             and ${outsideKeptLegs('seat_allocations.owner_id', 'seat_allocations.trip_id', '$4')})
            or (owner_kind = 'BOOKING' and owner_id = any($2::uuid[])))`)}`,
    [owners.journeyIds, owners.bookingIds, owners.unconfirmed, owners.keptIds, at],
  );
  return released.rowCount ?? 0;
}

/**
 * Pending company decisions end CANCELLED (reason TRIP_CANCELLED), but one whose own deadline has
 * already passed EXPIRES, as whoever closes a scope ends it (db/writes/journeys/decide.ts
 * END_PENDING_REQUESTS): its company let its window pass. "Already" is at the cancel's write time
 * (`at`, read once its locks are held), so a deadline that passed while the cancel waited for a lock
 * counts as passed. An unconfirmed hold's batch is RELEASED.
 */
async function endRequestsAndHolds(
  client: Queryable,
  journeys: AffectedJourney[],
  at: string,
): Promise<void> {
  const journeyIds = journeys.map((journey) => journey.id);
  const orderIds = [...new Set(journeys.flatMap((journey) => (journey.order_id ? [journey.order_id] : [])))];
  await client.query(
    `update confirmation_requests
        set status = case when deadline <= $4::timestamptz then 'EXPIRED' else 'CANCELLED' end,
            reason = case when deadline <= $4::timestamptz then reason else coalesce(reason, $3) end
     where status = 'PENDING' and ((scope_kind = 'JOURNEY' and scope_id = any($1::uuid[]))
                                   or (scope_kind = 'ORDER' and scope_id = any($2::uuid[])))`,
    [journeyIds, orderIds, TRIP_CANCELLED, at],
  );
  const { rows } = await client.query<{ id: string }>(
    `select id from hold_batches where status = 'ACTIVE'
       and ((scope_kind = 'JOURNEY' and scope_id = any($1::uuid[])) or (scope_kind = 'ORDER' and scope_id = any($2::uuid[])))
     order by id`,
    [journeyIds, orderIds],
  );
  for (const batch of rows) await closeHoldBatch(client, batch.id, 'RELEASED', at);
}

/**
 * Pending cash is no longer owed; collected cash is owed back. These are the ledger's
 * `trip_cancelled` moves (domain/payment-ledger.ts). A cancelled line of the trip's company names
 * the staff user who cancelled the trip; a line of another company (the other leg of a journey)
 * names nobody: that company's ledger never shows a staff id of another company. Likewise a line
 * owed back carries the dispatcher's reason only for the trip's company; another company's says
 * TRIP_CANCELLED alone (the reason is the cancelling company's own free text).
 */
async function settlePayments(
  client: Queryable,
  bookingIds: string[],
  reason: string,
  actor: { companyId: string; staffUserId: string; at: string },
): Promise<Pick<DispatchEffects, 'cancelledPayments' | 'refundDuePayments'>> {
  const cancelledPayments = await cancelPendingPayments(client, bookingIds, actor);
  const refundDue = await client.query(
    `update payment_operations set status = 'REFUND_DUE', updated_at = $5::timestamptz,
       refund_due_reason = case when company_id = $3 then $2 else $4 end
     where booking_id = any($1::uuid[]) and status = 'COMPLETED'`,
    [bookingIds, `${TRIP_CANCELLED}: ${reason}`, actor.companyId, TRIP_CANCELLED, actor.at],
  );
  return { cancelledPayments, refundDuePayments: refundDue.rowCount ?? 0 };
}

/**
 * The bookings' PENDING lines end CANCELLED: their cash will never be collected (a trip CANCEL
 * ended the bookings, or a COMPLETE made them NO_SHOW, which verify refuses). Both run in the
 * transition transaction with the bookings already locked (booking, then operation, as verify
 * takes them); the ledger's daily rollup follows by its trigger, line by line. How many lines ended.
 *
 * The travellers' announced lines (source transaction) end first, in a statement of their own: a
 * driver of another of the company's buses taking an announced line over moves the company's
 * (PENDING, transaction) statistics row before its (PENDING, driver) one
 * (db/writes/driver-collections.ts), and this takes them in that order too, so the two queue. Ended
 * in one statement, a driver's line first, they deadlocked
 * (test/api/driver/cash-collection-deadlock.test.ts). The lines are stamped `actor.at`, the action's
 * write time (writeTime).
 */
export async function cancelPendingPayments(
  client: Queryable,
  bookingIds: string[],
  actor: { companyId: string; staffUserId: string; at: string },
): Promise<number> {
  let ended = 0;
  for (const announced of [true, false]) {
    const cancelled = await client.query(
      `update payment_operations
       set status = 'CANCELLED', cancelled_by = case when company_id = $3 then $2::uuid end,
           cancelled_at = $5::timestamptz, updated_at = $5::timestamptz
       where booking_id = any($1::uuid[]) and status = 'PENDING' and (source = 'transaction') = $4`,
      [bookingIds, actor.staffUserId, actor.companyId, announced, actor.at],
    );
    ended += cancelled.rowCount ?? 0;
  }
  return ended;
}

/** An order ends when none of its journeys is left. */
async function endOrders(client: Queryable, journeys: AffectedJourney[], at: string): Promise<void> {
  const orderIds = [...new Set(journeys.flatMap((journey) => (journey.order_id ? [journey.order_id] : [])))];
  if (orderIds.length === 0) return;
  await client.query(
    `update journey_orders o set status = 'CANCELLED', failure_reason = $2, closed_at = $3::timestamptz,
       updated_at = $3::timestamptz
     where o.id = any($1::uuid[]) and o.status in ('HELD', 'REQUESTED', 'CONFIRMED')
       and not exists (select 1 from journeys j where j.order_id = o.id and j.status in ('HELD', 'REQUESTED', 'CONFIRMED'))`,
    [orderIds, TRIP_CANCELLED, at],
  );
}
