import { describe, expect, it } from 'vitest';
import {
  booked,
  bookingState,
  cancelBooking,
  minutesFromNow,
  sameRouteTrip,
} from '../../support/booking-changes.js';
import { bookableTrip, createBooking } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { createJourneyRows } from '../../support/journey-rows.js';
import { mobileTraveller, webTraveller, type Caller } from '../../support/journeys.js';
import { advance, dispatch, operationsWorld } from '../../support/operations.js';
import { announceCashPayment, collectCash } from '../../support/payments.js';

describe('POST /bookings/{id}/cancel', () => {
  const app = useTestApp();

  async function expectRefused(caller: Caller, bookingId: string, status: number, errorCode: string) {
    const before = await bookingState(app.db, bookingId);
    const response = await cancelBooking(app, caller, bookingId);
    expect(response.status, response.text).toBe(status);
    expect(response.body.errorCode).toBe(errorCode);
    expect(await bookingState(app.db, bookingId)).toEqual(before);
    return response;
  }

  it('cancels booking, journey and tickets, revokes the credentials and frees the seats', async () => {
    const caller = await webTraveller(app);
    const { trip, booking } = await booked(app, caller);
    const { paymentId } = await announceCashPayment(app.db, booking.id, caller.userId);

    const response = await cancelBooking(app, caller, booking.id);

    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      id: booking.id,
      status: 'CANCELLED',
      boarding_authorized: false,
      confirmation: { status: 'CANCELLED' },
    });
    expect(response.body.data.tickets.map((ticket: any) => ticket.status)).toEqual([
      'CANCELLED',
      'CANCELLED',
    ]);
    const state = await bookingState(app.db, booking.id);
    expect(state.journey.status).toBe('CANCELLED');
    expect(state.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED', 'RELEASED']);
    expect(state.revoked.map((entry) => entry.reason)).toEqual(['BOOKING_CANCELLED', 'BOOKING_CANCELLED']);
    const revocations = await app.request('/driver/api/revocations');
    expect(revocations.body.data.revocations.map((entry: any) => entry.ticketId)).toEqual(
      expect.arrayContaining(state.tickets.map((ticket) => ticket.id)),
    );
    const [payment] = await app.db.query<{ status: string }>(
      `select status from payment_operations where id = $1`,
      [paymentId],
    );
    expect(payment!.status).toBe('CANCELLED');

    // The seats can be booked again by someone else.
    await createBooking(app, await mobileTraveller(app), { tripId: trip.tripId, seatNumbers: ['1', '2'] });
  });

  it('takes an empty JSON object as no body, and refuses a body with fields without changing anything', async () => {
    const caller = await mobileTraveller(app);
    const { booking } = await booked(app, caller);
    const before = await bookingState(app.db, booking.id);

    const withFields = await app.request(`/api/bookings/${booking.id}/cancel`, {
      method: 'POST',
      headers: caller.headers,
      json: { reason: 'changed plans' },
    });
    expect(withFields.status, withFields.text).toBe(400);
    expect(withFields.body.errorCode).toBe('VALIDATION_FAILED');
    expect(await bookingState(app.db, booking.id)).toEqual(before);

    const empty = await app.request(`/api/bookings/${booking.id}/cancel`, {
      method: 'POST',
      headers: caller.headers,
      json: {},
    });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body.data.status).toBe('CANCELLED');
  });

  it('answers 200 with the same state when cancelled twice', async () => {
    const caller = await mobileTraveller(app);
    const { booking } = await booked(app, caller);
    const first = await cancelBooking(app, caller, booking.id);
    expect(first.status, first.text).toBe(200);
    const before = await bookingState(app.db, booking.id);

    const second = await cancelBooking(app, caller, booking.id);

    expect(second.status, second.text).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(await bookingState(app.db, booking.id)).toEqual(before);
  });

  it('allows cancelling until BOOKING_CANCEL_CUTOFF_MINUTES before departure, then refuses CANCELLATION_TOO_LATE', async () => {
    expect(app.config.BOOKING_CANCEL_CUTOFF_MINUTES).toBe(120);
    const caller = await mobileTraveller(app);
    const late = await booked(app, caller, { departAt: minutesFromNow(119) });
    const refused = await expectRefused(caller, late.booking.id, 409, 'CANCELLATION_TOO_LATE');
    expect(refused.body.details).toEqual({ cutoff_minutes: 120 });

    const inTime = await booked(app, caller, {
      trip: await sameRouteTrip(app.db, late.trip, minutesFromNow(122)),
    });
    const allowed = await cancelBooking(app, caller, inTime.booking.id);
    expect(allowed.status, allowed.text).toBe(200);
  });

  it('measures the cut-off from the departure the company announced (planned plus the MARK_DELAYED delay)', async () => {
    const caller = await mobileTraveller(app);
    // Planned in 100 minutes, inside the 120-minute cut-off, but delayed by 240: it leaves in 5h40m.
    const w = await operationsWorld(app, { seats: 12, departAt: minutesFromNow(100) });
    const { booking } = await booked(app, caller, { trip: w.trip, seats: ['1'] });
    // Planned in 60 minutes and delayed by 30: it leaves in 90 minutes, still inside the cut-off.
    const soon = await sameRouteTrip(app.db, w.trip, minutesFromNow(60));
    const stillLate = await booked(app, caller, { trip: soon, seats: ['1'] });
    const delay = (tripId: string, minutes: number) =>
      dispatch(app, w.dispatcher, tripId, {
        action: 'MARK_DELAYED',
        reason: 'Road closed',
        delay_minutes: minutes,
      });
    expect((await delay(w.trip.tripId, 240)).status).toBe(200);
    expect((await delay(soon.tripId, 30)).status).toBe(200);

    const allowed = await cancelBooking(app, caller, booking.id);
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.body.data.status).toBe('CANCELLED');
    await expectRefused(caller, stillLate.booking.id, 409, 'CANCELLATION_TOO_LATE');
  });

  it('refuses CANCELLATION_TOO_LATE once the company has sent DEPART, whatever the timetable says', async () => {
    const caller = await mobileTraveller(app);
    const w = await operationsWorld(app, { seats: 12 });
    const { booking } = await booked(app, caller, { trip: w.trip, seats: ['1'] });
    // The company runs the bus: boarding, then departure (the traveller never checked in).
    await advance(app, w.dispatcher, w.trip.tripId, 'START_BOARDING', 'DEPART');
    await expectRefused(caller, booking.id, 409, 'CANCELLATION_TOO_LATE');
  });

  it('refuses CANCELLATION_TOO_LATE after the bus left a few minutes early (company cut-off 0)', async () => {
    const w = await operationsWorld(app, { seats: 12, departAt: minutesFromNow(20) });
    await app.db.query(
      `insert into company_settings (company_id, cancellation_cutoff_minutes) values ($1, 0)
       on conflict (company_id) do update set cancellation_cutoff_minutes = 0`,
      [w.companyId],
    );
    const caller = await mobileTraveller(app);
    const { booking } = await booked(app, caller, { trip: w.trip, seats: ['1'] });
    await advance(app, w.dispatcher, w.trip.tripId, 'START_BOARDING', 'DEPART');
    const refused = await expectRefused(caller, booking.id, 409, 'CANCELLATION_TOO_LATE');
    expect(refused.body.details).toEqual({ cutoff_minutes: 0 });
  });

  it('refuses a paid booking with 409 BOOKING_ALREADY_PAID', async () => {
    const caller = await mobileTraveller(app);
    const { booking } = await booked(app, caller);
    await collectCash(app.db, booking.id);
    await expectRefused(caller, booking.id, 409, 'BOOKING_ALREADY_PAID');
  });

  it('refuses a checked-in or completed booking with 409 BOOKING_NOT_CANCELLABLE', async () => {
    const caller = await mobileTraveller(app);
    const boarded = await booked(app, caller);
    await app.db.query(`update journey_tickets set status = 'USED' where journey_id = $1`, [
      boarded.booking.journey_id,
    ]);
    await expectRefused(caller, boarded.booking.id, 409, 'BOOKING_NOT_CANCELLABLE');

    const completed = await booked(app, caller);
    await app.db.query(`update bookings set status = 'COMPLETED' where id = $1`, [completed.booking.id]);
    await expectRefused(caller, completed.booking.id, 409, 'BOOKING_NOT_CANCELLABLE');
  });

  it('refuses a booking awaiting the company decision with 409 BOOKING_AWAITING_COMPANY', async () => {
    const caller = await mobileTraveller(app);
    const trip = await bookableTrip(app.db, { mode: 'MANUAL_CONFIRM' });
    const rows = await createJourneyRows(app.db, {
      ownerUserId: caller.userId,
      trip: { id: trip.tripId, companyId: trip.companyId, stopCallIds: trip.stopCallIds },
      travellers: ['Lina Haddad'],
      requestDeadline: minutesFromNow(15),
    });
    await expectRefused(caller, rows.bookingId, 409, 'BOOKING_AWAITING_COMPANY');
  });

  it('refuses one booking of a journey order of several with 409 JOURNEY_AGGREGATE_OPERATION_REQUIRED', async () => {
    const caller = await mobileTraveller(app);
    const outbound = await booked(app, caller);
    const inbound = await booked(app, caller, {
      trip: await sameRouteTrip(app.db, outbound.trip, minutesFromNow(96 * 60)),
    });
    const [order] = await app.db.query<{ id: string }>(
      `insert into journey_orders (id, owner_user_id, status) values (gen_random_uuid(), $1, 'CONFIRMED') returning id`,
      [caller.userId],
    );
    await app.db.query(`update journeys set order_id = $1 where id = any($2::uuid[])`, [
      order!.id,
      [outbound.booking.journey_id, inbound.booking.journey_id],
    ]);
    await expectRefused(caller, outbound.booking.id, 409, 'JOURNEY_AGGREGATE_OPERATION_REQUIRED');
  });

  it("answers 404 BOOKING_NOT_FOUND for another traveller's booking", async () => {
    const { booking } = await booked(app, await mobileTraveller(app));
    await expectRefused(await mobileTraveller(app), booking.id, 404, 'BOOKING_NOT_FOUND');
  });

  it('refuses a cookie session without X-CSRF-Token with 403 and changes nothing', async () => {
    const caller = await webTraveller(app);
    const { booking } = await booked(app, caller);
    const { 'X-CSRF-Token': _csrf, ...withoutCsrf } = caller.headers;
    await expectRefused({ ...caller, headers: withoutCsrf }, booking.id, 403, 'CSRF_TOKEN_INVALID');
  });

  it('refuses a bad id or a request body with 400 and changes nothing', async () => {
    const caller = await mobileTraveller(app);
    const { booking } = await booked(app, caller);
    const before = await bookingState(app.db, booking.id);
    const badId = await app.request('/api/bookings/not-a-uuid/cancel', {
      method: 'POST',
      headers: caller.headers,
    });
    expect(badId.status).toBe(400);
    expect(badId.body.errorCode).toBe('VALIDATION_FAILED');
    const withBody = await app.request(`/api/bookings/${booking.id}/cancel`, {
      method: 'POST',
      headers: caller.headers,
      json: { reason: 'changed my mind' },
    });
    expect(withBody.status).toBe(400);
    expect(withBody.body.errorCode).toBe('VALIDATION_FAILED');
    expect(await bookingState(app.db, booking.id)).toEqual(before);
  });
});
