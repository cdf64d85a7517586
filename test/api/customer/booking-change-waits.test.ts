import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import {
  booked,
  bookingState,
  cancelBooking,
  minutesFromNow,
  modifyBooking,
  moveTo,
  sameRouteTrip,
} from '../../support/booking-changes.js';
import { useTestApp } from '../../support/harness.js';
import { webTraveller } from '../../support/journeys.js';
import { bookSeats, dispatch, operationsWorld, setTripStatus } from '../../support/operations.js';

/**
 * A traveller's cancel or modify that waits for its booking row (another write of the booking holds
 * it: an office payment, a check-in, a refund), or a modify that waits for its new trip, is judged by
 * what has committed by the time it holds its booking and trip: the departure the company announces
 * then and the check-ins as they stand.
 */
describe('a traveller change that waited for its booking', () => {
  const app = useTestApp();

  /** Holds the booking row until released; the change sent meanwhile waits for it. */
  const holdBooking = (bookingId: string) =>
    holdLock(app.db, `select 1 from bookings where id = '${bookingId}' for update`);
  const delayBy = (w: Awaited<ReturnType<typeof operationsWorld>>, minutes: number) =>
    dispatch(app, w.dispatcher, w.trip.tripId, {
      action: 'MARK_DELAYED',
      reason: 'Road works',
      delay_minutes: minutes,
    });

  it('a cancel is CANCELLATION_TOO_LATE when a shorter delay announced while it waited brings the departure inside the cut-off', async () => {
    const caller = await webTraveller(app);
    // Planned in 100 minutes, inside the 120-minute cut-off, but announced 60 minutes late: cancellable.
    const w = await operationsWorld(app, { seats: 12, departAt: minutesFromNow(100) });
    const { booking } = await booked(app, caller, { trip: w.trip, seats: ['1'] });
    expect((await delayBy(w, 60)).status).toBe(200);

    const blocker = await holdBooking(booking.id);
    const cancel = cancelBooking(app, caller, booking.id);
    await waitersOf(app.db, blocker.pid);
    // Now only 1 minute late: the bus leaves in about 101 minutes.
    expect((await delayBy(w, 1)).status).toBe(200);
    await blocker.release();
    const answer = await cancel;

    expect([answer.status, answer.body.errorCode]).toEqual([409, 'CANCELLATION_TOO_LATE']);
    const after = await bookingState(app.db, booking.id);
    expect(after.booking.status).toBe('CONFIRMED');
  });

  it('a modify is DEPARTURE_TOO_CLOSE when a shorter delay announced while it waited brings the departure inside 6 hours', async () => {
    const caller = await webTraveller(app);
    // Planned in 5 hours, announced 2 hours late: 7 hours to go, modifiable.
    const w = await operationsWorld(app, { seats: 12, departAt: minutesFromNow(300) });
    const { booking } = await booked(app, caller, { trip: w.trip, seats: ['1'] });
    // The modify takes its trips in id order before the booking: one sorting before the booked trip
    // makes it wait there (held here, as another hold would) without holding the booked trip, which
    // the delay takes.
    let target = await sameRouteTrip(app.db, w.trip, minutesFromNow(48 * 60));
    while (target.tripId > w.trip.tripId)
      target = await sameRouteTrip(app.db, w.trip, minutesFromNow(48 * 60));
    expect((await delayBy(w, 120)).status).toBe(200);

    const blocker = await holdLock(app.db, `select 1 from trips where id = '${target.tripId}' for share`);
    const modify = modifyBooking(app, caller, booking.id, moveTo(target.tripId, ['3']));
    await waitersOf(app.db, blocker.pid);
    expect((await delayBy(w, 1)).status).toBe(200);
    await blocker.release();
    const answer = await modify;

    expect([answer.status, answer.body.errorCode]).toEqual([409, 'DEPARTURE_TOO_CLOSE']);
    const after = await bookingState(app.db, booking.id);
    expect(after.booking.trip_id).toBe(w.trip.tripId);
  });

  it('a cancel waiting behind a RESTORE of the check-in sees the booking not checked in, and cancels it', async () => {
    const w = await operationsWorld(app, { seats: 12 });
    const traveller = await bookSeats(app, w.trip, ['1']);
    await setTripStatus(app.db, w.trip.tripId, 'BOARDING');
    const act = (action: string) =>
      dispatch(app, w.dispatcher, w.trip.tripId, {
        action,
        manifest_item_id: traveller.ticketIds[0],
        manifest_item_type: 'JOURNEY_TICKET',
      });
    expect((await act('CHECK_IN')).status).toBe(200);

    // The RESTORE takes the booking, then waits for the ticket (held here, as a scanner would).
    const blocker = await holdLock(
      app.db,
      `select 1 from journey_tickets where id = '${traveller.ticketIds[0]}' for update`,
    );
    const restore = act('RESTORE');
    const [restorePid] = await waitersOf(app.db, blocker.pid);
    // The traveller cancels meanwhile: the cancel waits for the booking the RESTORE holds.
    const cancel = cancelBooking(app, traveller.caller, traveller.bookingId);
    await waitersOf(app.db, restorePid!);
    await blocker.release();
    const restored = await restore;
    expect(restored.status, restored.text).toBe(200);
    const answer = await cancel;

    expect(answer.status, answer.text).toBe(200);
    const after = await bookingState(app.db, traveller.bookingId);
    expect(after.booking.status).toBe('CANCELLED');
  });
});
