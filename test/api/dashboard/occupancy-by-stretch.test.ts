import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BOOKING_TRIP_SHARES,
  RECOUNT_BOOKING_STATS,
} from '../../../db/migrations/Migration20261207001000_stretch_occupancy.js';
import type { ReportSnapshotData } from '../../../domain/reports.js';
import {
  ANALYTICS_ROLLUP_WORKFLOW,
  type AnalyticsRollupInput,
} from '../../../workflows/analytics-rollup.contract.js';
import { workflowIds } from '../../../workflows/shared.js';
import { modifyBooking, moveTo } from '../../support/booking-changes.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { fetchDocument } from '../../support/documents.js';
import {
  atDamascus,
  createBus,
  createCity,
  createStop,
  createTrip,
  futureDay,
} from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import {
  bookingOfCompany,
  bookJourney,
  mobileTraveller,
  tripOf,
  type TripFixture,
} from '../../support/journeys.js';
import { usePrivateDatabase } from '../../support/private-database.js';

/**
 * README "Company insight and programme": occupancy counts whole-trip seats. A seat sold for a
 * stretch of its trip counts for the share of the trip it is sold for (alight minus board fare
 * share), so an 8-seat bus A → B → C sold out A → B and again B → C is 8 seats sold of 8, 100 %, in
 * the trips and occupancy reports, the analytics and the PDF, as the planning board's 8 of 8 seats
 * taken; it was 16 seats sold and 200 %. Seats sold as a sales figure (tickets: the revenue report,
 * the analytics indicators and series) still count 16.
 */

const LIMITS = { REPORT_RATE_LIMIT_PER_MINUTE: 10_000, ANALYTICS_RATE_LIMIT_PER_MINUTE: 0 };

type Trip = Awaited<ReturnType<typeof tripOf>>;

/** What the company's owner reads of one trip's figures on the dashboard. */
function dashboardOf(app: TestApp) {
  return async (trip: TripFixture) => {
    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    const [row] = await app.db.query<{ date: string }>(
      `select to_char(operating_date, 'YYYY-MM-DD') as date from trips where id = $1`,
      [trip.tripId],
    );
    const date = row!.date;
    const get = async (path: string) => {
      const response = await app.request(`/dashboard/api${path}`, { headers: { Cookie: owner.cookie } });
      expect(response.status, response.text).toBe(200);
      return response;
    };
    const report = async (type: string) =>
      (await get(`/reports?type=${type}&fromDate=${date}&toDate=${date}&format=json&locale=en`)).body.data;
    return {
      date,
      cookie: owner.cookie,
      get,
      /** The trips report's row of the trip and its totals, the occupancy report's row and totals. */
      reports: async () => {
        const trips = await report('trips');
        const occupancy = await report('occupancy');
        const pick = (row: Record<string, unknown>, keys: string[]) =>
          Object.fromEntries(keys.map((key) => [key, row[key]]));
        const tripKeys = ['seatsTotal', 'seatsSold', 'occupancyPercent'];
        const routeKeys = ['seatsOffered', 'seatsSold', 'occupancyPercent'];
        return {
          trip: pick(trips.rows[0], tripKeys),
          tripTotals: pick(trips.totals, tripKeys),
          route: pick(occupancy.rows[0], routeKeys),
          routeTotals: pick(occupancy.totals, routeKeys),
        };
      },
      /** The planning board's seats of the trip. */
      board: async () => {
        const planned = (await get(`/trips?date=${date}`)).body.data.find(
          (each: { id: string }) => each.id === trip.tripId,
        );
        return { total: planned.seats_total, taken: planned.seats_taken };
      },
    };
  };
}

/** `seats` travellers of one party ride `trip` from call `board` to call `alight`. */
async function sell(app: TestApp, trip: TripFixture, board: number, alight: number, seats: number) {
  const caller = await mobileTraveller(app);
  const { journeyId } = await bookJourney(app, caller, [{ trip, board, alight }], seats);
  return { caller, bookingId: await bookingOfCompany(app.db, journeyId, trip.companyId) };
}

/** The booking statistics of a company as stored, against a recount of its bookings, per basis and day. */
async function statsAndRecount(app: TestApp, companyId: string) {
  const stored = await app.db.query(
    `select basis, day::text, route_id, sum(seats_sold)::int as seats, sum(seats_sold_bp)::int as shares
       from (select company_id, basis, day, route_id, seats_sold, seats_sold_bp from booking_stats_daily
              union all select company_id, basis, day, route_id, seats_sold, seats_sold_bp from booking_stats_deltas) s
      where s.company_id = $1 group by 1, 2, 3 having sum(seats_sold) <> 0 or sum(seats_sold_bp) <> 0 order by 1, 2, 3`,
    [companyId],
  );
  const recount = await app.db.query(
    `select x.basis, x.day::text, t.route_id, sum(m.seats_sold)::int as seats, sum(m.seats_sold_bp)::int as shares
       from bookings b join trips t on t.id = b.trip_id
      cross join booking_stats_measures(b.status, b.payment_status, b.seats_count, b.trip_share_bp, b.total_price,
                                        b.discount) m
      cross join lateral (values ('SALES', (b.created_at at time zone 'Asia/Damascus')::date),
                                 ('TRAVEL', t.operating_date)) x(basis, day)
      where b.company_id = $1 group by 1, 2, 3 having sum(m.seats_sold) <> 0 or sum(m.seats_sold_bp) <> 0
      order by 1, 2, 3`,
    [companyId],
  );
  return { stored, recount };
}

const FULL = {
  trip: { seatsTotal: 8, seatsSold: 8, occupancyPercent: 100 },
  tripTotals: { seatsTotal: 8, seatsSold: 8, occupancyPercent: 100 },
  route: { seatsOffered: 8, seatsSold: 8, occupancyPercent: 100 },
  routeTotals: { seatsOffered: 8, seatsSold: 8, occupancyPercent: 100 },
};

describe('occupancy of a trip sold by stretches', () => {
  const app = useTestApp(LIMITS);
  const dashboard = dashboardOf(app);
  let today = '';
  beforeAll(async () => {
    today = await dayWithRoom(30);
  }, dayWithRoomTimeout(30));

  /** An 8-seat bus A → B → C (fare shares 0, 5000, 10000), in three days or leaving at `departAt`. */
  const eightSeats = async (departAt?: Date): Promise<Trip> => {
    const trip = await tripOf(app.db, { rows: 2, ...(departAt ? { departAt } : {}) });
    expect(trip.seatCount).toBe(8);
    return trip;
  };

  const rollup = (input: AnalyticsRollupInput) =>
    app.temporal.workflow.execute(ANALYTICS_ROLLUP_WORKFLOW, {
      workflowId: workflowIds.analyticsRollup(randomUUID()),
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      args: [input],
    });

  it('the trips and occupancy reports: sold out A → B and B → C is 8 seats sold of 8, 100 %, as the planning board says', async () => {
    const trip = await eightSeats();
    await sell(app, trip, 0, 1, 8);
    await sell(app, trip, 1, 2, 8);
    const owner = await dashboard(trip);

    expect(await owner.board()).toEqual({ total: 8, taken: 8 });
    expect((await app.request(`/api/trips/${trip.tripId}`)).body.data.available_seats).toBe(0);
    expect(await owner.reports()).toEqual(FULL);

    // A ninth traveller A → B finds no seat: refused, and no figure moves.
    const refused = await app.request('/api/journeys/quote', {
      method: 'POST',
      headers: (await mobileTraveller(app)).headers,
      json: {
        party_size: 1,
        legs: [
          {
            trip_id: trip.tripId,
            board_stop_call_id: trip.stopCallIds[0],
            alight_stop_call_id: trip.stopCallIds[1],
          },
        ],
        resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 1, assignments: [] }],
        idempotency_key: `quote-${randomUUID()}`,
      },
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_SEATS');
    expect(await owner.reports()).toEqual(FULL);

    // The revenue report counts seats sold as sales (tickets, by booking day): 16, as before.
    const revenue = (await owner.get(`/reports?type=revenue&fromDate=${today}&toDate=${today}&format=json`))
      .body.data;
    expect(revenue.totals.seatsSold).toBe(16);
    expect(revenue.columns.find((column: { key: string }) => column.key === 'seatsSold').kind).toBe(
      'integer',
    );
  });

  it('a stretch sold alone counts for its share of the trip: 3 seats A → B of 8 are 1.5 seats, 18.8 %', async () => {
    const trip = await eightSeats();
    await sell(app, trip, 0, 1, 3);
    const owner = await dashboard(trip);

    expect(await owner.reports()).toEqual({
      trip: { seatsTotal: 8, seatsSold: 1.5, occupancyPercent: 18.8 },
      tripTotals: { seatsTotal: 8, seatsSold: 1.5, occupancyPercent: 18.8 },
      route: { seatsOffered: 8, seatsSold: 1.5, occupancyPercent: 18.8 },
      routeTotals: { seatsOffered: 8, seatsSold: 1.5, occupancyPercent: 18.8 },
    });
    const trips = await owner.get(
      `/reports?type=trips&fromDate=${owner.date}&toDate=${owner.date}&format=json`,
    );
    expect(trips.body.data.columns.find((column: { key: string }) => column.key === 'seatsSold').kind).toBe(
      'seats',
    );
    const csv = await owner.get(
      `/reports?type=trips&fromDate=${owner.date}&toDate=${owner.date}&format=csv&locale=en`,
    );
    expect(csv.text.split('\r\n')[1]).toContain(',8,1.5,18.8,');
  });

  it("analytics: today's trip sold out by stretches is 100 % occupied, 8 whole-trip seats; sales count 16 seats", async () => {
    // Leaves in 10 minutes: today, in the daily window (the day has 30 minutes left at least).
    const trip = await eightSeats(new Date(Date.now() + 10 * 60_000));
    await sell(app, trip, 0, 1, 8);
    await sell(app, trip, 1, 2, 8);
    const owner = await dashboard(trip);
    expect(owner.date).toBe(today);

    const figures = async () => {
      const data = (await owner.get('/analytics?period=daily')).body.data;
      const [route] = data.routePerformance.routes;
      return {
        occupancyRate: data.indicators.occupancyRate.current,
        seatsSold: data.indicators.seatsSold.current,
        route: {
          seatsSold: route.seatsSold,
          seatsOffered: route.seatsOffered,
          seatsSoldOnTrips: route.seatsSoldOnTrips,
          occupancyRate: route.occupancyRate,
        },
      };
    };
    const expected = {
      occupancyRate: 100,
      seatsSold: 16,
      route: { seatsSold: 16, seatsOffered: 8, seatsSoldOnTrips: 8, occupancyRate: 100 },
    };
    expect(await figures()).toEqual(expected);
    // Folding the deltas into the daily rows changes no figure.
    await rollup({ companyIds: [trip.companyId] });
    expect(await figures()).toEqual(expected);
    const advanced = (await owner.get('/analytics/advanced?days=7')).body.data.routeRanking[0];
    expect({ seatsSoldOnTrips: advanced.seatsSoldOnTrips, occupancyRate: advanced.occupancyRate }).toEqual({
      seatsSoldOnTrips: 8,
      occupancyRate: 100,
    });
  });

  it('the trips PDF prints and draws 8 of 8 seats sold, 100 %', async () => {
    const trip = await eightSeats();
    await sell(app, trip, 0, 1, 8);
    await sell(app, trip, 1, 2, 8);
    const owner = await dashboard(trip);
    const file = await fetchDocument(
      app,
      `/dashboard/api/reports?type=trips&format=pdf&locale=en&fromDate=${owner.date}&toDate=${owner.date}`,
      { Cookie: owner.cookie },
    );
    expect(file.status, JSON.stringify(file.body)).toBe(200);
    const [row] = await app.db.query<{ data: ReportSnapshotData }>(
      `select s.data from report_exports e join document_snapshots s on s.id = e.snapshot_id where e.id = $1`,
      [file.headers.get('x-report-id')],
    );
    const pdf = row!.data;
    expect(pdf.rows.map((each) => [each.seatsTotal, each.seatsSold, each.occupancyPercent])).toEqual([
      [8, 8, 100],
    ]);
    expect(pdf.totals).toMatchObject({ seatsTotal: 8, seatsSold: 8, occupancyPercent: 100 });
    expect(pdf.charts.occupancyPerRoute).toEqual([
      expect.objectContaining({ seatsSold: 8, seatsOffered: 8, percent: 100 }),
    ]);
  });

  it('a booking moved to another trip takes its share there; the statistics stay a recount of the bookings', async () => {
    const trip = await eightSeats();
    const { caller, bookingId } = await sell(app, trip, 0, 1, 2);
    // The same company's bus A → B → D → C later that day: A → B is a third of it (fare shares 0, 3333, 6667, 10000).
    const day = futureDay(3);
    const bus = await createBus(app.db, trip.companyId, { rows: 2, pattern: '2+2' });
    const other = await createTrip(app.db, {
      companyId: trip.companyId,
      busId: bus.id,
      departAt: atDamascus(day, '14:00'),
      calls: [
        { stop: trip.stops[0]!, at: 0 },
        { stop: trip.stops[1]!, at: 60, dwell: 5 },
        { stop: await createStop(app.db, (await createCity(app.db)).id), at: 120, dwell: 5 },
        { stop: trip.stops[2]!, at: 180 },
      ],
    });
    const owner = await dashboard(trip);
    const sold = async () => {
      const rows = (
        await owner.get(`/reports?type=trips&fromDate=${owner.date}&toDate=${owner.date}&format=json`)
      ).body.data.rows;
      return rows.map((each: Record<string, unknown>) => [
        each.departureTime,
        each.seatsSold,
        each.occupancyPercent,
      ]);
    };
    expect(await sold()).toEqual([
      ['08:00', 1, 12.5],
      ['14:00', 0, 0],
    ]);

    const moved = await modifyBooking(app, caller, bookingId, moveTo(other.id, ['1', '2']));
    expect(moved.status, moved.text).toBe(200);
    const [booking] = await app.db.query(`select trip_id, trip_share_bp from bookings where id = $1`, [
      bookingId,
    ]);
    expect(booking).toEqual({ trip_id: other.id, trip_share_bp: 3333 });
    expect(await sold()).toEqual([
      ['08:00', 0, 0],
      ['14:00', 0.6666, 8.3],
    ]);
    const { stored, recount } = await statsAndRecount(app, trip.companyId);
    expect(stored).toEqual(recount);
  });
});

describe('occupancy by stretches: the figures stored before this release are counted again', () => {
  // The recount replaces every company's statistics: on a database of its own, so other files'
  // statistics are left alone.
  const database = usePrivateDatabase('stretch_occupancy');
  const app = useTestApp({ ...LIMITS, DATABASE_URL: database.url });
  const dashboard = dashboardOf(app);

  it('a bus sold out by stretches, counted 16 seats and 200 % before, is 8 seats and 100 % after the migration', async () => {
    const trip = await tripOf(app.db, { rows: 2 });
    await sell(app, trip, 0, 1, 8);
    await sell(app, trip, 1, 2, 8);
    const owner = await dashboard(trip);
    const revenueBefore = (
      await owner.get(`/reports?type=revenue&fromDate=${futureDay(0)}&toDate=${futureDay(0)}&format=json`)
    ).body.data.totals;

    // As this release found them: every booking on its whole trip (the column's default), and the
    // statistics counting each sold seat as a whole seat of its trip.
    await app.db.query(`update bookings set trip_share_bp = 10000 where company_id = $1`, [trip.companyId]);
    expect(await owner.reports()).toMatchObject({
      trip: { seatsTotal: 8, seatsSold: 16, occupancyPercent: 200 },
      route: { seatsOffered: 8, seatsSold: 16, occupancyPercent: 200 },
    });

    await app.db.query(BOOKING_TRIP_SHARES);
    for (const statement of RECOUNT_BOOKING_STATS) await app.db.query(statement);

    expect(
      await app.db.query(`select trip_share_bp from bookings where company_id = $1`, [trip.companyId]),
    ).toEqual([{ trip_share_bp: 5000 }, { trip_share_bp: 5000 }]);
    expect(await owner.reports()).toEqual(FULL);
    expect(await app.db.query(`select count(*)::int as n from booking_stats_deltas`)).toEqual([{ n: 0 }]);
    const { stored, recount } = await statsAndRecount(app, trip.companyId);
    expect(stored).toEqual(recount);
    // The other figures are what they were.
    expect(
      (await owner.get(`/reports?type=revenue&fromDate=${futureDay(0)}&toDate=${futureDay(0)}&format=json`))
        .body.data.totals,
    ).toEqual(revenueBefore);
  });
});
