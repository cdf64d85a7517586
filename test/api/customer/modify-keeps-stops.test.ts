import { describe, expect, it } from 'vitest';
import { modifyBooking, moveTo } from '../../support/booking-changes.js';
import { createBooking } from '../../support/bookings.js';
import {
  atDamascus,
  createCity,
  createCorridor,
  createStop,
  createTrip,
  futureDay,
  type TripCallSpec,
} from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { bookJourney, bookingOfCompany, webTraveller } from '../../support/journeys.js';

/**
 * PATCH /bookings/{id} action modify keeps the traveller's ride: the moved booking boards and
 * alights at its own stops wherever the new trip calls at them, so a city with two stops never
 * cuts a booking short or moves it to another stop, and its fare stays the share of the route it
 * rides. The corridor's trip calls at two stops in each city (fare shares 0, 3333, 6667, 10000).
 */
describe('PATCH /bookings/{id} (modify) keeps the booking stops', () => {
  const app = useTestApp();
  type Corridor = Awaited<ReturnType<typeof createCorridor>>;

  /** Another trip of the corridor's company and route through `calls`, a day after the corridor's. */
  function laterTrip(corridor: Corridor, calls: TripCallSpec[]) {
    return createTrip(app.db, {
      companyId: corridor.company.id,
      busId: corridor.bus.id,
      routeId: corridor.trip.routeId,
      departAt: atDamascus(futureDay(4), '08:00'),
      calls,
    });
  }

  /** A later trip through the corridor's four stops. */
  const sameStopsTrip = (corridor: Corridor) =>
    laterTrip(corridor, [
      { stop: corridor.originStop, at: 0 },
      { stop: corridor.originStop2, at: 20, dwell: 5 },
      { stop: corridor.destinationStop, at: 180, dwell: 10 },
      { stop: corridor.destinationStop2, at: 220 },
    ]);

  /** A ride on `trip` (the corridor's or a later one) from call `board` to call `alight`, for bookJourney. */
  const rideOn = (
    corridor: Corridor,
    trip: { id: string; stopCallIds: string[] },
    board: number,
    alight: number,
    assignments?: string[],
  ) => ({
    trip: { companyId: corridor.company.id, tripId: trip.id, stopCallIds: trip.stopCallIds, seatCount: 40 },
    board,
    alight,
    assignments,
  });

  /** The stop calls the booking's leg boards and alights at. */
  async function rideOf(bookingId: string) {
    const [leg] = await app.db.query<{ board: string; alight: string }>(
      `select l.board_stop_call_id as board, l.alight_stop_call_id as alight
         from bookings b join journey_legs l on l.journey_id = b.journey_id and l.trip_id = b.trip_id
        where b.id = $1`,
      [bookingId],
    );
    return leg!;
  }

  /** Whether each seat is free for sale on the stretch from call `board` to call `alight` of the trip. */
  async function freeSeats(trip: { id: string; stopCallIds: string[] }, board: number, alight: number) {
    const map = await app.request(
      `/api/trips/${trip.id}/seats?board_stop_call_id=${trip.stopCallIds[board]}` +
        `&alight_stop_call_id=${trip.stopCallIds[alight]}`,
    );
    expect(map.status, map.text).toBe(200);
    const seats = map.body.data.seats as { seat_number: string; available: boolean }[];
    return (labels: string[]) =>
      labels.map((label) => seats.find((seat) => seat.seat_number === label)!.available);
  }

  it('a seat change on the same trip keeps the whole-trip ride and its fare, and the new seat is taken to the end', async () => {
    const corridor = await createCorridor(app.db);
    const caller = await webTraveller(app);
    const booking = await createBooking(app, caller, { tripId: corridor.trip.id, seatNumbers: ['1'] });
    expect(booking.total_price).toBe(10_000);

    const moved = await modifyBooking(app, caller, booking.id, moveTo(corridor.trip.id, ['2']));

    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ seat_numbers: ['2'], subtotal: 10_000, total_price: 10_000 });
    expect(await rideOf(booking.id)).toEqual({
      board: corridor.trip.stopCallIds[0],
      alight: corridor.trip.stopCallIds[3],
    });
    // The last stretch (the destination city's two stops) is not sold again under the traveller.
    expect((await freeSeats(corridor.trip, 2, 3))(['1', '2'])).toEqual([true, false]);
  });

  it('a move to a trip through the same stops keeps the stops and the fare', async () => {
    const corridor = await createCorridor(app.db);
    const twin = await sameStopsTrip(corridor);
    const caller = await webTraveller(app);
    const booking = await createBooking(app, caller, { tripId: corridor.trip.id, seatNumbers: ['1'] });

    const moved = await modifyBooking(app, caller, booking.id, moveTo(twin.id, ['1']));

    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ trip: { id: twin.id }, subtotal: 10_000, total_price: 10_000 });
    expect(await rideOf(booking.id)).toEqual({ board: twin.stopCallIds[0], alight: twin.stopCallIds[3] });
    expect((await freeSeats(twin, 2, 3))(['1'])).toEqual([false]);
  });

  it("a booking from its city's second stop keeps its stretch and fare when moved", async () => {
    const corridor = await createCorridor(app.db);
    const twin = await sameStopsTrip(corridor);
    const caller = await webTraveller(app);
    // From the origin city's second stop (share 3333) to the destination city's first (6667).
    const { journeyId } = await bookJourney(app, caller, [rideOn(corridor, corridor.trip, 1, 2)]);
    const bookingId = await bookingOfCompany(app.db, journeyId, corridor.company.id);
    const [before] = await app.db.query<{ total_price: number; seat_numbers: string[] }>(
      `select total_price::int, seat_numbers from bookings where id = $1`,
      [bookingId],
    );
    expect(before!.total_price).toBe(3_334);

    const moved = await modifyBooking(app, caller, bookingId, moveTo(twin.id, before!.seat_numbers));

    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ subtotal: 3_334, total_price: 3_334 });
    expect(await rideOf(bookingId)).toEqual({ board: twin.stopCallIds[1], alight: twin.stopCallIds[2] });
    // The first stretch, before its stop, stays for sale.
    expect((await freeSeats(twin, 0, 1))(before!.seat_numbers)).toEqual([true]);
  });

  it('moves a booking onto a seat another traveller rides only up to the stop where the booking boards', async () => {
    const corridor = await createCorridor(app.db);
    // The later trip starts in another city and reaches the booking's cities through its stops.
    const before = await createStop(app.db, (await createCity(app.db)).id);
    const later = await laterTrip(corridor, [
      { stop: before, at: 0 },
      { stop: corridor.originStop2, at: 120, dwell: 10 },
      { stop: corridor.destinationStop, at: 240 },
    ]);
    const caller = await webTraveller(app);
    const { journeyId } = await bookJourney(app, caller, [rideOn(corridor, corridor.trip, 1, 2)]);
    const bookingId = await bookingOfCompany(app.db, journeyId, corridor.company.id);
    const [mine] = await app.db.query<{ seat_numbers: string[] }>(
      `select seat_numbers from bookings where id = $1`,
      [bookingId],
    );
    // Another traveller has the same seat of the later trip only up to the booking's boarding stop.
    await bookJourney(app, await webTraveller(app), [rideOn(corridor, later, 0, 1, mine!.seat_numbers)]);

    const moved = await modifyBooking(app, caller, bookingId, moveTo(later.id, mine!.seat_numbers));

    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ trip: { id: later.id }, seat_numbers: mine!.seat_numbers });
    expect(await rideOf(bookingId)).toEqual({ board: later.stopCallIds[1], alight: later.stopCallIds[2] });
  });

  it("a whole-trip booking moved to a trip ending at another stop of its city rides to that trip's end", async () => {
    const corridor = await createCorridor(app.db);
    const terminus = await createStop(app.db, corridor.destination.id);
    // It does not call at the booking's last stop (the destination city's second): it ends elsewhere in that city.
    const other = await laterTrip(corridor, [
      { stop: corridor.originStop, at: 0 },
      { stop: corridor.destinationStop, at: 180, dwell: 10 },
      { stop: terminus, at: 230 },
    ]);
    const caller = await webTraveller(app);
    const booking = await createBooking(app, caller, { tripId: corridor.trip.id, seatNumbers: ['1'] });

    const moved = await modifyBooking(app, caller, booking.id, moveTo(other.id, ['1']));

    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ subtotal: 10_000, total_price: 10_000 });
    expect(await rideOf(booking.id)).toEqual({ board: other.stopCallIds[0], alight: other.stopCallIds[2] });
  });
});
