import { beforeAll, describe, expect, it } from 'vitest';
import { lockSeats } from '../../support/bookings.js';
import { atDamascus, createBus, createRoute, createTrip, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { webTraveller } from '../../support/journeys.js';
import { dashboard, planningWorld, type PlanningWorld } from '../../support/planning.js';
import { everyPage } from '../../support/pages.js';

/**
 * The dashboard's trip history (GET /trips without a date) a page at a time: latest departure
 * first, trips departing together in id order, so a dispatcher paging with offset sees every trip
 * once; route, bus and status narrow it with pagination.total and the counters as the OpenAPI
 * document says (counters over the selection before the status filter); each trip of a page
 * carries its own seats taken.
 */
describe('GET /dashboard/api/trips: the history a page at a time', () => {
  const app = useTestApp();
  let world: PlanningWorld;
  let other: PlanningWorld;
  /** Every trip of the company as the history must list it. */
  let history: Planned[];

  interface Planned {
    id: string;
    departureAt: string;
    busId: string;
    routeId: string;
    status: string;
  }

  interface Listed {
    id: string;
    departure_at: string;
    status: string;
    seats_total: number;
    seats_taken: number;
  }

  const NO_TRIPS = {
    SCHEDULED: 0,
    BOARDING: 0,
    DELAYED: 0,
    DEPARTED: 0,
    ARRIVED: 0,
    COMPLETED: 0,
    CANCELLED: 0,
  };

  /** The order the list promises: departure latest first, then id (PostgreSQL orders uuids as their hex). */
  const inListOrder = (trips: Planned[]) =>
    [...trips].sort((a, b) =>
      a.departureAt === b.departureAt ? (a.id < b.id ? -1 : 1) : a.departureAt < b.departureAt ? 1 : -1,
    );

  const counted = (trips: Planned[]) => {
    const counters: Record<string, number> = { ...NO_TRIPS };
    for (const trip of trips) counters[trip.status]! += 1;
    return counters;
  };

  const list = async (query: string) => {
    const response = await dashboard(app, world.sessions.DISPATCHER, 'GET', `/trips?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body as {
      data: Listed[];
      counters: Record<string, number>;
      pagination: { limit: number; offset: number; total: number };
    };
  };

  /** Every page of `query` with `limit`, offset by offset until one comes back short. */
  const allPages = (query: string, limit: number) =>
    everyPage(
      (paging) => list(`${query}${query ? '&' : ''}${paging}`),
      (page) => page.data,
      limit,
    );

  beforeAll(async () => {
    world = await planningWorld(app);
    other = await planningWorld(app);
    const secondBus = await createBus(app.db, world.companyId);
    const thirdBus = await createBus(app.db, world.companyId);
    const secondRoute = await createRoute(app.db, world.companyId, world.origin.id, world.destination.id);
    // Four departure instants, three trips leaving at each: a page of 5 ends inside a tie.
    const instants = [
      atDamascus(futureDay(20), '08:00'),
      atDamascus(futureDay(20), '12:00'),
      atDamascus(futureDay(21), '08:00'),
      atDamascus(futureDay(22), '08:00'),
    ];
    const legs = [
      { busId: world.bus.id, routeId: world.routeId },
      { busId: secondBus.id, routeId: secondRoute.id },
      { busId: thirdBus.id, routeId: world.routeId },
    ];
    history = [];
    for (const departAt of instants) {
      for (const leg of legs) {
        const trip = await createTrip(app.db, {
          companyId: world.companyId,
          ...leg,
          departAt,
          calls: [
            { stop: world.originStop, at: 0 },
            { stop: world.destinationStop, at: 120 },
          ],
        });
        history.push({ id: trip.id, departureAt: departAt.toISOString(), ...leg, status: 'SCHEDULED' });
      }
    }
    const setStatus = async (index: number, status: string) => {
      await app.db.query(`update trips set status = $2 where id = $1`, [history[index]!.id, status]);
      history[index]!.status = status;
    };
    await setStatus(2, 'CANCELLED');
    await setStatus(8, 'CANCELLED');
    await setStatus(4, 'DELAYED');
    await setStatus(11, 'CANCELLED');
    await createTrip(app.db, {
      companyId: other.companyId,
      busId: other.bus.id,
      routeId: other.routeId,
      departAt: instants[0]!,
      calls: [
        { stop: other.originStop, at: 0 },
        { stop: other.destinationStop, at: 120 },
      ],
    });
  });

  it('pages through trips departing together without repeating or skipping one, latest departure first, then id', async () => {
    const expected = inListOrder(history).map((trip) => trip.id);
    for (const limit of [5, 2, 12]) {
      const pages = await allPages('', limit);
      expect(
        pages.flatMap((page) => page.data.map((trip) => trip.id)),
        `limit ${limit}`,
      ).toEqual(expected);
      for (const [index, page] of pages.entries()) {
        expect(page.pagination).toEqual({ limit, offset: index * limit, total: 12 });
        expect(page.counters).toEqual({ ...NO_TRIPS, SCHEDULED: 8, DELAYED: 1, CANCELLED: 3 });
      }
    }
    const page = await list('limit=5&offset=5');
    expect(page.data.map((trip) => trip.departure_at)).toEqual(
      inListOrder(history)
        .slice(5, 10)
        .map((trip) => trip.departureAt),
    );
    const pastTheEnd = await list('limit=5&offset=12');
    expect(pastTheEnd.data).toEqual([]);
    expect(pastTheEnd.pagination.total).toBe(12);
  });

  it('narrows by bus, route and status: total the matching trips, counters every status of the selection', async () => {
    const [firstBus, secondBus, thirdBus] = [0, 1, 2].map((index) => history[index]!.busId);
    const onBus = (busId: string) => history.filter((trip) => trip.busId === busId);
    const onRoute = history.filter((trip) => trip.routeId === world.routeId);
    // [query, the selection the counters count, the trips listed]
    const cases: [string, Planned[], Planned[]][] = [
      [`bus_id=${thirdBus}`, onBus(thirdBus!), onBus(thirdBus!)],
      [`bus_id=${secondBus}`, onBus(secondBus!), onBus(secondBus!)],
      [`route_id=${world.routeId}`, onRoute, onRoute],
      ['status=CANCELLED', history, history.filter((trip) => trip.status === 'CANCELLED')],
      [
        `route_id=${world.routeId}&status=SCHEDULED`,
        onRoute,
        onRoute.filter((trip) => trip.status === 'SCHEDULED'),
      ],
      [
        `bus_id=${firstBus}&status=DELAYED`,
        onBus(firstBus!),
        onBus(firstBus!).filter((trip) => trip.status === 'DELAYED'),
      ],
    ];
    for (const [query, selection, matching] of cases) {
      const pages = await allPages(query, 3);
      expect(
        pages.flatMap((page) => page.data.map((trip) => trip.id)),
        query,
      ).toEqual(inListOrder(matching).map((trip) => trip.id));
      for (const page of pages) {
        expect(page.pagination.total, query).toBe(matching.length);
        expect(page.counters, query).toEqual(counted(selection));
      }
    }
  });

  it('gives each trip of a page its own seats taken: held seats count, a released lock does not', async () => {
    // Seats are locked on trips still on sale (SCHEDULED): two trips of the first page, one of the second.
    const sold = inListOrder(history).flatMap((trip, index) =>
      trip.status === 'SCHEDULED' ? [{ trip, index }] : [],
    );
    const [held, released] = [sold[0]!.trip, sold[1]!.trip];
    const later = sold.find(({ index }) => index >= 5)!.trip;
    await lockSeats(app, await webTraveller(app), held.id, ['1', '2']);
    await lockSeats(app, await webTraveller(app), held.id, ['3']);
    const traveller = await webTraveller(app);
    const lockId = await lockSeats(app, traveller, released.id, ['1']);
    const release = await app.request(`/api/seat-locks/${lockId}`, {
      method: 'DELETE',
      headers: traveller.headers,
    });
    expect(release.status, release.text).toBe(200);
    await lockSeats(app, await webTraveller(app), later.id, ['4']);

    const taken = { [held.id]: 3, [later.id]: 1 };
    for (const page of await allPages('', 5)) {
      for (const trip of page.data) {
        expect([trip.id, trip.seats_taken]).toEqual([trip.id, taken[trip.id] ?? 0]);
        expect(trip.seats_total).toBe(world.bus.seatCount);
      }
    }
    const second = await list('limit=5&offset=5');
    expect(second.data.find((trip) => trip.id === later.id)?.seats_taken).toBe(1);
  });
});
