import { beforeAll, describe, expect, it } from 'vitest';
import { RELABEL_COMPENSATIONS } from '../../../db/migrations/Migration20261206142100_compensation_revocation_reason.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { sharedCancellation } from '../../support/document-shares.js';
import { openShift, payAtOffice, refundInFull } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { bookJourney, connection, mobileTraveller, type Caller } from '../../support/journeys.js';
import {
  advance,
  assignDriver,
  bookSeats,
  createDriver,
  dispatch,
  operationsWorldWithShift,
  type BookedTraveller,
  type OperationsWorld,
  travellerAction,
} from '../../support/operations.js';

/**
 * README (Payments, what a refund does to the booking): a full refund that KEEPS its booking (a
 * compensation: the traveller was marked a no-show or checked in while the bus boards) revokes its
 * VALID tickets' credentials (BOOKING_COMPENSATED) but ends nothing. When the dispatcher then cancels
 * the trip, still boarding, that CANCEL ends the booking: its cancellation confirmation prints
 * TRIP_CANCELLED at the cancel's time and /analytics/advanced counts it TRIP_CANCELLED. A refund that
 * ends its booking before travel still reads REFUNDED, at the refund's time, with no reason.
 */
describe('a compensation refund, then the trip cancel that ends the booking', () => {
  const app = useTestApp({ ANALYTICS_RATE_LIMIT_PER_MINUTE: 0 });
  // Bookings made now, counted in today's window (Damascus): the file runs inside the one day.
  beforeAll(async () => {
    await dayWithRoom();
  }, dayWithRoomTimeout());

  const byReason = async (world: OperationsWorld) => {
    const response = await app.request('/dashboard/api/analytics/advanced?days=7', {
      headers: { Cookie: world.sessions.OWNER.cookie },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.data.cancellations.byReason;
  };

  const cancellationOf = (traveller: Caller, bookingId: string) =>
    sharedCancellation(app, traveller, bookingId);

  /** An instant as the documents print it (ISO 8601 UTC, milliseconds). */
  const printed = (column: string, table: string) =>
    `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from ${table}`;

  /** The booking's payment refunded in full by the owner; the refund kept it live (a compensation). */
  async function compensate(
    world: OperationsWorld,
    traveller: BookedTraveller,
    paymentId: string,
    kept: string,
  ) {
    const refund = await refundInFull(app, world.sessions.OWNER, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: kept, payment_status: 'REFUNDED' });
    // Ends nothing: no confirmation to print yet, and nothing counted.
    expect(await byReason(world)).toEqual([]);
    return traveller;
  }

  /** The dispatcher cancels the trip, still boarding: it ends the kept booking. The journey's closing time, printed. */
  async function cancelTrip(world: OperationsWorld, traveller: BookedTraveller) {
    // The trip cancel's time apart from the refund's.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const cancel = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.data.effects).toMatchObject({ cancelled_bookings: 1 });
    const [journey] = await app.db.query<{ at: string }>(
      `select ${printed('closed_at', 'journeys')} where id = (select journey_id from bookings where id = $1)`,
      [traveller.bookingId],
    );
    return journey!.at;
  }

  it("a no-show refunded while boarding, then the trip cancelled: TRIP_CANCELLED at the cancel's time", async () => {
    const world = await operationsWorldWithShift(app);
    const traveller = await bookSeats(app, world.trip, ['1']);
    const paymentId = await payAtOffice(app, world.sessions.OWNER, traveller.bookingId);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const noShow = await travellerAction(
      app,
      world.dispatcher,
      world.trip.tripId,
      'MARK_NO_SHOW',
      traveller.ticketIds[0]!,
    );
    expect(noShow.status, noShow.text).toBe(200);
    await compensate(world, traveller, paymentId, 'NO_SHOW');

    const cancelledAt = await cancelTrip(world, traveller);

    expect(await byReason(world)).toEqual([{ reason: 'TRIP_CANCELLED', count: 1 }]);
    expect(await cancellationOf(traveller.caller, traveller.bookingId)).toEqual({
      cancelled_at: cancelledAt,
      reason: 'TRIP_CANCELLED',
    });
  });

  it('a checked-in party refunded with one ticket still VALID, then the trip cancelled: TRIP_CANCELLED', async () => {
    const world = await operationsWorldWithShift(app);
    const party = await bookSeats(app, world.trip, ['1', '2']);
    expect(party.ticketIds).toHaveLength(2);
    const paymentId = await payAtOffice(app, world.sessions.OWNER, party.bookingId);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const checkIn = await travellerAction(
      app,
      world.dispatcher,
      world.trip.tripId,
      'CHECK_IN',
      party.ticketIds[1]!,
    );
    expect(checkIn.status, checkIn.text).toBe(200);
    await compensate(world, party, paymentId, 'CHECKED_IN');

    const cancelledAt = await cancelTrip(world, party);

    expect(await byReason(world)).toEqual([{ reason: 'TRIP_CANCELLED', count: 1 }]);
    expect(await cancellationOf(party.caller, party.bookingId)).toEqual({
      cancelled_at: cancelledAt,
      reason: 'TRIP_CANCELLED',
    });
  });

  it("a connection's leg 2 refunded as a no-show, then its trip cancelled while leg 1 has left: TRIP_CANCELLED", async () => {
    const world = await connection(app.db);
    const traveller = await mobileTraveller(app);
    const { journeyId } = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }]);
    const [legTwo] = await app.db.query<{ id: string; ticket_id: string }>(
      `select b.id, k.id as ticket_id from bookings b
         join journey_tickets k on k.journey_id = b.journey_id and k.trip_id = b.trip_id
        where b.journey_id = $1 and b.trip_id = $2`,
      [journeyId, world.second.tripId],
    );
    for (const trip of [world.first, world.second]) {
      const driver = await createDriver(app, trip.companyId);
      await assignDriver(app.db, trip.tripId, driver.staffUserId);
    }
    const dispatcherA = await staffSession(app.db, app.config, world.first.companyId, 'DISPATCHER');
    await advance(app, dispatcherA, world.first.tripId, 'START_BOARDING', 'DEPART');
    const ownerB = await staffSession(app.db, app.config, world.second.companyId, 'OWNER');
    const dispatcherB = await staffSession(app.db, app.config, world.second.companyId, 'DISPATCHER');
    await openShift(app, ownerB, 500_000);
    const paymentId = await payAtOffice(app, ownerB, legTwo!.id);
    await advance(app, dispatcherB, world.second.tripId, 'START_BOARDING');
    const noShow = await travellerAction(
      app,
      dispatcherB,
      world.second.tripId,
      'MARK_NO_SHOW',
      legTwo!.ticket_id,
    );
    expect(noShow.status, noShow.text).toBe(200);
    const refund = await refundInFull(app, ownerB, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: 'NO_SHOW', payment_status: 'REFUNDED' });

    await new Promise((resolve) => setTimeout(resolve, 50));
    const cancel = await dispatch(app, dispatcherB, world.second.tripId, {
      action: 'CANCEL',
      reason: 'Breakdown',
    });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.data.effects).toMatchObject({ cancelled_bookings: 1, cancelled_journeys: 0 });
    // Leg 1 left with its bus: the journey stands, with no closing time or reason of its own.
    expect(
      await app.db.query(`select status, failure_reason, closed_at from journeys where id = $1`, [journeyId]),
    ).toEqual([{ status: 'CONFIRMED', failure_reason: null, closed_at: null }]);
    const [cancelled] = await app.db.query<{ at: string }>(
      `select ${printed('updated_at', 'bookings')} where id = $1 and status = 'CANCELLED'`,
      [legTwo!.id],
    );

    const analytics = await app.request('/dashboard/api/analytics/advanced?days=7', {
      headers: { Cookie: ownerB.cookie },
    });
    expect(analytics.status, analytics.text).toBe(200);
    expect(analytics.body.data.cancellations.byReason).toEqual([{ reason: 'TRIP_CANCELLED', count: 1 }]);
    expect(await cancellationOf(traveller, legTwo!.id)).toEqual({
      cancelled_at: cancelled!.at,
      reason: 'TRIP_CANCELLED',
    });
  });

  it('relabels a compensation revoked before this release, so the trip cancel after it reads TRIP_CANCELLED; an ending refund keeps its entry', async () => {
    const world = await operationsWorldWithShift(app);
    const kept = await bookSeats(app, world.trip, ['1']);
    const ended = await bookSeats(app, world.trip, ['2']);
    const keptPayment = await payAtOffice(app, world.sessions.OWNER, kept.bookingId);
    const endedPayment = await payAtOffice(app, world.sessions.OWNER, ended.bookingId);
    await refundInFull(app, world.sessions.OWNER, endedPayment);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const noShow = await travellerAction(
      app,
      world.dispatcher,
      world.trip.tripId,
      'MARK_NO_SHOW',
      kept.ticketIds[0]!,
    );
    expect(noShow.status, noShow.text).toBe(200);
    await refundInFull(app, world.sessions.OWNER, keptPayment);
    // As a compensation before this release left it.
    await app.db.query(`update credential_revocations set reason = 'BOOKING_REFUNDED' where ticket_id = $1`, [
      kept.ticketIds[0],
    ]);
    const reasons = () =>
      app.db.query<{ reason: string }>(
        `select reason from credential_revocations where ticket_id = any($1::uuid[]) order by reason`,
        [[kept.ticketIds[0], ended.ticketIds[0]]],
      );

    await app.db.query(RELABEL_COMPENSATIONS);
    expect(await reasons()).toEqual([{ reason: 'BOOKING_COMPENSATED' }, { reason: 'BOOKING_REFUNDED' }]);

    const cancelledAt = await cancelTrip(world, kept);
    expect(await byReason(world)).toEqual([
      { reason: 'REFUNDED', count: 1 },
      { reason: 'TRIP_CANCELLED', count: 1 },
    ]);
    expect(await cancellationOf(kept.caller, kept.bookingId)).toEqual({
      cancelled_at: cancelledAt,
      reason: 'TRIP_CANCELLED',
    });
  });

  it('a full refund before travel still ends the booking as REFUNDED, at the refund’s time, when the trip is cancelled later', async () => {
    const world = await operationsWorldWithShift(app);
    const traveller = await bookSeats(app, world.trip, ['1']);
    const paymentId = await payAtOffice(app, world.sessions.OWNER, traveller.bookingId);
    const refund = await refundInFull(app, world.sessions.OWNER, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: 'CANCELLED', payment_status: 'REFUNDED' });
    const [refunded] = await app.db.query<{ at: string }>(
      `select ${printed('refunded_at', 'payment_operations')} where id = $1`,
      [paymentId],
    );
    const ended = { cancelled_at: refunded!.at, reason: null };
    expect(await byReason(world)).toEqual([{ reason: 'REFUNDED', count: 1 }]);
    expect(await cancellationOf(traveller.caller, traveller.bookingId)).toEqual(ended);

    const cancel = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.data.effects).toMatchObject({ cancelled_bookings: 0 });

    expect(await byReason(world)).toEqual([{ reason: 'REFUNDED', count: 1 }]);
    expect(await cancellationOf(traveller.caller, traveller.bookingId)).toEqual(ended);
  });
});
