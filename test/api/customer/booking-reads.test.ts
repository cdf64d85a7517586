import { describe, expect, it } from 'vitest';
import { booked, cancelBooking } from '../../support/booking-changes.js';
import { bookableTrip, createBooking } from '../../support/bookings.js';
import { atDamascus, createCity, createStop, createTrip, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { confirmJourneyRows, createJourneyRows, staffSession } from '../../support/journey-rows.js';
import {
  bookJourney,
  mobileTraveller,
  setConfirmation,
  tripOf,
  webTraveller,
  type Caller,
} from '../../support/journeys.js';
import {
  advance,
  announceDelay,
  bookSeats,
  dispatch,
  operationsWorld,
  scan,
} from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

describe('GET /bookings and GET /bookings/{id}', () => {
  const app = useTestApp();

  it('shows a booking with its trip, pickupLocation, amounts, confirmation and signed tickets', async () => {
    const caller = await webTraveller(app);
    const trip = await bookableTrip(app.db, { price: 9_000 });
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: ['3', '4'] });

    const response = await app.request(`/api/bookings/${booking.id}`, { headers: caller.headers });

    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    const [stop] = await app.db.query<Record<string, unknown>>(
      `select id, name_ar, name_en, address_ar, address_en, latitude, longitude, directions_ar, directions_en from stops where id = $1`,
      [trip.from.id],
    );
    const [route] = await app.db.query<{ origin_city_id: string; destination_city_id: string }>(
      `select origin_city_id, destination_city_id from routes where id = $1`,
      [trip.routeId],
    );
    const data = response.body.data;
    expect(data).toMatchObject({
      id: booking.id,
      journey_id: booking.journey_id,
      status: 'CONFIRMED',
      payment_status: 'UNPAID',
      seats_count: 2,
      seat_numbers: ['3', '4'],
      subtotal: 18_000,
      discount: 0,
      total_price: 18_000,
      currency: 'SYP',
      confirmation: { status: 'CONFIRMED', deadline: null },
      boarding_authorized: true,
      trip: {
        id: trip.tripId,
        departure_at: trip.departAt.toISOString(),
        origin_city: { id: route!.origin_city_id },
        destination_city: { id: route!.destination_city_id },
        company: { id: trip.companyId },
        pickupLocation: {
          id: stop!.id,
          name: stop!.name_ar,
          nameEn: stop!.name_en,
          address: stop!.address_ar,
          addressEn: stop!.address_en,
          latitude: stop!.latitude,
          longitude: stop!.longitude,
          directions: stop!.directions_ar,
          directionsEn: stop!.directions_en,
        },
      },
    });
    expect(data.tickets).toHaveLength(2);
    for (const ticket of data.tickets) {
      expect(ticket).toMatchObject({ status: 'VALID', boarding_authorized: true });
      expect(ticket.payload.ticketId).toBe(ticket.id);
      expect(typeof ticket.signature).toBe('string');
    }
  });

  it('shows the boarding stop as pickupLocation when the traveller boards after the bus left its pickup stop', async () => {
    const caller = await mobileTraveller(app);
    const fixture = await bookableTrip(app.db);
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const station = await createStop(app.db, a.id);
    const parking = await createStop(app.db, a.id, { kind: 'PARKING_POINT' });
    const end = await createStop(app.db, b.id);
    // The station is the trip's pickup stop (its first call); this traveller boards at the parking.
    const trip = await createTrip(app.db, {
      companyId: fixture.companyId,
      busId: fixture.busId,
      departAt: atDamascus(futureDay(3), '06:00'),
      calls: [
        { stop: station, at: 0 },
        { stop: parking, at: 30 },
        { stop: end, at: 150 },
      ],
    });
    const rows = await createJourneyRows(app.db, {
      ownerUserId: caller.userId,
      trip: { id: trip.id, companyId: fixture.companyId, stopCallIds: trip.stopCallIds.slice(1) },
      travellers: ['Lina Haddad'],
      bookingStatus: 'CONFIRMED',
    });
    await confirmJourneyRows(app.db, rows.journeyId);

    const one = await app.request(`/api/bookings/${rows.bookingId}`, { headers: caller.headers });
    const list = await app.request('/api/bookings', { headers: caller.headers });

    expect(one.status, one.text).toBe(200);
    expect({
      one: one.body.data.trip.pickupLocation.id,
      list: list.body.data.items.map((item: any) => item.trip.pickupLocation.id),
    }).toEqual({ one: parking.id, list: [parking.id] });
  });

  it('answers the pickupLocation of a new booking as its reads do, when the pickup stop is a later call', async () => {
    const caller = await webTraveller(app);
    const fixture = await bookableTrip(app.db);
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const station = await createStop(app.db, a.id);
    const parking = await createStop(app.db, a.id, { kind: 'PARKING_POINT' });
    const end = await createStop(app.db, b.id);
    const trip = await createTrip(app.db, {
      companyId: fixture.companyId,
      busId: fixture.busId,
      departAt: atDamascus(futureDay(4), '06:00'),
      calls: [
        { stop: station, at: 0 },
        { stop: parking, at: 30 },
        { stop: end, at: 150 },
      ],
    });
    // POST /bookings books the whole trip: boarding at the station, before the bus reaches its pickup stop.
    await app.db.query(`update trips set pickup_stop_id = $2 where id = $1`, [trip.id, parking.id]);
    const booking = await createBooking(app, caller, {
      tripId: trip.id,
      seatNumbers: [fixture.seatNumbers[0]!],
    });

    const read = await app.request(`/api/bookings/${booking.id}`, { headers: caller.headers });

    expect(read.status, read.text).toBe(200);
    expect({
      created: (booking.trip as { pickupLocation: { id: string } }).pickupLocation.id,
      read: read.body.data.trip.pickupLocation.id,
    }).toEqual({ created: station.id, read: station.id });
  });

  it('lists only the traveller’s bookings, newest first, with limit, offset and total', async () => {
    const caller = await mobileTraveller(app);
    const other = await mobileTraveller(app);
    const trip = await bookableTrip(app.db);
    const first = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: ['1'] });
    const second = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: ['2'] });
    const third = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: ['3'] });
    await createBooking(app, other, { tripId: trip.tripId, seatNumbers: ['4'] });

    const page = await app.request('/api/bookings?limit=2&offset=0', { headers: caller.headers });
    expect(page.status, page.text).toBe(200);
    expect(page.body.data).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.body.data.items.map((item: any) => item.id)).toEqual([third.id, second.id]);
    expect(page.body.data.items[0].trip.pickupLocation.id).toBe(trip.from.id);

    const rest = await app.request('/api/bookings?limit=2&offset=2', { headers: caller.headers });
    expect(rest.body.data.items.map((item: any) => item.id)).toEqual([first.id]);
  });

  it('shows a journey awaiting the company as REQUESTED with its deadline and no boarding authorization', async () => {
    const caller = await mobileTraveller(app);
    const trip = await bookableTrip(app.db, { mode: 'MANUAL_CONFIRM' });
    const deadline = new Date(Date.now() + 15 * 60_000);
    const rows = await createJourneyRows(app.db, {
      ownerUserId: caller.userId,
      trip: { id: trip.tripId, companyId: trip.companyId, stopCallIds: trip.stopCallIds },
      travellers: ['Lina Haddad'],
      requestDeadline: deadline,
    });
    await app.db.query(`update journeys set confirmation_deadline = $2 where id = $1`, [
      rows.journeyId,
      deadline,
    ]);

    const response = await app.request(`/api/bookings/${rows.bookingId}`, { headers: caller.headers });

    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      status: 'PENDING_CONFIRMATION',
      confirmation: { status: 'REQUESTED', deadline: deadline.toISOString() },
      boarding_authorized: false,
      tickets: [
        { status: 'PENDING_CONFIRMATION', payload: null, signature: null, boarding_authorized: false },
      ],
    });
  });

  it("shows bookings made for the traveller's passenger profile by another account", async () => {
    const traveller = await app.signIn();
    const agent = await mobileTraveller(app);
    const trip = await bookableTrip(app.db);
    const rows = await createJourneyRows(app.db, {
      ownerUserId: agent.userId,
      trip: { id: trip.tripId, companyId: trip.companyId, stopCallIds: trip.stopCallIds },
      travellers: ['Rami Haddad'],
      bookingStatus: 'CONFIRMED',
    });
    await confirmJourneyRows(app.db, rows.journeyId);
    await app.db.query(`update bookings set passenger_id = $2 where id = $1`, [
      rows.bookingId,
      traveller.passengerId,
    ]);

    const response = await app.request(`/api/bookings/${rows.bookingId}`, { token: traveller.token });
    expect(response.status, response.text).toBe(200);
    const list = await app.request('/api/bookings', { token: traveller.token });
    expect(list.body.data.items.map((item: any) => item.id)).toEqual([rows.bookingId]);
  });

  it("answers 404 BOOKING_NOT_FOUND for another traveller's booking and for an unknown id", async () => {
    const owner = await mobileTraveller(app);
    const trip = await bookableTrip(app.db);
    const booking = await createBooking(app, owner, { tripId: trip.tripId, seatNumbers: ['1'] });
    const stranger = await mobileTraveller(app);

    const foreign = await app.request(`/api/bookings/${booking.id}`, { headers: stranger.headers });
    expect(foreign.status).toBe(404);
    expect(foreign.body.errorCode).toBe('BOOKING_NOT_FOUND');
    const unknown = await app.request(`/api/bookings/${crypto.randomUUID()}`, { headers: stranger.headers });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorCode).toBe('BOOKING_NOT_FOUND');
    const list = await app.request('/api/bookings', { headers: stranger.headers });
    expect(list.body.data).toMatchObject({ total: 0, items: [] });
  });

  /** What the traveller's three reads of one booking show of its tickets' boarding credentials. */
  async function shownCredentials(caller: Caller, bookingId: string) {
    const detail = (await app.request(`/api/bookings/${bookingId}`, { headers: caller.headers })).body.data;
    const listed = (await app.request('/api/bookings', { headers: caller.headers })).body.data.items.find(
      (item: any) => item.id === bookingId,
    );
    const journey = (await app.request(`/api/journeys/${detail.journey_id}`, { headers: caller.headers }))
      .body.data;
    const credentialOf = (ticket: any) => ({
      status: ticket.status,
      boarding_authorized: ticket.boarding_authorized,
      payload: ticket.payload,
      signature: ticket.signature,
      key_id: ticket.key_id,
    });
    return {
      detail: { boarding_authorized: detail.boarding_authorized, tickets: detail.tickets.map(credentialOf) },
      list: { boarding_authorized: listed.boarding_authorized, tickets: listed.tickets.map(credentialOf) },
      journey: journey.tickets.map(credentialOf),
    };
  }

  const noCredential = (status: string) => ({
    status,
    boarding_authorized: false,
    payload: null,
    signature: null,
    key_id: null,
  });

  it('hides the signed credential of a cancelled booking in the list, the detail and the journey, as GET /tickets does', async () => {
    const caller = await webTraveller(app);
    const { booking } = await booked(app, caller, { seats: ['1'] });
    const cancelled = await cancelBooking(app, caller, booking.id);
    expect(cancelled.status, cancelled.text).toBe(200);

    const tickets = await app.request('/api/tickets', { headers: caller.headers });
    expect(tickets.body.data.tickets).toMatchObject([noCredential('CANCELLED')]);
    const hidden = [noCredential('CANCELLED')];
    expect(await shownCredentials(caller, booking.id)).toEqual({
      detail: { boarding_authorized: false, tickets: hidden },
      list: { boarding_authorized: false, tickets: hidden },
      journey: hidden,
    });
  });

  it('no longer authorizes boarding once the checked-in traveller’s trip is completed, as GET /tickets says', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await collectCash(app.db, traveller.bookingId, { source: 'office' });
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const scanned = await scan(app, world.driver.token, world.trip.tripId, traveller.credentials[0]!);
    expect(scanned.status, scanned.text).toBe(200);
    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE', 'COMPLETE');

    const tickets = await app.request('/api/tickets', { headers: traveller.caller.headers });
    expect(tickets.body.data.tickets).toMatchObject([noCredential('USED')]);
    const used = [noCredential('USED')];
    expect(await shownCredentials(traveller.caller, traveller.bookingId)).toEqual({
      detail: { boarding_authorized: false, tickets: used },
      list: { boarding_authorized: false, tickets: used },
      journey: used,
    });
  });

  /** What the traveller's detail, list and journey reads say of how the booking ended. */
  async function endingShown(caller: Caller, bookingId: string) {
    const detail = (await app.request(`/api/bookings/${bookingId}`, { headers: caller.headers })).body.data;
    const listed = (await app.request('/api/bookings', { headers: caller.headers })).body.data.items.find(
      (item: any) => item.id === bookingId,
    );
    const journey = (await app.request(`/api/journeys/${detail.journey_id}`, { headers: caller.headers }))
      .body.data;
    return {
      detail: { status: detail.status, failure_reason: detail.failure_reason },
      list: { status: listed.status, failure_reason: listed.failure_reason },
      journey: journey.failure_reason,
    };
  }

  it('tells the traveller why the company ended the booking (TRIP_CANCELLED), as the journey projection does; null while it lives and after their own cancel', async () => {
    const world = await operationsWorld(app);
    const kept = await bookSeats(app, world.trip, ['1']);
    const own = await bookSeats(app, world.trip, ['2']);
    const cancelledByTraveller = await cancelBooking(app, own.caller, own.bookingId);
    expect(cancelledByTraveller.status, cancelledByTraveller.text).toBe(200);
    const live = { status: 'CONFIRMED', failure_reason: null };
    expect(await endingShown(kept.caller, kept.bookingId)).toEqual({
      detail: live,
      list: live,
      journey: null,
    });

    // A cancel the operations room refuses (no reason) ends nothing and names no reason.
    const refused = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'CANCEL' });
    expect(refused.status, refused.text).toBe(400);
    expect(await endingShown(kept.caller, kept.bookingId)).toEqual({
      detail: live,
      list: live,
      journey: null,
    });

    const cancelled = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Bus broke down',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const ended = { status: 'CANCELLED', failure_reason: 'TRIP_CANCELLED' };
    expect(await endingShown(kept.caller, kept.bookingId)).toEqual({
      detail: ended,
      list: ended,
      journey: 'TRIP_CANCELLED',
    });
    // The traveller ended the other booking before the trip was cancelled: no company reason.
    const ownEnd = { status: 'CANCELLED', failure_reason: null };
    expect(await endingShown(own.caller, own.bookingId)).toEqual({
      detail: ownEnd,
      list: ownEnd,
      journey: null,
    });
  });

  it('tells the traveller the company rejected their request (COMPANY_REJECTED)', async () => {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const caller = await mobileTraveller(app);
    const { journeyId } = await bookJourney(app, caller, [{ trip }]);
    const [{ id: bookingId }] = (await app.db.query<{ id: string }>(
      'select id from bookings where journey_id = $1',
      [journeyId],
    )) as [{ id: string }];
    const waiting = { status: 'PENDING_CONFIRMATION', failure_reason: null };
    expect(await endingShown(caller, bookingId)).toEqual({ detail: waiting, list: waiting, journey: null });

    const staff = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    const rejected = await app.request(`/dashboard/api/bookings/${bookingId}/status`, {
      method: 'PATCH',
      headers: staff.writeHeaders,
      json: { decision: 'REJECT' },
    });
    expect(rejected.status, rejected.text).toBe(200);

    const ended = { status: 'CANCELLED', failure_reason: 'COMPANY_REJECTED' };
    expect(await endingShown(caller, bookingId)).toEqual({
      detail: ended,
      list: ended,
      journey: 'COMPANY_REJECTED',
    });
  });

  it('shows the delay the company announced on the booked trip and the departure it announced from the boarding stop', async () => {
    const world = await operationsWorld(app);
    const traveller = await bookSeats(app, world.trip, ['1']);
    const tripShown = async () => {
      const detail = (
        await app.request(`/api/bookings/${traveller.bookingId}`, { headers: traveller.caller.headers })
      ).body.data;
      const listed = (
        await app.request('/api/bookings', { headers: traveller.caller.headers })
      ).body.data.items.find((item: any) => item.id === traveller.bookingId);
      const pick = (trip: any) => ({
        status: trip.status,
        departure_at: trip.departure_at,
        delay_minutes: trip.delay_minutes,
        expected_departure_at: trip.expected_departure_at,
      });
      return { detail: pick(detail.trip), list: pick(listed.trip) };
    };
    const planned = world.trip.departAt.toISOString();
    const onTime = {
      status: 'SCHEDULED',
      departure_at: planned,
      delay_minutes: 0,
      expected_departure_at: planned,
    };
    expect(await tripShown()).toEqual({ detail: onTime, list: onTime });

    // A delay the operations room refuses (no delay_minutes) announces nothing; then 90 minutes.
    await announceDelay(app, world.dispatcher, world.trip.tripId, 90, async () => {
      expect(await tripShown()).toEqual({ detail: onTime, list: onTime });
    });
    const late = {
      status: 'DELAYED',
      departure_at: planned,
      delay_minutes: 90,
      expected_departure_at: new Date(world.trip.departAt.getTime() + 90 * 60_000).toISOString(),
    };
    expect(await tripShown()).toEqual({ detail: late, list: late });
  });

  it("counts the announced departure from the stop the traveller boards at, after the trip's first", async () => {
    const caller = await mobileTraveller(app);
    const fixture = await bookableTrip(app.db);
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const station = await createStop(app.db, a.id);
    const parking = await createStop(app.db, a.id, { kind: 'PARKING_POINT' });
    const end = await createStop(app.db, b.id);
    const departAt = atDamascus(futureDay(3), '06:00');
    const trip = await createTrip(app.db, {
      companyId: fixture.companyId,
      busId: fixture.busId,
      departAt,
      calls: [
        { stop: station, at: 0 },
        { stop: parking, at: 30 },
        { stop: end, at: 150 },
      ],
    });
    const rows = await createJourneyRows(app.db, {
      ownerUserId: caller.userId,
      trip: { id: trip.id, companyId: fixture.companyId, stopCallIds: trip.stopCallIds.slice(1) },
      travellers: ['Lina Haddad'],
      bookingStatus: 'CONFIRMED',
    });
    await confirmJourneyRows(app.db, rows.journeyId);
    await app.db.query(`update trips set status = 'DELAYED', delay_minutes = 45 where id = $1`, [trip.id]);

    const one = await app.request(`/api/bookings/${rows.bookingId}`, { headers: caller.headers });

    expect(one.status, one.text).toBe(200);
    expect(one.body.data.trip).toMatchObject({
      departure_at: departAt.toISOString(),
      delay_minutes: 45,
      expected_departure_at: new Date(departAt.getTime() + (30 + 45) * 60_000).toISOString(),
    });
  });

  it('needs a signed-in traveller and valid paging', async () => {
    const anonymous = await app.request('/api/bookings');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errorCode).toBe('AUTH_REQUIRED');
    const caller = await mobileTraveller(app);
    const badLimit = await app.request('/api/bookings?limit=0', { headers: caller.headers });
    expect(badLimit.status).toBe(400);
    const badId = await app.request('/api/bookings/123', { headers: caller.headers });
    expect(badId.status).toBe(400);
  });
});
