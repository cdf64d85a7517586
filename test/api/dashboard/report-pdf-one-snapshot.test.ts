import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, SOLD_STATUSES } from '../../../domain/analytics.js';
import type { ReportSnapshotData } from '../../../domain/reports.js';
import { atDamascus } from '../../support/factories.js';
import { lockWaiters } from '../../drills/support/blocking.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { fetchDocument, type FetchedDocument } from '../../support/documents.js';
import { useTestApp } from '../../support/harness.js';
import { insightWorld, type InsightWorld } from '../../support/insight.js';
import { staffSession } from '../../support/journey-rows.js';

/**
 * README "Reports": a PDF report's charts (revenue per day, occupancy per route) and its table and
 * totals come from one snapshot, as a CSV or JSON report's rows do. The charts were read on the
 * pool after the rows' snapshot had ended, so a sale committed in between was drawn in the chart
 * but missing from the table: two parts of one PDF disagreed.
 *
 * Each case holds the booking statistics (which only the charts read) in the test's own open
 * transaction, so the PDF's read stops at its charts with its rows already read; the test then
 * makes a sale in that transaction and commits it, letting the charts go on.
 */
describe('GET /dashboard/api/reports PDF: its charts and its table are one snapshot', () => {
  const app = useTestApp({ REPORT_RATE_LIMIT_PER_MINUTE: 10_000 });
  let world: InsightWorld;
  let day = '';
  let cookie = '';

  beforeAll(async () => {
    day = await dayWithRoom();
    world = await insightWorld(app.db, { day, companyName: `One snapshot ${Date.now()}` });
    cookie = (await staffSession(app.db, app.config, world.companyId, 'OWNER')).cookie;
  }, dayWithRoomTimeout());

  const download = (type: string) =>
    fetchDocument(
      app,
      `/dashboard/api/reports?type=${type}&format=pdf&locale=en&fromDate=${addDays(day, -40)}&toDate=${day}`,
      { Cookie: cookie },
    );

  /** The document snapshot a PDF report was rendered from: what its table, totals and charts print. */
  const snapshotOf = async (file: FetchedDocument) => {
    expect(file.status, JSON.stringify(file.body)).toBe(200);
    const [row] = await app.db.query<{ data: ReportSnapshotData }>(
      `select s.data from report_exports e join document_snapshots s on s.id = e.snapshot_id where e.id = $1`,
      [file.headers.get('x-report-id')],
    );
    return row!.data;
  };

  /** A paid sale of 3 seats on route A's trip today, made now: 30,000 of revenue. */
  const sell = (sql: Pick<PoolClient, 'query'>) =>
    sql.query(
      `insert into bookings (booking_code, company_id, trip_id, passenger_id, passenger_name, passenger_phone,
                             seats_count, seat_numbers, status, payment_status, total_price, discount, created_at)
       values ($1, $2, $3, $4, 'Midway Buyer', '+963944000000', 3, array['31', '32', '33'], 'CONFIRMED', 'PAID',
               30000, 0, $5)`,
      [
        `BK-MID-${randomUUID().slice(0, 6)}`,
        world.companyId,
        world.trips.A0,
        world.customers[0],
        atDamascus(day, '12:00'),
      ],
    );

  /**
   * The PDF of `type`, while a sale commits between the read of its rows and that of its charts:
   * the statistics are locked until the charts' statement (`chartStatement`, SQL LIKE) waits on
   * them, then the sale is made and committed with the lock let go.
   */
  async function pdfWithSaleMidway(type: string, chartStatement: string) {
    const holder = await app.db.pool.connect();
    let open = false;
    try {
      await holder.query('begin');
      open = true;
      await holder.query('lock table booking_stats_daily in access exclusive mode');
      const file = download(type);
      await lockWaiters(app.db, chartStatement);
      await sell(holder);
      await holder.query('commit');
      open = false;
      return await snapshotOf(await file);
    } finally {
      if (open) await holder.query('rollback').catch(() => undefined);
      holder.release();
    }
  }

  it('bookings: revenue per day drawn is the revenue of the bookings the table lists, day by day', async () => {
    const pdf = await pdfWithSaleMidway('bookings', 'select s.day::text as key%');
    const tableRevenue = new Map<string, number>();
    for (const row of pdf.rows) {
      const sold =
        (SOLD_STATUSES as readonly unknown[]).includes(row.status) && row.paymentStatus !== 'REFUNDED';
      const date = String(row.createdAt).slice(0, 10);
      tableRevenue.set(date, (tableRevenue.get(date) ?? 0) + (sold ? Number(row.total) : 0));
    }
    const drawn = pdf.charts.revenuePerDay!.filter((bar) => bar.revenue !== 0);
    expect(Object.fromEntries(drawn.map((bar) => [bar.date, bar.revenue]))).toEqual(
      Object.fromEntries([...tableRevenue].filter(([, revenue]) => revenue !== 0)),
    );
    // The sale came after the snapshot: in neither part of this PDF, in both parts of the next.
    expect(pdf.rows.map((row) => row.passengerName)).not.toContain('Midway Buyer');
    const next = await snapshotOf(await download('bookings'));
    expect(next.rows.map((row) => row.passengerName)).toContain('Midway Buyer');
    const today = (data: ReportSnapshotData) =>
      data.charts.revenuePerDay!.find((bar) => bar.date === day)!.revenue;
    expect(today(next) - today(pdf)).toBe(30_000);
  });

  it('trips: seats sold per route drawn add up to the seats sold the table and its totals print', async () => {
    const pdf = await pdfWithSaleMidway('trips', 'select s.route_id::text as key%');
    const tableSold = new Map<string, number>();
    for (const row of pdf.rows) {
      const route = String(row.route);
      tableSold.set(route, (tableSold.get(route) ?? 0) + Number(row.seatsSold));
    }
    const chart = pdf.charts.occupancyPerRoute!;
    expect(Object.fromEntries(chart.map((bar) => [bar.route, bar.seatsSold]))).toEqual(
      Object.fromEntries(tableSold),
    );
    expect(chart.reduce((sum, bar) => sum + bar.seatsSold, 0)).toBe(pdf.totals!.seatsSold);
    const next = await snapshotOf(await download('trips'));
    expect(Number(next.totals!.seatsSold) - Number(pdf.totals!.seatsSold)).toBe(3);
    const routeA = (data: ReportSnapshotData) =>
      data.charts.occupancyPerRoute!.find((bar) => bar.route === world.routeA.nameEn)!.seatsSold;
    expect(routeA(next) - routeA(pdf)).toBe(3);
  });
});
