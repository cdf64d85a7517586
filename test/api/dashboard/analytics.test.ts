import { randomUUID } from 'node:crypto';
import pg, { type Pool, type PoolClient } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../domain/analytics.js';
import { FORECAST_HISTORY_DAYS, forecastRevenue } from '../../../domain/forecast.js';
import {
  ANALYTICS_ROLLUP_WORKFLOW,
  type AnalyticsRollupInput,
} from '../../../workflows/analytics-rollup.contract.js';
import { workflowIds } from '../../../workflows/shared.js';
import { bookableTrip } from '../../support/bookings.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { daysAgo, insightWorld, today, type InsightWorld } from '../../support/insight.js';
import { staffSession } from '../../support/journey-rows.js';

type Session = Awaited<ReturnType<typeof staffSession>>;

type Query = (...args: unknown[]) => Promise<unknown>;

/**
 * While armed, the first statistics read (a select from booking_stats_deltas) runs, then `between`
 * runs and commits on a connection of its own, and only then do the other statistics reads run:
 * a change made between two reads of one answer, every time. Returns the disarm.
 */
function betweenStatsReads(pool: Pool, between: () => Promise<unknown>): () => void {
  let armed = true;
  let gate: Promise<unknown> | null = null;
  const patched = new WeakSet<PoolClient>();
  const onAcquire = (client: PoolClient) => {
    if (patched.has(client)) return;
    patched.add(client);
    const query = client.query.bind(client) as unknown as Query;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      // A statement as text, or as the named prepared statement a transaction sends (db/prepared.ts).
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
      if (!armed || typeof text !== 'string' || !/^\s*select[\s\S]*booking_stats_deltas/.test(text)) {
        return query(...args);
      }
      const callback =
        typeof args.at(-1) === 'function' ? (args.pop() as (e: unknown, r?: unknown) => void) : null;
      let result: Promise<unknown>;
      if (gate) result = gate.then(() => query(...args));
      else {
        result = query(...args);
        gate = result.then(between);
      }
      if (!callback) return result;
      result.then((rows) => callback(null, rows), callback);
      return undefined;
    };
  };
  pool.on('acquire', onAcquire);
  return () => {
    armed = false;
    pool.off('acquire', onAcquire);
  };
}

describe('GET /dashboard/api/analytics and /analytics/advanced', () => {
  const app = useTestApp();
  let world: InsightWorld;
  let owner: Session;

  // The fixture is dated from today and the answers read the server's today: one day for the file.
  beforeAll(async () => {
    await dayWithRoom();
    world = await insightWorld(app.db);
    owner = await staffSession(app.db, app.config, world.companyId, 'OWNER');
  }, dayWithRoomTimeout());

  const get = (path: string, session: Session = owner) =>
    app.request(`/dashboard/api${path}`, { headers: { Cookie: session.cookie } });

  const rollup = (input: AnalyticsRollupInput) =>
    app.temporal.workflow.execute(ANALYTICS_ROLLUP_WORKFLOW, {
      workflowId: workflowIds.analyticsRollup(randomUUID()),
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      args: [input],
    });

  it('daily: today against yesterday, figures as counted by hand', async () => {
    const response = await get('/analytics?period=daily');
    expect(response.status, response.text).toBe(200);
    const data = response.body.data;
    expect(data).toMatchObject({
      period: 'daily',
      today: today(),
      windows: { current: { from: today(), to: today() }, previous: { from: daysAgo(1), to: daysAgo(1) } },
      geographic: [],
      ageGroups: [],
    });
    expect(data.indicators).toEqual({
      bookings: { current: 2, previous: 1, changePercent: 100 },
      soldBookings: { current: 1, previous: 1, changePercent: 0 },
      seatsSold: { current: 2, previous: 1, changePercent: 100 },
      revenue: { current: 18_000, previous: 10_000, changePercent: 80 },
      averageBookingValue: { current: 18_000, previous: 10_000, changePercent: 80 },
      cancellations: { current: 1, previous: 0, changePercent: null },
      cancellationRate: { current: 50, previous: 0, changePercent: null },
      occupancyRate: { current: 5, previous: 2.5, changePercent: 100 },
    });
  });

  it('weekly: the last 7 days against the 7 before, with the three series together', async () => {
    const data = (await get('/analytics?period=weekly')).body.data;
    expect(data.indicators).toEqual({
      bookings: { current: 6, previous: 2, changePercent: 200 },
      soldBookings: { current: 4, previous: 1, changePercent: 300 },
      seatsSold: { current: 7, previous: 2, changePercent: 250 },
      revenue: { current: 65_000, previous: 16_000, changePercent: 306.3 },
      averageBookingValue: { current: 16_250, previous: 16_000, changePercent: 1.6 },
      cancellations: { current: 1, previous: 1, changePercent: 0 },
      cancellationRate: { current: 16.7, previous: 50, changePercent: -66.6 },
      occupancyRate: { current: 5.8, previous: 10, changePercent: -42 },
    });
    const { daily, weekly, monthly } = data.bookingTrends;
    expect(daily).toHaveLength(30);
    expect(weekly).toHaveLength(12);
    expect(monthly).toHaveLength(12);
    expect(daily.at(-1)).toEqual({
      date: today(),
      bookings: 2,
      soldBookings: 1,
      seatsSold: 2,
      revenue: 18_000,
      cancellations: 1,
    });
    expect(daily.find((day: any) => day.date === daysAgo(2))).toMatchObject({ bookings: 1, soldBookings: 0 });
    expect(daily.find((day: any) => day.date === daysAgo(5))).toMatchObject({
      revenue: 27_000,
      seatsSold: 3,
    });
    const sum = (points: any[], key: string) => points.reduce((total, item) => total + item[key], 0);
    // Everything of the last 30 days, and the booking of 40 days ago in the weekly and monthly series.
    expect([sum(daily, 'bookings'), sum(weekly, 'bookings'), sum(monthly, 'bookings')]).toEqual([8, 9, 9]);
    expect([sum(daily, 'revenue'), sum(weekly, 'revenue'), sum(monthly, 'revenue')]).toEqual([
      81_000, 89_000, 89_000,
    ]);
    expect(data.dailyRevenue.at(-1)).toEqual({ date: today(), revenue: 18_000, soldBookings: 1 });
    expect(data.monthlyRevenue.map((month: any) => month.month)).toEqual(
      monthly.map((month: any) => month.month),
    );
    expect(weekly.at(-1).weekStart <= today()).toBe(true);
  });

  it('route performance and travel frequency over the horizon of the period', async () => {
    const daily = (await get('/analytics?period=daily')).body.data;
    expect(daily.routePerformance.horizon).toEqual({ from: daysAgo(29), to: today() });
    expect(daily.routePerformance.routes).toEqual([
      {
        routeId: world.routeA.id,
        nameAr: `خط ${world.routeA.nameEn}`,
        nameEn: world.routeA.nameEn,
        bookings: 6,
        soldBookings: 4,
        seatsSold: 7,
        revenue: 65_000,
        cancellations: 1,
        trips: 3,
        seatsOffered: 120,
        seatsSoldOnTrips: 7,
        occupancyRate: 5.8,
        rank: 1,
      },
      expect.objectContaining({
        routeId: world.routeB.id,
        bookings: 2,
        soldBookings: 1,
        revenue: 16_000,
        trips: 1,
        seatsOffered: 20,
        seatsSoldOnTrips: 2,
        occupancyRate: 10,
        rank: 2,
      }),
    ]);
    expect(daily.customerFrequency).toMatchObject({
      horizon: { from: daysAgo(29), to: today() },
      customers: 3,
      trips: 5,
      repeatCustomers: 1,
      repeatRate: 33.3,
      averageTripsPerCustomer: 1.67,
      buckets: [
        { label: '1', customers: 2 },
        { label: '2', customers: 0 },
        { label: '3-5', customers: 1 },
        { label: '6-10', customers: 0 },
        { label: '11+', customers: 0 },
      ],
    });
    const monthly = (await get('/analytics?period=monthly')).body.data;
    expect(monthly.customerFrequency.buckets.slice(0, 3)).toEqual([
      { label: '1', customers: 1 },
      { label: '2', customers: 1 },
      { label: '3-5', customers: 1 },
    ]);
    expect(
      monthly.routePerformance.routes.find((route: any) => route.routeId === world.routeB.id),
    ).toMatchObject({
      trips: 2,
      seatsOffered: 40,
      seatsSoldOnTrips: 3,
      occupancyRate: 7.5,
    });
  });

  it('advanced, 7 days: cancellations, retention, forecast, route ranking and lead time', async () => {
    const response = await get('/analytics/advanced?days=7');
    expect(response.status, response.text).toBe(200);
    const data = response.body.data;
    expect(data.windows).toEqual({
      current: { from: daysAgo(6), to: today() },
      previous: { from: daysAgo(13), to: daysAgo(7) },
    });
    expect(data.cancellations).toMatchObject({
      total: 1,
      rate: 16.7,
      previousTotal: 1,
      previousRate: 50,
      byReason: [{ reason: 'OTHER', count: 1 }],
    });
    expect(data.cancellations.daily).toHaveLength(7);
    expect(data.retention).toEqual({
      previousCustomers: 1,
      currentCustomers: 3,
      retainedCustomers: 1,
      retentionRate: 100,
      repeatCustomers: 1,
      repeatRate: 33.3,
    });
    expect(data.routeRanking).toEqual([
      expect.objectContaining({
        routeId: world.routeA.id,
        rank: 1,
        previousRank: null,
        revenue: 65_000,
        cancellationRate: 16.7,
      }),
    ]);
    expect(data.leadTime).toEqual({
      bookings: 4,
      averageDays: 0.5,
      medianDays: 0,
      p90Days: 2,
      buckets: [
        { label: '0', count: 3 },
        { label: '1', count: 0 },
        { label: '2-3', count: 1 },
        { label: '4-7', count: 0 },
        { label: '8-14', count: 0 },
        { label: '15-30', count: 0 },
        { label: '31+', count: 0 },
      ],
    });
    // The forecast is the domain method on the sold revenue of each of the last 56 days.
    const revenueByDay: Record<number, number> = { 1: 10_000, 3: 10_000, 5: 27_000, 10: 16_000, 40: 8_000 };
    const history = Array.from(
      { length: FORECAST_HISTORY_DAYS },
      (_, index) => revenueByDay[FORECAST_HISTORY_DAYS - index] ?? 0,
    );
    const expected = forecastRevenue(history, 7);
    expect(data.revenueForecast).toMatchObject({
      method: 'ols-linear-trend-with-weekday-effects',
      historyDays: 56,
      history: { from: daysAgo(56), to: daysAgo(1) },
      horizonDays: 7,
      slopePerDay: expected.slopePerDay,
    });
    expect(data.revenueForecast.points).toEqual(
      expected.points.map((point, index) => ({
        date: addDays(today(), index),
        revenue: point.value,
        low: point.low,
        high: point.high,
      })),
    );
  });

  it('follows a booking change at once, and a roll-up run changes none of the figures', async () => {
    const before = (await get('/analytics?period=weekly')).body.data.indicators;
    await app.db.query(`update bookings set status = 'CANCELLED' where id = $1`, [world.bookings.b3]);
    const after = (await get('/analytics?period=weekly')).body.data.indicators;
    expect(after.soldBookings.current).toBe(before.soldBookings.current - 1);
    expect(after.revenue.current).toBe(before.revenue.current - 10_000);
    expect(after.cancellations.current).toBe(before.cancellations.current + 1);
    const deltas = await app.db.query(
      `select count(*)::int as n from booking_stats_deltas where company_id = $1`,
      [world.companyId],
    );
    expect(deltas[0]!.n).toBeGreaterThan(0);

    const result = await rollup({ companyIds: [world.companyId] });
    expect(result).toMatchObject({ deltasFolded: deltas[0]!.n, companiesRecounted: 1 });
    const folded = await get('/analytics?period=weekly');
    expect(folded.body.data.indicators).toEqual(after);
    expect(
      await app.db.query(`select count(*)::int as n from booking_stats_deltas where company_id = $1`, [
        world.companyId,
      ]),
    ).toEqual([{ n: 0 }]);
    // The statistics equal a recount of the bookings.
    const [recount] = await app.db.query(
      `select sum(m.revenue)::int as revenue, sum(m.cancelled)::int as cancelled
         from bookings b, booking_stats_measures(b.status, b.payment_status, b.seats_count, b.trip_share_bp, b.total_price, b.discount) m
        where b.company_id = $1`,
      [world.companyId],
    );
    const [stats] = await app.db.query(
      `select sum(revenue)::int as revenue, sum(cancelled)::int as cancelled from booking_stats_daily
        where company_id = $1 and basis = 'SALES'`,
      [world.companyId],
    );
    expect(stats).toEqual(recount);
    await app.db.query(`update bookings set status = 'COMPLETED' where id = $1`, [world.bookings.b3]);
  });

  it('serves travel frequency from the roll-up, at most one interval old, with its asOf', async () => {
    await rollup({ companyIds: [world.companyId] });
    const stored = (await get('/analytics?period=daily')).body.data.customerFrequency;
    // The hand count of the fixture (three travellers, five trips), as stored by the run.
    expect(stored).toMatchObject({ customers: 3, trips: 5 });
    const [row] = await app.db.query<{ computed_at: Date }>(
      `select computed_at from customer_frequency_snapshots where company_id = $1 and period = 'daily'`,
      [world.companyId],
    );
    expect(stored.asOf).toBe(new Date(row!.computed_at).toISOString());
    // A new traveller's trip today: counted at the next run, not before.
    await app.db.query(
      `insert into bookings (booking_code, company_id, trip_id, owner_user_id, passenger_name, passenger_phone, seats_count,
                             seat_numbers, status, total_price)
       select $1, $2, $3, u.id, 'New', '+963944000001', 1, '{9}', 'CONFIRMED', 10000 from users u limit 1`,
      [`BK-NEW-${randomUUID().slice(0, 6)}`, world.companyId, world.trips.A0],
    );
    const stale = (await get('/analytics?period=daily')).body.data.customerFrequency;
    expect(stale).toEqual(stored);
    await rollup({ companyIds: [world.companyId] });
    const fresh = (await get('/analytics?period=daily')).body.data.customerFrequency;
    expect(fresh.trips).toBe(stored.trips + 1);
    expect(Date.parse(fresh.asOf)).toBeGreaterThan(Date.parse(stored.asOf));
  });

  it('answers each read from one snapshot: a sale counted between two of its statements shows in none of them', async () => {
    const trip = await bookableTrip(app.db, { price: 10_000 });
    const session = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    // What the booking trigger records for a sale of 10,000 SYP made today on the route.
    const sale = async () => {
      const client = new pg.Client({ connectionString: app.config.DATABASE_URL });
      await client.connect();
      await client.query(
        `insert into booking_stats_deltas (company_id, basis, day, route_id, bookings, sold, seats_sold, revenue)
         values ($1, 'SALES', $2, $3, 1, 1, 1, 10000)`,
        [trip.companyId, today(), trip.routeId],
      );
      await client.end();
    };
    const total = (items: { revenue: number }[]) => items.reduce((sum, item) => sum + item.revenue, 0);
    /** The answer to `path`, read while a sale is made between two of its statements when `racing`. */
    const read = async (path: string, racing: boolean) => {
      const disarm = racing ? betweenStatsReads(app.db.pool, sale) : () => undefined;
      try {
        const response = await get(path, session);
        expect(response.status, response.text).toBe(200);
        return response.body.data;
      } finally {
        disarm();
      }
    };
    const basic = async (racing: boolean) => {
      const data = await read('/analytics?period=daily', racing);
      return {
        series: total(data.dailyRevenue),
        indicator: data.indicators.revenue.current,
        routes: total(data.routePerformance.routes),
      };
    };

    // Every figure as it stood when the read began: the sale made meanwhile shows in none of them.
    expect(await basic(true)).toEqual({ series: 0, indicator: 0, routes: 0 });
    const advanced = await read('/analytics/advanced?days=7', true);
    const count = (items: { bookings: number }[]) => items.reduce((sum, item) => sum + item.bookings, 0);
    expect({
      dailyBookings: count(advanced.cancellations.daily),
      routeBookings: count(advanced.routeRanking),
      routeRevenue: total(advanced.routeRanking),
    }).toEqual({ dailyBookings: 1, routeBookings: 1, routeRevenue: 10_000 });
    // Both sales show in the next read.
    expect(await basic(false)).toEqual({ series: 20_000, indicator: 20_000, routes: 20_000 });
  });

  it('lets only OWNER and ADMIN in, refuses bad periods and days, and shows a new company zeros', async () => {
    for (const role of ['ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const) {
      const member = await staffSession(app.db, app.config, world.companyId, role);
      for (const path of ['/analytics', '/analytics/advanced?days=7']) {
        const response = await get(path, member);
        expect(response.status, `${role} ${path}`).toBe(role === 'ADMIN' ? 200 : 403);
        if (role !== 'ADMIN') expect(response.body.errorCode).toBe('ROLE_NOT_ALLOWED');
      }
    }
    expect((await app.request('/dashboard/api/analytics')).status).toBe(401);
    for (const path of [
      '/analytics?period=yearly',
      '/analytics?companyId=x',
      '/analytics/advanced',
      '/analytics/advanced?days=6',
      '/analytics/advanced?days=31',
      '/analytics/advanced?days=7.5',
      '/analytics/advanced?days=seven',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(400);
      expect(response.body.errorCode).toBe('VALIDATION_FAILED');
    }
    expect((await get('/analytics')).body.data.period).toBe('monthly');

    const empty = await createCompany(app.db);
    const emptyOwner = await staffSession(app.db, app.config, empty.id, 'OWNER');
    const data = (await get('/analytics?period=monthly', emptyOwner)).body.data;
    expect(data.indicators.revenue).toEqual({ current: 0, previous: 0, changePercent: null });
    expect(data.routePerformance.routes).toEqual([]);
    expect(data.customerFrequency.customers).toBe(0);
    const advanced = (await get('/analytics/advanced?days=30', emptyOwner)).body.data;
    expect(advanced.revenueForecast.points).toHaveLength(30);
    expect(advanced.revenueForecast.total).toBe(0);
  });

  it('refuses days not written as a decimal integer, though Number() would read them as 7 to 30', async () => {
    const statuses: Record<string, number> = {};
    for (const days of ['0x1e', '1e1', '%2010', '10.0']) {
      statuses[days] = (await get(`/analytics/advanced?days=${days}`)).status;
    }
    expect(statuses).toEqual({ '0x1e': 400, '1e1': 400, '%2010': 400, '10.0': 400 });
  });
});
