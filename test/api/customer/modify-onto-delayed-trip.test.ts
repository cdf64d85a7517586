import { describe, expect, it } from 'vitest';
import {
  booked,
  bookingState,
  minutesFromNow,
  modifyBooking,
  moveTo,
  sameRouteTrip,
} from '../../support/booking-changes.js';
import { requestSeatLock, type BookableTripFixture } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { mobileTraveller } from '../../support/journeys.js';
import { dispatch } from '../../support/operations.js';

/**
 * A trip stops taking new travellers at its boarding stop's planned departure on every path, even
 * DELAYED with its announced departure hours ahead: a modify onto it is refused as a seat lock is
 * (409 TRIP_NOT_BOOKABLE), on top of the 6-hour rule on the announced departure.
 */
describe('PATCH /bookings/{id} (modify) onto a DELAYED trip', () => {
  const app = useTestApp();

  /** A trip of the booked one's route, planned an hour from now and delayed by 10 hours: it leaves in 11. */
  async function delayedTrip(base: BookableTripFixture) {
    const dispatcher = await staffSession(app.db, app.config, base.companyId, 'DISPATCHER');
    const delayed = await sameRouteTrip(app.db, base, minutesFromNow(60));
    const marked = await dispatch(app, dispatcher, delayed.tripId, {
      action: 'MARK_DELAYED',
      reason: 'Road closed',
      delay_minutes: 600,
    });
    expect(marked.status, marked.text).toBe(200);
    return delayed;
  }

  /** Time passes for the trip: every instant of it moves back 70 minutes (planned 10 minutes ago, announced in 9h50). */
  async function plannedTimePassed(tripId: string) {
    const back = `departure_at = departure_at - interval '70 minutes', arrival_at = arrival_at - interval '70 minutes'`;
    await app.db.query(`update trips set ${back} where id = $1`, [tripId]);
    await app.db.query(`update trip_stop_calls set ${back} where trip_id = $1`, [tripId]);
  }

  it('refuses it with 409 TRIP_NOT_BOOKABLE once its planned boarding time has passed, as a seat lock is, changing nothing', async () => {
    const mover = await mobileTraveller(app);
    const buyer = await mobileTraveller(app);
    const { trip, booking } = await booked(app, mover, { seats: ['1'] });
    const delayed = await delayedTrip(trip);
    await plannedTimePassed(delayed.tripId);
    const before = await bookingState(app.db, booking.id);

    const moved = await modifyBooking(app, mover, booking.id, moveTo(delayed.tripId, ['1']));
    const lock = await requestSeatLock(app, buyer, delayed.tripId, ['5']);

    expect(
      { modify: [moved.status, moved.body.errorCode], seatLock: [lock.status, lock.body.errorCode] },
      moved.text,
    ).toEqual({ modify: [409, 'TRIP_NOT_BOOKABLE'], seatLock: [409, 'TRIP_NOT_BOOKABLE'] });
    // The booking keeps its trip, seats and price; nothing is taken on the delayed trip.
    const after = await bookingState(app.db, booking.id);
    expect(after).toEqual(before);
    expect(after.booking).toMatchObject({ trip_id: trip.tripId, seat_numbers: ['1'] });
    const taken = await app.db.query<{ seat_id: string }>(
      `select seat_id from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
      [delayed.tripId],
    );
    expect(taken).toEqual([]);
  });

  it('moves the booking onto it while its planned boarding time is still ahead', async () => {
    const mover = await mobileTraveller(app);
    const { trip, booking } = await booked(app, mover, { seats: ['1'] });
    const delayed = await delayedTrip(trip);

    const moved = await modifyBooking(app, mover, booking.id, moveTo(delayed.tripId, ['4']));

    expect(moved.status, moved.text).toBe(200);
    expect((await bookingState(app.db, booking.id)).booking).toMatchObject({
      trip_id: delayed.tripId,
      seat_numbers: ['4'],
    });
  });
});
