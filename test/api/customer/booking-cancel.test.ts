import { describe, expect, it } from 'vitest';
import {
  booked,
  bookingState,
  cancelBooking,
  minutesFromNow,
  sameRouteTrip,
} from '../../support/booking-changes.js';
import { bookRoundTrip, bookableTrip, createBooking } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { createJourneyRows, staffSession } from '../../support/journey-rows.js';
import { legacyPassengerBooking } from '../../support/legacy-bookings.js';
import {
  bookJourney,
  connection,
  mobileTraveller,
  webTraveller,
  type Caller,
} from '../../support/journeys.js';
import { cancelAndDepartInTurn } from '../../drills/support/blocking.js';
import {
  advance,
  assignDriver,
  createDriver,
  dispatch,
  operationsWorld,
  travellerAction,
} from '../../support/operations.js';
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
    const driver = await staffSession(app.db, app.config, trip.companyId, 'DRIVER');
    const revocations = await app.request('/driver/api/revocations', { token: driver.token });
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

  it("leaves the announced cash payment's ledger line CANCELLED with when, naming no staff member", async () => {
    const caller = await webTraveller(app);
    const { trip, booking } = await booked(app, caller);
    const { paymentId } = await announceCashPayment(app.db, booking.id, caller.userId);
    const accountant = await staffSession(app.db, app.config, trip.companyId, 'ACCOUNTANT');

    const before = Date.now();
    const response = await cancelBooking(app, caller, booking.id);
    expect(response.status, response.text).toBe(200);

    const line = await app.request(`/dashboard/api/payments/${paymentId}`, {
      headers: { Cookie: accountant.cookie },
    });
    expect(line.status, line.text).toBe(200);
    const { status, cancelled_at: cancelledAt, cancelled_by: cancelledBy } = line.body.data;
    expect({ status, cancelledBy }).toEqual({ status: 'CANCELLED', cancelledBy: null });
    expect(Date.parse(cancelledAt)).toBeGreaterThanOrEqual(before - 5_000);
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

  /** Every booking's state (bookingState) and the status of their orders: equal when nothing was written. */
  async function aggregateState(bookingIds: string[]) {
    const states = await Promise.all(bookingIds.map((id) => bookingState(app.db, id)));
    const orders = await app.db.query(
      `select o.id, o.status, o.updated_at from journey_orders o join journeys j on j.order_id = o.id
       join bookings b on b.journey_id = j.id where b.id = any($1::uuid[]) order by o.id`,
      [bookingIds],
    );
    return { states, orders };
  }

  /** The cancel of `bookingId` is refused with `errorCode` and `details`, and nothing of `all` changed. */
  async function expectAggregateRefused(
    caller: Caller,
    bookingId: string,
    all: string[],
    refusal: { errorCode: string; details: Record<string, unknown> },
  ) {
    const before = await aggregateState(all);
    const response = await cancelBooking(app, caller, bookingId);
    expect([response.status, response.body.errorCode, response.body.details], response.text).toEqual([
      409,
      refusal.errorCode,
      refusal.details,
    ]);
    expect(await aggregateState(all)).toEqual(before);
  }

  /** Bookings, journeys, allocations and tickets of `bookingIds` all ended, with one booking.cancelled each. */
  async function expectAllEnded(bookingIds: string[]) {
    for (const id of bookingIds) {
      const state = await bookingState(app.db, id);
      expect(state.booking.status).toBe('CANCELLED');
      expect(state.journey.status).toBe('CANCELLED');
      expect(new Set(state.allocations.map((allocation) => allocation.status))).toEqual(
        new Set(['RELEASED']),
      );
      expect(new Set(state.tickets.map((ticket) => ticket.status))).toEqual(new Set(['CANCELLED']));
      expect(state.revoked.length).toBe(state.tickets.length);
    }
    const events = await app.db.query<{ booking_id: string }>(
      `select booking_id from outbox_events where event = 'booking.cancelled' and booking_id = any($1::uuid[])
       order by booking_id`,
      [bookingIds],
    );
    expect(events.map((event) => event.booking_id)).toEqual([...bookingIds].sort());
  }

  it('cancels a round trip booked through POST /bookings/round-trip: both legs and the order end together', async () => {
    const caller = await mobileTraveller(app);
    const { outbound, inbound } = await bookRoundTrip(app, caller);

    const response = await cancelBooking(app, caller, outbound.id);

    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      id: outbound.id,
      status: 'CANCELLED',
      boarding_authorized: false,
      cancelled_with_booking_ids: [inbound.id],
    });
    await expectAllEnded([outbound.id, inbound.id]);
    const [order] = (await aggregateState([outbound.id])).orders as { status: string }[];
    expect(order!.status).toBe('CANCELLED');

    // The return leg is already cancelled: 200, nothing more to do.
    const again = await cancelBooking(app, caller, inbound.id);
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'CANCELLED', cancelled_with_booking_ids: [] });
  });

  it('refuses the whole round trip when one leg is past its cut-off, naming that leg, and changes nothing', async () => {
    const caller = await mobileTraveller(app);
    const { pair, outbound, inbound } = await bookRoundTrip(app, caller);
    // The outbound leaves in 100 minutes, inside the 120-minute cut-off; the return is days away.
    const departAt = minutesFromNow(100);
    await app.db.query(
      `update trip_stop_calls c set departure_at = c.departure_at - s.shift, arrival_at = c.arrival_at - s.shift
       from (select departure_at - $2::timestamptz as shift from trips where id = $1) s where c.trip_id = $1`,
      [pair.outbound.tripId, departAt],
    );
    await app.db.query(
      `update trips set departure_at = $2::timestamptz, arrival_at = arrival_at - (departure_at - $2::timestamptz)
       where id = $1`,
      [pair.outbound.tripId, departAt],
    );
    await expectAggregateRefused(caller, inbound.id, [outbound.id, inbound.id], {
      errorCode: 'CANCELLATION_TOO_LATE',
      details: { cutoff_minutes: 120, booking_id: outbound.id },
    });
    await expectAggregateRefused(caller, outbound.id, [outbound.id, inbound.id], {
      errorCode: 'CANCELLATION_TOO_LATE',
      details: { cutoff_minutes: 120 },
    });
  });

  it('refuses the whole round trip when one leg is paid, naming that leg, and changes nothing', async () => {
    const caller = await mobileTraveller(app);
    const { outbound, inbound } = await bookRoundTrip(app, caller);
    await collectCash(app.db, inbound.id);
    await expectAggregateRefused(caller, outbound.id, [outbound.id, inbound.id], {
      errorCode: 'BOOKING_ALREADY_PAID',
      details: { booking_id: inbound.id },
    });
  });

  it('cancels both legs of a connection confirmed through /journeys together', async () => {
    const world = await connection(app.db);
    const caller = await mobileTraveller(app);
    const { journeyId } = await bookJourney(app, caller, [{ trip: world.first }, { trip: world.second }]);
    const [first, second] = await app.db.query<{ id: string }>(
      `select b.id from bookings b join trips t on t.id = b.trip_id where b.journey_id = $1 order by t.departure_at`,
      [journeyId],
    );

    const response = await cancelBooking(app, caller, second!.id);

    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      id: second!.id,
      status: 'CANCELLED',
      cancelled_with_booking_ids: [first!.id],
    });
    await expectAllEnded([first!.id, second!.id]);
  });

  /**
   * A connection whose first trip the company is about to DEPART (boarding), and a DEPART and a
   * traveller's cancel of leg 2 that `staged` runs against each other.
   */
  async function departingConnection() {
    const world = await connection(app.db);
    const caller = await mobileTraveller(app);
    const { journeyId } = await bookJourney(app, caller, [{ trip: world.first }, { trip: world.second }]);
    const [first, second] = await app.db.query<{ id: string }>(
      `select b.id from bookings b join trips t on t.id = b.trip_id where b.journey_id = $1 order by t.departure_at`,
      [journeyId],
    );
    const { paymentId } = await announceCashPayment(app.db, first!.id, caller.userId);
    const driver = await createDriver(app, world.first.companyId);
    await assignDriver(app.db, world.first.tripId, driver.staffUserId);
    const dispatcher = await staffSession(app.db, app.config, world.first.companyId, 'DISPATCHER');
    await advance(app, dispatcher, world.first.tripId, 'START_BOARDING');
    return {
      first: first!.id,
      second: second!.id,
      firstTripId: world.first.tripId,
      tripCompanyId: world.first.companyId,
      paymentId,
      depart: () => dispatch(app, dispatcher, world.first.tripId, { action: 'DEPART' }),
      cancel: () => cancelBooking(app, caller, second!.id),
    };
  }

  /** `first` starts and stops at the row `blockerSql` holds, `second` starts and waits behind it, then both go on. */
  async function staged(
    world: Awaited<ReturnType<typeof departingConnection>>,
    blockerSql: string,
    order: 'cancel first' | 'depart first',
  ) {
    const { cancelled, departed } = await cancelAndDepartInTurn(app.db, blockerSql, order, world);
    const legs = await app.db.query<{ id: string; status: string; started: boolean }>(
      `select b.id, b.status,
              exists (select 1 from outbox_events e where e.booking_id = b.id and e.event = 'trip.started') as started
       from bookings b where b.id = any($1::uuid[]) order by b.id = $2 desc`,
      [[world.first, world.second], world.first],
    );
    return { cancelled, departed, legs };
  }

  it('a cancel of a connection racing the DEPART of its first leg: the cancel first ends both legs, DEPART leaves without them', async () => {
    const world = await departingConnection();
    // The cancel stops after it holds the order, journey, bookings and both trips, at leg 1's pending cash.
    const { cancelled, departed, legs } = await staged(
      world,
      `select id from payment_operations where id = '${world.paymentId}' for update`,
      'cancel first',
    );
    expect([cancelled.status, cancelled.body.data?.cancelled_with_booking_ids], cancelled.text).toEqual([
      200,
      [world.first],
    ]);
    expect(departed.status, departed.text).toBe(200);
    expect(legs.map(({ status, started }) => [status, started])).toEqual([
      ['CANCELLED', false],
      ['CANCELLED', false],
    ]);
  });

  it('a cancel of a connection racing the DEPART of its first leg: DEPART first, the cancel sees it and ends leg 2 alone', async () => {
    const world = await departingConnection();
    // DEPART stops after it holds the trip, at the booking its trip.started references.
    const { cancelled, departed, legs } = await staged(
      world,
      `select id from bookings where id = '${world.first}' for update`,
      'depart first',
    );
    expect(departed.status, departed.text).toBe(200);
    // Leg 1's bus has left with it: settled, it stays (NO_SHOW at COMPLETE unless scanned), with its
    // pending cash and its journey; only the leg still ahead ends.
    expect([cancelled.status, cancelled.body.data?.cancelled_with_booking_ids], cancelled.text).toEqual([
      200,
      [],
    ]);
    expect(legs.map(({ status, started }) => [status, started])).toEqual([
      ['CONFIRMED', true],
      ['CANCELLED', false],
    ]);
    const [first] = (await aggregateState([world.first])).states;
    expect(first!.journey.status).toBe('CONFIRMED');
    const [payment] = await app.db.query<{ status: string }>(
      `select status from payment_operations where id = $1`,
      [world.paymentId],
    );
    expect(payment!.status).toBe('PENDING');
  });

  it("a connection whose first leg was checked in: leg 2 is cancelled alone, its check-in not read as leg 2's", async () => {
    const world = await departingConnection();
    await collectCash(app.db, world.first);
    const [ticket] = await app.db.query<{ id: string }>(
      `select k.id from journey_tickets k join bookings b on b.journey_id = k.journey_id and b.trip_id = k.trip_id
       where b.id = $1 and k.status = 'VALID'`,
      [world.first],
    );
    const dispatcher = await staffSession(app.db, app.config, world.tripCompanyId, 'DISPATCHER');
    const checkedIn = await travellerAction(app, dispatcher, world.firstTripId, 'CHECK_IN', ticket!.id);
    expect(checkedIn.status, checkedIn.text).toBe(200);

    const cancelled = await world.cancel();

    expect([cancelled.status, cancelled.body.data?.cancelled_with_booking_ids], cancelled.text).toEqual([
      200,
      [],
    ]);
    const legs = await app.db.query<{ id: string; status: string }>(
      `select id, status from bookings where id = any($1::uuid[]) order by id = $2 desc`,
      [[world.first, world.second], world.first],
    );
    expect(legs.map((leg) => leg.status)).toEqual(['CHECKED_IN', 'CANCELLED']);
  });

  it("answers 404 BOOKING_NOT_FOUND for another traveller's booking", async () => {
    const { booking } = await booked(app, await mobileTraveller(app));
    await expectRefused(await mobileTraveller(app), booking.id, 404, 'BOOKING_NOT_FOUND');
  });

  it('an imported booking of the caller’s passenger profile is theirs: refused as one the company handles (409), 404 to anyone else', async () => {
    const caller = await mobileTraveller(app);
    const [user] = await app.db.query<{ passenger_id: string }>(
      'select passenger_id from users where id = $1',
      [caller.userId],
    );
    const trip = await bookableTrip(app.db);
    const bookingId = await legacyPassengerBooking(app.db, {
      trip: { id: trip.tripId, companyId: trip.companyId },
      passengerId: user!.passenger_id,
    });
    expect((await app.request(`/api/bookings/${bookingId}`, { headers: caller.headers })).status).toBe(200);

    await expectRefused(await mobileTraveller(app), bookingId, 404, 'BOOKING_NOT_FOUND');
    await expectRefused(caller, bookingId, 409, 'BOOKING_NOT_CANCELLABLE');
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
