import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { mobileTraveller, type Caller } from '../../support/journeys.js';
import { bookableTrip, bookingBody, lockSeats, postBooking, roundTripPair } from '../../support/bookings.js';
import { dispatch } from '../../support/operations.js';

/**
 * The create answers show the trip's times as GET /bookings/{id} does: on a trip the company marked
 * DELAYED, trip.delay_minutes and trip.expected_departure_at (the planned departure plus the delay)
 * beside the planned departure_at.
 */
describe('POST /bookings and POST /bookings/round-trip on a delayed trip', () => {
  const app = useTestApp();

  async function markDelayed(app: TestApp, companyId: string, tripId: string, minutes: number) {
    const dispatcher = await staffSession(app.db, app.config, companyId, 'DISPATCHER');
    const delayed = await dispatch(app, dispatcher, tripId, {
      action: 'MARK_DELAYED',
      reason: 'Road closed',
      delay_minutes: minutes,
    });
    expect(delayed.status, delayed.text).toBe(200);
  }

  const later = (at: Date | string, minutes: number) =>
    new Date(new Date(at).getTime() + minutes * 60_000).toISOString();

  async function readBooking(caller: Caller, id: string) {
    const read = await app.request(`/api/bookings/${id}`, { headers: caller.headers });
    expect(read.status, read.text).toBe(200);
    return read.body.data;
  }

  it('answers the delay and the announced departure GET /bookings/{id} shows; a refused create books nothing', async () => {
    const trip = await bookableTrip(app.db);
    await markDelayed(app, trip.companyId, trip.tripId, 45);
    const traveller = await mobileTraveller(app);
    const lock = await lockSeats(app, traveller, trip.tripId, ['1']);

    const refused = await postBooking(app, traveller, {
      ...bookingBody({ tripId: trip.tripId, seatNumbers: ['1'], seatLockSessionId: lock }),
      seats_count: 2,
    });
    expect([refused.status, refused.body.errorCode]).toEqual([400, 'SEATS_COUNT_MISMATCH']);
    expect(await app.db.query(`select id from bookings where seat_lock_session_id = $1`, [lock])).toEqual([]);

    const created = await postBooking(
      app,
      traveller,
      bookingBody({ tripId: trip.tripId, seatNumbers: ['1'], seatLockSessionId: lock }),
    );
    expect(created.status, created.text).toBe(201);
    const answered = created.body.data.booking.trip;
    expect(answered).toMatchObject({
      status: 'DELAYED',
      departure_at: trip.departAt.toISOString(),
      delay_minutes: 45,
      expected_departure_at: later(trip.departAt, 45),
    });
    const read = await readBooking(traveller, created.body.data.booking.id);
    expect(answered).toMatchObject({
      delay_minutes: read.trip.delay_minutes,
      expected_departure_at: read.trip.expected_departure_at,
    });
  });

  it('answers each leg with its own trip: the delayed return carries its delay, the outbound on time none', async () => {
    const pair = await roundTripPair(app);
    await markDelayed(app, pair.inbound.companyId, pair.inbound.tripId, 30);
    const traveller = await mobileTraveller(app);
    const created = await app.request('/api/bookings/round-trip', {
      method: 'POST',
      headers: traveller.headers,
      json: {
        outbound_seat_lock_session_id: await lockSeats(app, traveller, pair.outbound.tripId, ['1']),
        return_seat_lock_session_id: await lockSeats(app, traveller, pair.inbound.tripId, ['1']),
        passenger_name: 'Lina Khoury',
        passenger_phone: '+963955111222',
      },
    });
    expect(created.status, created.text).toBe(201);
    const [outbound, inbound] = created.body.data.bookings;
    expect(outbound.trip).toMatchObject({
      delay_minutes: 0,
      expected_departure_at: pair.outbound.departAt.toISOString(),
    });
    expect(inbound.trip).toMatchObject({
      status: 'DELAYED',
      delay_minutes: 30,
      expected_departure_at: later(pair.inbound.departAt, 30),
    });
    for (const booking of [outbound, inbound]) {
      const read = await readBooking(traveller, booking.id);
      expect(booking.trip).toMatchObject({
        delay_minutes: read.trip.delay_minutes,
        expected_departure_at: read.trip.expected_departure_at,
      });
    }
  });
});
