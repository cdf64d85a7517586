import { describe, expect, it } from 'vitest';
import { createBooking } from '../../support/bookings.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createCorridor,
  VIP_ROW_COACH,
  createStop,
  createTrip,
  futureDay,
} from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { webTraveller, type Caller } from '../../support/journeys.js';

interface Listed {
  id: string;
  price: number;
  price_vip: number | null;
  available_seats: number;
  departure_time: string;
  board_stop_call_id: string;
  alight_stop_call_id: string;
  board: { stop_call_id: string; stop_id: string };
  alight: { stop_call_id: string; stop_id: string };
  pickupLocation: { id: string };
}

/**
 * The legacy path (GET /trips, GET /trips/{id}/seats, POST /seat-locks, POST /bookings) sells the
 * whole trip, first call to last: the listing shows that price and hands out that stretch, so the
 * seat map read with the listed stop calls and the booking's total say the same amount. It lists a
 * trip only from the city of its first call, where the booking boards the traveller.
 */
describe('GET /trips shows what POST /bookings charges', () => {
  const app = useTestApp();

  async function listed(caller: Caller, from: string, to: string, date: string): Promise<Listed[]> {
    const res = await app.request(`/api/trips?from=${from}&to=${to}&date=${date}`, {
      headers: caller.headers,
    });
    expect(res.status, res.text).toBe(200);
    return res.body.data as Listed[];
  }

  async function seatMapPrice(caller: Caller, trip: Listed, seatNumber: string) {
    const res = await app.request(
      `/api/trips/${trip.id}/seats?board_stop_call_id=${trip.board_stop_call_id}` +
        `&alight_stop_call_id=${trip.alight_stop_call_id}`,
      { headers: caller.headers },
    );
    expect(res.status, res.text).toBe(200);
    const seats = res.body.data.seats as { seat_number: string; price: number }[];
    return seats.find((seat) => seat.seat_number === seatNumber)!.price;
  }

  it('lists a trip with two stops per end city at the whole-trip price the seat map and the booking answer', async () => {
    const corridor = await createCorridor(app.db, { bus: VIP_ROW_COACH });
    const caller = await webTraveller(app);
    const [shown, ...others] = await listed(
      caller,
      corridor.origin.id,
      corridor.destination.id,
      corridor.date,
    );
    expect(others).toEqual([]);
    const [first, , destinationCall, last] = corridor.trip.stopCallIds;
    // The traveller still boards in the origin city at 08:00 and alights at the destination's first stop;
    // the stretch sold, priced and handed to the seat map is the whole trip.
    expect(shown).toMatchObject({
      id: corridor.trip.id,
      departure_time: atDamascus(corridor.date, '08:00').toISOString(),
      board: { stop_call_id: first, stop_id: corridor.originStop.id },
      alight: { stop_call_id: destinationCall, stop_id: corridor.destinationStop.id },
      pickupLocation: { id: corridor.originStop.id },
      board_stop_call_id: first,
      alight_stop_call_id: last,
      price_vip: 15_000,
      available_seats: 40,
    });
    const seatMap = await seatMapPrice(caller, shown!, '1');
    const booking = await createBooking(app, caller, { tripId: corridor.trip.id, seatNumbers: ['1'] });
    expect({ listed: shown!.price, seatMap, charged: booking.total_price }).toEqual({
      listed: 10_000,
      seatMap: 10_000,
      charged: 10_000,
    });
  });

  it('lists a trip only from the city of its first call, where the booking boards: A → B → C for A → B and A → C, not for B → C', async () => {
    const [a, b, c] = [await createCity(app.db), await createCity(app.db), await createCity(app.db)];
    const [stopA, stopB, stopC] = [
      await createStop(app.db, a.id),
      await createStop(app.db, b.id),
      await createStop(app.db, c.id),
    ];
    const company = await createCompany(app.db);
    const bus = await createBus(app.db, company.id);
    const date = futureDay(3);
    const trip = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(date, '08:00'),
      calls: [
        { stop: stopA, at: 0 },
        { stop: stopB, at: 40, dwell: 10 },
        { stop: stopC, at: 160 },
      ],
    });
    const caller = await webTraveller(app);
    const [first, , last] = trip.stopCallIds;

    // POST /bookings would board at A (pickup at A, ticket and cut-offs from A's departure): a
    // traveller searching from B is not offered it here; journey search sells the stretch from B.
    const fromB = await listed(caller, b.id, c.id, date);
    expect(fromB.map((shown) => shown.id)).not.toContain(trip.id);
    const journeys = await app.request('/api/journeys/search', {
      method: 'POST',
      json: { origin_city_id: b.id, destination_city_id: c.id, departure_date: date, passengers: 1 },
    });
    expect(journeys.status, journeys.text).toBe(200);
    expect(
      (journeys.body.data.journeys as { legs: { trip_id: string }[] }[]).map((j) => j.legs[0]!.trip_id),
    ).toContain(trip.id);

    for (const to of [b, c]) {
      const shown = (await listed(caller, a.id, to.id, date)).find((result) => result.id === trip.id);
      expect(shown, `A → ${to === b ? 'B' : 'C'}`).toMatchObject({
        departure_time: atDamascus(date, '08:00').toISOString(),
        board: { stop_call_id: first, stop_id: stopA.id },
        pickupLocation: { id: stopA.id },
        board_stop_call_id: first,
        alight_stop_call_id: last,
        price: 10_000,
      });
    }

    // The booking made from the A → B listing boards where and when the listing said.
    const [shown] = await listed(caller, a.id, b.id, date);
    const seatMap = await seatMapPrice(caller, shown!, '1');
    const booking = await createBooking(app, caller, { tripId: trip.id, seatNumbers: ['1'] });
    const read = await app.request(`/api/bookings/${booking.id}`, { headers: caller.headers });
    expect(read.status, read.text).toBe(200);
    expect({
      pickup: read.body.data.trip.pickupLocation.id,
      departure: read.body.data.trip.departure_at,
      charged: booking.total_price,
      seatMap,
    }).toEqual({
      pickup: shown!.pickupLocation.id,
      departure: shown!.departure_time,
      charged: shown!.price,
      seatMap: shown!.price,
    });
  });

  it('leaves out a trip that starts at a depot: the seat map refuses that stop call, the booking would sell from it', async () => {
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const [depot, station, end] = [
      await createStop(app.db, a.id, { kind: 'DEPOT' }),
      await createStop(app.db, a.id),
      await createStop(app.db, b.id),
    ];
    const company = await createCompany(app.db);
    const bus = await createBus(app.db, company.id);
    const date = futureDay(3);
    const trip = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(date, '07:30'),
      calls: [
        { stop: depot, at: 0 },
        { stop: station, at: 30, dwell: 10 },
        { stop: end, at: 160 },
      ],
    });
    const caller = await webTraveller(app);
    const map = await app.request(
      `/api/trips/${trip.id}/seats?board_stop_call_id=${trip.stopCallIds[0]}&alight_stop_call_id=${trip.stopCallIds[2]}`,
      { headers: caller.headers },
    );
    expect(map.status, map.text).toBe(400);
    expect(await listed(caller, a.id, b.id, date)).toEqual([]);
  });
});
