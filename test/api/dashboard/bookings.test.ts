import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCorridor } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import {
  confirmedJourneyRows,
  createJourneyRows,
  journeyTripOf,
  staffSession,
  type JourneyRows,
  type JourneyTrip,
} from '../../support/journey-rows.js';

describe("the company's bookings in the dashboard", () => {
  const app = useTestApp();
  let date: string;
  let trip: JourneyTrip;
  let foreignTrip: JourneyTrip;
  let cookie: string;
  let requested: JourneyRows;
  let confirmed: JourneyRows;
  let inOrder: JourneyRows;
  let foreign: JourneyRows;
  const deadline = new Date(Date.now() + 15 * 60_000);

  const list = (query = '') =>
    app.request(`/dashboard/api/bookings${query}`, { headers: { Cookie: cookie } });

  beforeAll(async () => {
    const corridor = await createCorridor(app.db);
    date = corridor.date;
    trip = journeyTripOf(corridor);
    foreignTrip = journeyTripOf(await createCorridor(app.db, { date }));
    const ownerUserId = (await app.signIn()).userId;
    cookie = (await staffSession(app.db, app.config, trip.companyId, 'STAFF')).cookie;

    confirmed = await confirmedJourneyRows(app.db, { ownerUserId, trip, travellers: ['Omar Saleh'] });
    requested = await createJourneyRows(app.db, {
      ownerUserId,
      trip,
      travellers: ['Hiba Nasser', 'Adel Nasser'],
      requestDeadline: deadline,
    });
    inOrder = await createJourneyRows(app.db, { ownerUserId, trip, travellers: ['Maya Aziz'] });
    // A journey confirmed inside an order: the company's request is the order's.
    const orderId = randomUUID();
    await app.db.query(
      `insert into journey_orders (id, owner_user_id, status) values ($1, $2, 'REQUESTED')`,
      [orderId, ownerUserId],
    );
    await app.db.query('update journeys set order_id = $2 where id = $1', [inOrder.journeyId, orderId]);
    await app.db.query(
      `insert into confirmation_requests (scope_kind, scope_id, company_id, deadline, status, decided_at, reason)
       values ('ORDER', $1, $2, $3, 'REJECTED', now(), 'Bus full')`,
      [orderId, trip.companyId, deadline],
    );
    await app.db.query(
      `update journeys set status = 'CANCELLED', failure_reason = 'COMPANY_REJECTED' where id = $1`,
      [inOrder.journeyId],
    );
    await app.db.query(`update bookings set status = 'CANCELLED' where id = $1`, [inOrder.bookingId]);
    foreign = await createJourneyRows(app.db, {
      ownerUserId,
      trip: foreignTrip,
      travellers: ['Nour Hamdan'],
      requestDeadline: deadline,
    });
  });

  it('lists only its own bookings, newest first, with the confirmation request of each', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    const ids = response.body.data.map((booking: { id: string }) => booking.id);
    expect(ids).toEqual([inOrder.bookingId, requested.bookingId, confirmed.bookingId]);
    expect(ids).not.toContain(foreign.bookingId);
    expect(response.body.pagination).toEqual({ limit: 20, offset: 0, total: 3 });

    const [order, pending, done] = response.body.data;
    expect(pending).toMatchObject({
      journey_id: requested.journeyId,
      trip_id: trip.id,
      trip: { operating_date: date },
      passenger_name: 'Hiba Nasser',
      seats_count: 2,
      seat_numbers: ['1A', '2A'],
      status: 'PENDING_CONFIRMATION',
      confirmation: {
        request_id: requested.requestId,
        status: 'PENDING',
        deadline: deadline.toISOString(),
        decided_at: null,
      },
      failure_reason: null,
      boarding: { stop_name_en: expect.any(String), at: expect.any(String) },
      alighting: { stop_name_en: expect.any(String), at: expect.any(String) },
    });
    expect(done).toMatchObject({ status: 'CONFIRMED', confirmation: null });
    expect(order).toMatchObject({
      status: 'CANCELLED',
      confirmation: { status: 'REJECTED', reason: 'Bus full', decided_at: expect.any(String) },
      failure_reason: 'COMPANY_REJECTED',
    });
  });

  it('filters by booking status, confirmation status, trip and operating date', async () => {
    const idsOf = async (query: string) =>
      (await list(query)).body.data.map((booking: { id: string }) => booking.id);
    expect(await idsOf('?status=CONFIRMED')).toEqual([confirmed.bookingId]);
    expect(await idsOf('?confirmation_status=PENDING')).toEqual([requested.bookingId]);
    expect(await idsOf(`?trip_id=${trip.id}&status=PENDING_CONFIRMATION`)).toEqual([requested.bookingId]);
    expect(await idsOf(`?trip_id=${foreignTrip.id}`)).toEqual([]);
    expect(await idsOf(`?date=${date}`)).toHaveLength(3);
    expect(await idsOf('?date=2020-01-01')).toEqual([]);
  });

  it('pages with limit and offset and always reports the total', async () => {
    const first = await list('?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.pagination).toEqual({ limit: 2, offset: 0, total: 3 });
    const second = await list('?limit=2&offset=2');
    expect(second.body.data.map((booking: { id: string }) => booking.id)).toEqual([confirmed.bookingId]);
    const past = await list('?limit=2&offset=10');
    expect(past.body).toMatchObject({ data: [], pagination: { total: 3 } });
  });

  it('refuses bad filters with 400', async () => {
    for (const query of [
      '?status=LOST',
      '?trip_id=abc',
      '?date=2026-02-30',
      '?limit=0',
      '?limit=101',
      '?company_id=' + foreignTrip.companyId,
    ]) {
      const response = await list(query);
      expect(response.status, query).toBe(400);
      expect(response.body.errorCode).toBe('VALIDATION_FAILED');
    }
  });

  it("reads one of its bookings, and answers 404 for another company's", async () => {
    const own = await app.request(`/dashboard/api/bookings/${requested.bookingId}`, {
      headers: { Cookie: cookie },
    });
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ id: requested.bookingId, confirmation: { status: 'PENDING' } });

    for (const id of [foreign.bookingId, randomUUID()]) {
      const response = await app.request(`/dashboard/api/bookings/${id}`, { headers: { Cookie: cookie } });
      expect(response.status).toBe(404);
      expect(response.body.errorCode).toBe('BOOKING_NOT_FOUND');
    }
    expect(
      (await app.request('/dashboard/api/bookings/not-an-id', { headers: { Cookie: cookie } })).status,
    ).toBe(400);
  });

  describe('pickupLocation (SPEC "Trip pickup location": in booking lists and booking details)', () => {
    let corridor: Awaited<ReturnType<typeof createCorridor>>;
    let pickupCookie: string;
    let atPickup: JourneyRows;
    let midRoute: JourneyRows;

    const pickupOf = (stop: { id: string; nameEn: string }) => ({
      id: stop.id,
      name: `موقف ${stop.nameEn}`,
      nameEn: stop.nameEn,
      address: 'عنوان',
      addressEn: 'Address',
      latitude: 33.51,
      longitude: 36.29,
      directions: 'اتجاهات',
      directionsEn: 'Directions',
    });

    beforeAll(async () => {
      corridor = await createCorridor(app.db);
      const pickupTrip = journeyTripOf(corridor);
      const ownerUserId = (await app.signIn()).userId;
      pickupCookie = (await staffSession(app.db, app.config, corridor.company.id, 'STAFF')).cookie;
      atPickup = await confirmedJourneyRows(app.db, {
        ownerUserId,
        trip: pickupTrip,
        travellers: ['Omar Saleh'],
      });
      midRoute = await confirmedJourneyRows(app.db, {
        ownerUserId,
        trip: pickupTrip,
        travellers: ['Lina Haddad'],
      });
      // Lina boards at the trip's second call (another stop of the origin city), after the bus left its pickup stop.
      await app.db.query(
        'update journey_legs set board_stop_call_id = $2, board_sequence = 1 where journey_id = $1',
        [midRoute.journeyId, pickupTrip.stopCallIds[1]],
      );
    });

    it("lists each booking with where its traveller is picked up: the trip's pickup stop or their boarding stop", async () => {
      const response = await app.request('/dashboard/api/bookings', { headers: { Cookie: pickupCookie } });
      expect(response.status, response.text).toBe(200);
      expect(response.body.pagination).toEqual({ limit: 20, offset: 0, total: 2 });
      const byId = new Map(response.body.data.map((booking: { id: string }) => [booking.id, booking]));
      expect(byId.get(atPickup.bookingId)).toMatchObject({
        trip: { pickupLocation: pickupOf(corridor.originStop) },
        boarding: { stop_name_en: corridor.originStop.nameEn },
      });
      expect(byId.get(midRoute.bookingId)).toMatchObject({
        trip: { pickupLocation: pickupOf(corridor.originStop2) },
        boarding: { stop_name_en: corridor.originStop2.nameEn },
      });
    });

    it('shows one booking with where its traveller is picked up', async () => {
      const read = (id: string) =>
        app.request(`/dashboard/api/bookings/${id}`, { headers: { Cookie: pickupCookie } });
      const atStop = await read(atPickup.bookingId);
      expect(atStop.status, atStop.text).toBe(200);
      expect(atStop.body.data.trip.pickupLocation).toEqual(pickupOf(corridor.originStop));
      const later = await read(midRoute.bookingId);
      expect(later.status, later.text).toBe(200);
      expect(later.body.data.trip.pickupLocation).toEqual(pickupOf(corridor.originStop2));
    });
  });

  it('needs a dashboard session', async () => {
    expect((await app.request('/dashboard/api/bookings')).status).toBe(401);
    expect((await app.request(`/dashboard/api/bookings/${requested.bookingId}`)).status).toBe(401);
  });
});
