import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvStream } from '../../../api/use-cases/report-streams.js';
import { createLogger } from '../../../config/logger.js';
import { readCompanySettings } from '../../../db/queries/company-settings.js';
import { startExport } from '../../../db/writes/reports.js';
import { addDays } from '../../../domain/analytics.js';
import { REPORT_COLUMNS, REPORT_TYPES, type ReportRow, type ReportType } from '../../../domain/reports.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { createCompany } from '../../support/factories.js';
import { fetchDocument } from '../../support/documents.js';
import { parseCsv } from '../../support/csv.js';
import { useTestApp } from '../../support/harness.js';
import { namedDatabaseUrl, reportCursorConnections } from '../../support/named-connections.js';
import { BOOKINGS, insightWorld, type InsightWorld } from '../../support/insight.js';
import { staffSession } from '../../support/journey-rows.js';
import { pdfIsTagged, pdfLanguage, pdfPageCount, pdfPageSizesMm, pdfText } from '../../support/pdf.js';

type Session = Awaited<ReturnType<typeof staffSession>>;

/** Names a spreadsheet must show as written: Arabic, a comma and quotes, and one that looks like a formula. */
const ARABIC_NAME = 'ليلى الخطيب، "الكبرى", Jr';
const FORMULA_NAME = '=HYPERLINK("http://evil.example")';
const companyName = `Reports ${Date.now()}`;

/**
 * The day (Damascus) a describe's fixture was built on, which its tests read instead of the clock:
 * the fixture's bookings are dated relative to it. `pin` runs first in the describe's beforeAll
 * (with `dayWithRoomTimeout()`): it waits, near midnight (21:00 UTC), for the next day, so the
 * bookings a test makes now and the server's today fall on the pinned day too.
 */
function fixtureDays() {
  let day = '';
  return {
    pin: async () => {
      day = await dayWithRoom();
    },
    today: () => day,
    daysAgo: (days: number) => addDays(day, -days),
  };
}

describe('GET /dashboard/api/reports', () => {
  // Many downloads by one session in a minute: the per-user limit is not what this file tests.
  const app = useTestApp({ REPORT_RATE_LIMIT_PER_MINUTE: 10_000 });
  let world: InsightWorld;
  let owner: Session;
  const { pin, today, daysAgo } = fixtureDays();
  const period = () => `fromDate=${daysAgo(40)}&toDate=${today()}`;

  beforeAll(async () => {
    await pin();
    world = await insightWorld(app.db, {
      day: today(),
      companyName,
      bookings: BOOKINGS.map((spec) =>
        spec.key === 'b1'
          ? { ...spec, passengerName: ARABIC_NAME }
          : spec.key === 'b3'
            ? { ...spec, passengerName: FORMULA_NAME }
            : spec,
      ),
    });
    await app.db.query(
      `update companies set phone = '+963112223344', email = 'ops@example.sy' where id = $1`,
      [world.companyId],
    );
    owner = await staffSession(app.db, app.config, world.companyId, 'OWNER');
  }, dayWithRoomTimeout());

  const download = (query: string, session: Session = owner) =>
    fetchDocument(app, `/dashboard/api/reports?${query}`, { Cookie: session.cookie });

  const exportRow = (id: string | null) =>
    app.db.query<{
      state: string;
      row_count: number | null;
      sha256: string | null;
      size: string | null;
      error_code: string | null;
    }>(`select state, row_count, sha256, size, error_code from report_exports where id = $1`, [id]);

  const exportsOf = (companyId: string) =>
    app.db.query(
      `select id, state, type, format from report_exports where company_id = $1 order by created_at, id`,
      [companyId],
    );

  const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

  /** The value a spreadsheet shows for a JSON value (text that would run as a formula gets an apostrophe). */
  const shown = (value: string | number | null) =>
    value === null
      ? ''
      : typeof value === 'string' && /^[=+\-@\t\r]/.test(value)
        ? `'${value}`
        : String(value);

  for (const type of REPORT_TYPES) {
    for (const locale of ['ar', 'en'] as const) {
      it(`${type} (${locale}): the CSV opens with the BOM and reads back as the JSON's rows; the PDF prints them; all recorded ready`, async () => {
        const json = await download(`type=${type}&format=json&locale=${locale}&${period()}`);
        expect(json.status, JSON.stringify(json.body)).toBe(200);
        const report = JSON.parse(Buffer.from(json.bytes).toString('utf8')).data;
        expect(report).toMatchObject({
          type,
          locale,
          state: 'ready',
          currency: 'SYP',
          timeZone: 'Asia/Damascus',
        });
        expect(report.company.id).toBe(world.companyId);
        expect(report.rows.length).toBeGreaterThan(0);
        expect(report.rowCount).toBe(report.rows.length);
        expect(report.columns.map((column: { key: string }) => column.key)).toEqual(
          REPORT_COLUMNS[type].map((column) => column.key),
        );

        const csv = await download(`type=${type}&format=csv&locale=${locale}&${period()}`);
        expect(csv.status).toBe(200);
        expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        expect(csv.headers.get('content-disposition')).toContain(`report-${type}-`);
        expect([...csv.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
        const [header, ...lines] = parseCsv(Buffer.from(csv.bytes.slice(3)).toString('utf8'));
        expect(header).toEqual(REPORT_COLUMNS[type].map((column) => column.label[locale]));
        expect(lines).toEqual(
          report.rows.map((row: Record<string, string | number | null>) =>
            REPORT_COLUMNS[type].map((column) => shown(row[column.key] ?? null)),
          ),
        );

        const pdf = await download(`type=${type}&format=pdf&locale=${locale}&${period()}`);
        expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
        expect(pdfIsTagged(pdf.bytes)).toBe(true);
        expect(pdfPageSizesMm(pdf.bytes)[0]!.width).toBeCloseTo(297, 0);
        expect(pdfText(pdf.bytes)).toContain(REPORT_COLUMNS[type][0]!.label[locale]);

        for (const file of [json, csv, pdf]) {
          const [recorded] = await exportRow(file.headers.get('x-report-id'));
          expect(recorded).toMatchObject({
            state: 'ready',
            row_count: report.rows.length,
            sha256: sha(file.bytes),
          });
          expect(Number(recorded!.size)).toBe(file.bytes.byteLength);
        }
      });

      it(`${type} (${locale}): a period without data is a valid file in every format, state no_data`, async () => {
        const quiet = `type=${type}&locale=${locale}&fromDate=2020-01-01&toDate=2020-01-31`;
        const json = await download(`${quiet}&format=json`);
        expect(json.status).toBe(200);
        expect(JSON.parse(Buffer.from(json.bytes).toString('utf8')).data).toMatchObject({
          state: 'no_data',
          rows: [],
          rowCount: 0,
          totals: null,
        });
        const csv = await download(`${quiet}&format=csv`);
        expect(parseCsv(Buffer.from(csv.bytes.slice(3)).toString('utf8'))).toEqual([
          REPORT_COLUMNS[type].map((column) => column.label[locale]),
        ]);
        const pdf = await download(`${quiet}&format=pdf`);
        expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
        expect(pdfText(pdf.bytes)).toContain(
          locale === 'en' ? 'No data for this period.' : 'لا توجد بيانات لهذه الفترة',
        );
        for (const file of [json, csv, pdf]) {
          expect(file.headers.get('x-report-state')).toBe('no_data');
          const [recorded] = await exportRow(file.headers.get('x-report-id'));
          expect(recorded).toMatchObject({ state: 'no_data', row_count: 0, sha256: sha(file.bytes) });
        }
      });
    }
  }

  it('revenue: figures per booking day as counted by hand, and their totals', async () => {
    const response = await download(
      `type=revenue&format=json&locale=en&fromDate=${daysAgo(14)}&toDate=${today()}`,
    );
    const { rows, totals } = JSON.parse(Buffer.from(response.bytes).toString('utf8')).data;
    const day = (date: string, v: number[]) => ({
      date,
      bookings: v[0],
      soldBookings: v[1],
      seatsSold: v[2],
      grossSales: v[3],
      discounts: v[4],
      netRevenue: v[5],
      cancelled: v[6],
      collected: 0,
      refunded: 0,
    });
    expect(rows).toEqual([
      day(daysAgo(12), [1, 0, 0, 0, 0, 0, 1]),
      day(daysAgo(10), [1, 1, 2, 16_000, 0, 16_000, 0]),
      day(daysAgo(5), [1, 1, 3, 30_000, 3_000, 27_000, 0]),
      day(daysAgo(3), [1, 1, 1, 10_000, 0, 10_000, 0]),
      day(daysAgo(2), [1, 0, 0, 0, 0, 0, 0]),
      day(daysAgo(1), [1, 1, 1, 10_000, 0, 10_000, 0]),
      day(today(), [2, 1, 2, 20_000, 2_000, 18_000, 1]),
    ]);
    expect(totals).toEqual({ ...day('', [8, 5, 9, 86_000, 5_000, 81_000, 2]), date: null });
  });

  it('occupancy: seats sold of the seats offered per route, cancelled trips apart', async () => {
    const response = await download(`type=occupancy&format=json&locale=en&${period()}`);
    const { rows, totals } = JSON.parse(Buffer.from(response.bytes).toString('utf8')).data;
    const byRoute = Object.fromEntries(rows.map((row: { route: string }) => [row.route, row]));
    expect(byRoute[world.routeA.nameEn]).toEqual({
      route: world.routeA.nameEn,
      trips: 3,
      cancelledTrips: 1,
      seatsOffered: 120,
      seatsSold: 7,
      occupancyPercent: 5.8,
    });
    expect(byRoute[world.routeB.nameEn]).toMatchObject({
      trips: 2,
      seatsOffered: 40,
      seatsSold: 3,
      occupancyPercent: 7.5,
    });
    expect(totals).toMatchObject({ trips: 5, seatsOffered: 160, seatsSold: 10, occupancyPercent: 6.3 });
  });

  it("trips: a cancelled trip offers no seats, so the totals give the occupancy report's occupancy", async () => {
    const json = async (type: ReportType) =>
      JSON.parse(
        Buffer.from((await download(`type=${type}&format=json&locale=en&${period()}`)).bytes).toString(
          'utf8',
        ),
      ).data;
    const trips = await json('trips');
    const occupancy = await json('occupancy');
    const cancelled = trips.rows.filter((row: { status: string }) => row.status === 'CANCELLED');
    expect(cancelled.map((row: ReportRow) => [row.seatsTotal, row.occupancyPercent])).toEqual([[0, 0]]);
    expect(trips.totals).toMatchObject({
      seatsTotal: occupancy.totals.seatsOffered,
      seatsSold: occupancy.totals.seatsSold,
      occupancyPercent: occupancy.totals.occupancyPercent,
    });
    expect(trips.totals).toMatchObject({ seatsTotal: 160, seatsSold: 10, occupancyPercent: 6.3 });
  });

  it('bookings (ar): Arabic names and route names survive the CSV; a formula-like name is defused', async () => {
    const csv = await download(`type=bookings&format=csv&locale=ar&${period()}`);
    const lines = parseCsv(Buffer.from(csv.bytes.slice(3)).toString('utf8'));
    const passenger = REPORT_COLUMNS.bookings.findIndex((column) => column.key === 'passengerName');
    const route = REPORT_COLUMNS.bookings.findIndex((column) => column.key === 'route');
    expect(lines.map((line) => line[passenger])).toContain(ARABIC_NAME);
    expect(lines.map((line) => line[passenger])).toContain(`'${FORMULA_NAME}`);
    expect(lines.map((line) => line[route])).toContain(`خط ${world.routeA.nameEn}`);
    expect(lines).toHaveLength(1 + BOOKINGS.length);
  });

  for (const locale of ['en', 'ar'] as const) {
    it(`revenue PDF (${locale}): landscape A4, tagged, company identity, both charts, checksum recorded`, async () => {
      const pdf = await download(`type=revenue&format=pdf&locale=${locale}&${period()}`);
      expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      expect(pdfIsTagged(pdf.bytes)).toBe(true);
      expect(pdfLanguage(pdf.bytes)).toBe(locale);
      for (const size of pdfPageSizesMm(pdf.bytes)) {
        expect(size.width).toBeCloseTo(297, 0);
        expect(size.height).toBeCloseTo(210, 0);
      }
      const text = pdfText(pdf.bytes);
      // The company in both languages (text extraction orders mixed Arabic and Latin its own way).
      expect(text).toContain(companyName);
      expect(text).toContain('شركة');
      expect(text).toContain('+963112223344');
      expect(text).toContain(locale === 'en' ? 'Net revenue per day' : 'صافي الإيراد اليومي');
      expect(text).toContain(locale === 'en' ? 'Occupancy per route' : 'نسبة الإشغال لكل خط');
      expect(text).toContain('7.5%'); // route B's bar
      expect(text).toContain('89,000'); // the net revenue total
      const [recorded] = await exportRow(pdf.headers.get('x-report-id'));
      expect(recorded).toMatchObject({ state: 'ready', sha256: sha(pdf.bytes), row_count: 8 });
      expect(pdf.headers.get('content-digest')).toBe(
        `sha-256=:${Buffer.from(sha(pdf.bytes), 'hex').toString('base64')}:`,
      );
    });
  }

  describe('a long report', () => {
    let busy: InsightWorld;
    let accountant: Session;

    beforeAll(async () => {
      busy = await insightWorld(app.db, { day: today(), companyName: `Busy ${Date.now()}`, bookings: [] });
      // 120 bookings over the last 30 days: enough rows for several landscape pages.
      await app.db.query(
        `insert into bookings (booking_code, company_id, trip_id, passenger_id, passenger_name, passenger_phone,
                               seats_count, seat_numbers, status, payment_status, total_price, discount, created_at)
         select 'BK-LONG-' || n || '-' || substr(md5(random()::text), 1, 6), $1, $2, $3, 'Passenger ' || n,
                '+963944000000', 1, array[(n % 40 + 1)::text], 'CONFIRMED', 'PAID', 10000, 0,
                now() - (n || ' hours')::interval
           from generate_series(1, 120) n`,
        [busy.companyId, busy.trips.A0, busy.customers[0]],
      );
      accountant = await staffSession(app.db, app.config, busy.companyId, 'ACCOUNTANT');
    });

    it('prints the table header again at the top of page 2 and the page numbers in the footer', async () => {
      const pdf = await download(
        `type=bookings&format=pdf&locale=en&fromDate=${daysAgo(30)}&toDate=${today()}`,
        accountant,
      );
      expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
      const pages = pdfText(pdf.bytes).split('\f');
      expect(pdfPageCount(pdf.bytes)).toBeGreaterThanOrEqual(3);
      for (const [index, page] of pages.entries()) {
        expect(page).toContain('Booking code');
        expect(page).toContain('Passenger');
        expect(page).toContain(`Page ${index + 1} of ${pages.length}`);
        expect(page).toContain(`Busy`);
      }
      expect(pages.join('')).toContain('Passenger 120');
      const [recorded] = await exportRow(pdf.headers.get('x-report-id'));
      expect(recorded).toMatchObject({ state: 'ready', row_count: 120 });
    });

    it('refuses a PDF longer than 2,000 rows (422, recorded export_failed) yet streams it as CSV', async () => {
      await app.db.query(
        `insert into bookings (booking_code, company_id, trip_id, passenger_id, passenger_name, passenger_phone,
                               seats_count, seat_numbers, status, payment_status, total_price, discount, created_at)
         select 'BK-MANY-' || n || '-' || substr(md5(random()::text), 1, 6), $1, $2, $3, 'Passenger ' || n,
                '+963944000000', 1, array['1'], 'CONFIRMED', 'PAID', 10000, 0, now() - interval '40 days'
           from generate_series(1, 2000) n`,
        [busy.companyId, busy.trips.B40, busy.customers[1]],
      );
      const query = `type=bookings&locale=en&fromDate=${daysAgo(41)}&toDate=${today()}`;
      const pdf = await download(`${query}&format=pdf`, accountant);
      expect(pdf.status).toBe(422);
      expect(pdf.body).toMatchObject({ errorCode: 'REPORT_TOO_LARGE_FOR_PDF', state: 'export_failed' });
      const [failed] = await exportRow((pdf.body as unknown as { reportId: string }).reportId);
      expect(failed).toMatchObject({
        state: 'export_failed',
        error_code: 'REPORT_TOO_LARGE_FOR_PDF',
        sha256: null,
      });

      const csv = await download(`${query}&format=csv`, accountant);
      expect(csv.status).toBe(200);
      expect(parseCsv(Buffer.from(csv.bytes.slice(3)).toString('utf8'))).toHaveLength(1 + 2120);
      const [recorded] = await exportRow(csv.headers.get('x-report-id'));
      expect(recorded).toMatchObject({ state: 'ready', row_count: 2120, sha256: sha(csv.bytes) });
    });
  });

  it('a stream cut short by a failing cursor is recorded export_failed, never ready', async () => {
    const request = {
      companyId: world.companyId,
      requestedBy: owner.staffUserId,
      type: 'bookings' as const,
      format: 'csv' as const,
      locale: 'en' as const,
      from: daysAgo(1),
      to: today(),
      requestId: 'test-stream-failure',
    };
    const exportId = await startExport(app.db, request);
    async function* failing(): AsyncGenerator<ReportRow[]> {
      yield [{ bookingCode: 'BK-1' }];
      throw new Error('connection lost');
    }
    const rows = failing();
    const company = await readCompanySettings(app.db, world.companyId);
    const logged: Record<string, any>[] = [];
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', {
      write: (line: string) => void logged.push(JSON.parse(line)),
    });
    const stream = csvStream(
      { db: app.db, logger },
      {
        ...request,
        exportId,
        company,
        columns: REPORT_COLUMNS[request.type],
        first: await rows.next(),
        rows,
      },
    );
    await expect(stream.toArray()).rejects.toThrow('connection lost');
    expect((await exportRow(exportId))[0]).toMatchObject({
      state: 'export_failed',
      error_code: 'REPORT_STREAM_INTERRUPTED',
      sha256: null,
      row_count: null,
    });
    // The cause reaches the log, with the request id of the download it cut short.
    expect(
      logged.map((line) => ({
        msg: line.msg,
        requestId: line.requestId,
        exportId: line.exportId,
        err: line.err?.message,
      })),
    ).toEqual([
      {
        msg: 'report stream stopped before its end',
        requestId: 'test-stream-failure',
        exportId,
        err: 'connection lost',
      },
    ]);
  });

  it('a PDF whose render cannot be recorded is 500 REPORT_EXPORT_FAILED, recorded export_failed, no bytes sent', async () => {
    const failing = await insightWorld(app.db, { day: today(), companyName: `Failing ${Date.now()}` });
    const session = await staffSession(app.db, app.config, failing.companyId, 'OWNER');
    // The render log refuses this company's report renders (and only these: tests share the database).
    const name = `refuse_report_${randomUUID().replace(/-/g, '')}`;
    await app.db.query(`create function ${name}() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from document_snapshots where id = new.snapshot_id and kind = 'REPORT'
                      and company_id = '${failing.companyId}') then
          raise exception 'render log unavailable';
        end if;
        return new;
      end $$`);
    await app.db.query(
      `create trigger ${name} before insert on document_renders for each row execute function ${name}()`,
    );
    try {
      const response = await download(`type=trips&format=pdf&locale=en&${period()}`, session);
      expect([response.status, response.body?.errorCode]).toEqual([500, 'REPORT_EXPORT_FAILED']);
      expect(response.headers.get('content-type')).not.toContain('pdf');
      const [recorded] = await app.db.query(
        `select state, error_code, sha256 from report_exports where company_id = $1`,
        [failing.companyId],
      );
      expect(recorded).toEqual({ state: 'export_failed', error_code: 'REPORT_RENDER_FAILED', sha256: null });
    } finally {
      await app.db.query(`drop trigger ${name} on document_renders`);
      await app.db.query(`drop function ${name}()`);
    }
  });

  describe('who may export what', () => {
    const cases: [role: string, type: ReportType, allowed: boolean][] = [
      ['ADMIN', 'revenue', true],
      ['ACCOUNTANT', 'revenue', true],
      ['DISPATCHER', 'revenue', false],
      ['DISPATCHER', 'trips', true],
      ['DISPATCHER', 'occupancy', true],
      ['STAFF', 'bookings', false],
      ['STAFF', 'occupancy', false],
      ['DRIVER', 'trips', false],
    ];
    /** What the test name promises: a refusal is 403 and recorded, except a DRIVER's (401, nothing recorded). */
    const outcome = (role: string, allowed: boolean) =>
      allowed
        ? ''
        : role === 'DRIVER'
          ? " (401: a driver's session opens no dashboard; no report_exports row)"
          : ' (403 REPORT_UNAUTHORIZED, recorded unauthorized)';
    for (const [role, type, allowed] of cases) {
      it(`${role} ${allowed ? 'gets' : 'is refused'} the ${type} report${outcome(role, allowed)}`, async () => {
        const session = await staffSession(app.db, app.config, world.companyId, role as never);
        const before = await exportsOf(world.companyId);
        const response = await download(`type=${type}&format=json&locale=en&${period()}`, session);
        if (allowed) {
          expect(response.status).toBe(200);
          return;
        }
        if (role === 'DRIVER') {
          // A driver is no office staff: the dashboard's session guard refuses them before any
          // report is named, so no export is recorded.
          expect(response.status).toBe(401);
          expect(await exportsOf(world.companyId)).toEqual(before);
          return;
        }
        expect(response.status).toBe(403);
        expect(response.body).toMatchObject({ errorCode: 'REPORT_UNAUTHORIZED', state: 'unauthorized' });
        const [recorded] = await exportRow((response.body as unknown as { reportId: string }).reportId);
        expect(recorded).toMatchObject({
          state: 'unauthorized',
          error_code: 'REPORT_UNAUTHORIZED',
          row_count: null,
        });
      });
    }

    describe('the role before the input: 403 REPORT_UNAUTHORIZED whatever the query says', () => {
      const refused: [role: 'DISPATCHER' | 'STAFF', query: string, recorded: boolean][] = [
        ['DISPATCHER', 'type=revenue&format=csv&fromDate=2024-01-01&toDate=2026-01-31', true],
        ['DISPATCHER', 'type=revenue&format=csv&fromDate=2026-02-01&toDate=2026-01-31', false],
        ['STAFF', 'type=bookings&format=json&fromDate=2024-01-01&toDate=2026-01-31', true],
        ['STAFF', 'type=bookings&format=json&fromDate=2026-02-01&toDate=2026-01-31', false],
        ['STAFF', 'format=csv&fromDate=2026-01-01&toDate=2026-01-31', false],
        ['STAFF', 'type=trips&format=xlsx&fromDate=2026-01-01&toDate=2026-01-31', false],
        ['STAFF', 'type=trips&format=csv&fromDate=2026-01-01&toDate=2026-01-31&companyId=x', false],
      ];
      for (const [role, query, recorded] of refused) {
        it(`${role} ${query} → 403${recorded ? ', recorded unauthorized' : ', nothing recorded (no report named)'}`, async () => {
          const session = await staffSession(app.db, app.config, world.companyId, role);
          const before = await exportsOf(world.companyId);
          const response = await download(query, session);
          const body = response.body as unknown as { errorCode: string; state: string; reportId?: string };
          expect([response.status, body.errorCode, body.state]).toEqual([
            403,
            'REPORT_UNAUTHORIZED',
            'unauthorized',
          ]);
          const after = await exportsOf(world.companyId);
          if (!recorded) {
            expect(after).toEqual(before);
            return;
          }
          const reportId = body.reportId;
          expect(after.filter((row) => !before.some((old) => old.id === row.id))).toEqual([
            expect.objectContaining({ id: reportId, state: 'unauthorized' }),
          ]);
          expect(
            await app.db.query(
              `select from_date::text, to_date::text, error_code from report_exports where id = $1`,
              [reportId],
            ),
          ).toEqual([{ from_date: '2024-01-01', to_date: '2026-01-31', error_code: 'REPORT_UNAUTHORIZED' }]);
        });
      }
    });

    it('a DISPATCHER gets the bookings PDF without the revenue chart an ACCOUNTANT sees on it', async () => {
      const query = `type=bookings&format=pdf&locale=en&${period()}`;
      const chartOf = async (role: 'DISPATCHER' | 'ACCOUNTANT') => {
        const session = await staffSession(app.db, app.config, world.companyId, role);
        const pdf = await download(query, session);
        expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
        return pdfText(pdf.bytes).includes('Net revenue per day');
      };
      expect({ DISPATCHER: await chartOf('DISPATCHER'), ACCOUNTANT: await chartOf('ACCOUNTANT') }).toEqual({
        DISPATCHER: false,
        ACCOUNTANT: true,
      });
    });

    it('a suspended company still reads its own reports', async () => {
      const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
      const session = await staffSession(app.db, app.config, suspended.id, 'OWNER');
      const response = await download(`type=occupancy&format=csv&locale=en&${period()}`, session);
      expect([response.status, response.headers.get('x-report-state')]).toEqual([200, 'no_data']);
    });

    it('answers 401 without a session', async () => {
      const response = await fetchDocument(
        app,
        `/dashboard/api/reports?type=trips&format=csv&${period()}`,
        {},
      );
      expect(response.status).toBe(401);
    });

    it("reports only the session's company: another company's owner sees none of these rows", async () => {
      const other = await createCompany(app.db);
      const stranger = await staffSession(app.db, app.config, other.id, 'OWNER');
      const response = await download(`type=bookings&format=json&locale=en&${period()}`, stranger);
      expect(JSON.parse(Buffer.from(response.bytes).toString('utf8')).data).toMatchObject({
        state: 'no_data',
        rows: [],
        company: { id: other.id },
      });
    });
  });

  describe('bad input is a 400 and records nothing', () => {
    const bad: [query: string, errorCode: string][] = [
      ['type=profit&format=csv&fromDate=2026-01-01&toDate=2026-01-31', 'VALIDATION_FAILED'],
      ['type=trips&format=xlsx&fromDate=2026-01-01&toDate=2026-01-31', 'VALIDATION_FAILED'],
      ['type=trips&format=csv&locale=fr&fromDate=2026-01-01&toDate=2026-01-31', 'VALIDATION_FAILED'],
      ['type=trips&format=csv&fromDate=2026-02-30&toDate=2026-03-31', 'VALIDATION_FAILED'],
      // A year 0 exists for JavaScript dates, not for PostgreSQL's.
      ['type=trips&format=csv&fromDate=0000-01-01&toDate=0000-01-01', 'VALIDATION_FAILED'],
      ['type=trips&format=csv&fromDate=2026-01-01', 'VALIDATION_FAILED'],
      ['type=trips&format=csv&fromDate=2026-01-01&toDate=2026-01-31&companyId=x', 'VALIDATION_FAILED'],
      ['type=trips&format=csv&fromDate=2026-02-01&toDate=2026-01-31', 'REPORT_PERIOD_INVALID'],
      ['type=trips&format=csv&fromDate=2025-01-01&toDate=2026-01-31', 'REPORT_PERIOD_TOO_LONG'],
    ];
    for (const [query, errorCode] of bad) {
      it(`${query} → ${errorCode}`, async () => {
        const before = await exportsOf(world.companyId);
        const response = await download(query);
        expect(response.status).toBe(400);
        expect(response.body?.errorCode).toBe(errorCode);
        expect(await exportsOf(world.companyId)).toEqual(before);
      });
    }
  });
});

/**
 * A CSV or JSON report holds a pooled connection (a REPEATABLE READ transaction and its cursor)
 * from its first rows on. Koa ends a GET whose client left while those rows were read without
 * reading the stream: the connection must still go back and the export be recorded cut short,
 * never left pending. A HEAD (the router answers HEAD with every GET) would be such a stream; it
 * is refused before any export is made.
 */
describe('GET /dashboard/api/reports: a stream nobody reads', () => {
  const POOL_MAX = 4;
  const APPLICATION_NAME = `reports-unread-test-${process.pid}`;
  const app = useTestApp({
    REPORT_RATE_LIMIT_PER_MINUTE: 10_000,
    DATABASE_POOL_MAX: POOL_MAX,
    DATABASE_URL: namedDatabaseUrl(APPLICATION_NAME),
  });
  let world: InsightWorld;
  let owner: Session;
  let inspector: pg.Client;
  const { pin, today, daysAgo } = fixtureDays();
  const period = () => `fromDate=${daysAgo(40)}&toDate=${today()}`;

  beforeAll(async () => {
    await pin();
    world = await insightWorld(app.db, { day: today() });
    owner = await staffSession(app.db, app.config, world.companyId, 'OWNER');
    inspector = new pg.Client({ connectionString: app.config.DATABASE_URL });
    await inspector.connect();
  }, dayWithRoomTimeout());

  afterAll(async () => {
    await inspector.end();
  });

  /** This API's connections left idle inside a report's transaction, its cursor open. */
  const stuckConnections = () => reportCursorConnections(inspector, APPLICATION_NAME);

  const head = (query: string, timeout: number) =>
    fetch(`${app.baseUrl}/dashboard/api/reports?${query}`, {
      method: 'HEAD',
      headers: { Cookie: owner.cookie },
      signal: AbortSignal.timeout(timeout),
    });

  it('a HEAD of a CSV report is 405 (Allow: GET): no export made or recorded, no connection held', async () => {
    const exports = () =>
      inspector.query(`select id from report_exports where company_id = $1`, [world.companyId]);
    const before = (await exports()).rows;
    const answer = await head(`type=bookings&format=csv&locale=en&${period()}`, 10_000);
    expect([answer.status, answer.headers.get('allow'), answer.headers.get('x-report-id')]).toEqual([
      405,
      'GET',
      null,
    ]);
    expect({ exports: (await exports()).rows, stuckConnections: await stuckConnections() }).toEqual({
      exports: before,
      stuckConnections: 0,
    });
  });

  it(`${POOL_MAX} HEADs of a JSON report do not leave the API without database connections`, async () => {
    // A HEAD that cannot get a connection waits for one: each is bounded.
    for (let index = 0; index < POOL_MAX; index += 1) {
      await head(`type=trips&format=json&locale=ar&${period()}`, 3_000).catch(() => undefined);
    }
    // Any other read of the dashboard must still answer.
    const started = Date.now();
    const outcome = await fetch(`${app.baseUrl}/dashboard/api/team`, {
      headers: { Cookie: owner.cookie },
      signal: AbortSignal.timeout(8_000),
    }).then(
      (response) => `status ${response.status}`,
      (error: Error) => `${error.name} after ${Date.now() - started} ms`,
    );
    expect(outcome).toBe('status 200');
  });

  it('a CSV download whose client left before the first byte is recorded export_failed and gives its connection back', async () => {
    const aborting = await insightWorld(app.db, { day: today(), companyName: `Aborting ${Date.now()}` });
    const session = await staffSession(app.db, app.config, aborting.companyId, 'OWNER');
    // The lock holds the report's first rows back until the client has given up.
    await inspector.query('begin');
    await inspector.query('lock table routes in access exclusive mode');
    const aborted = await fetch(
      `${app.baseUrl}/dashboard/api/reports?type=bookings&format=csv&locale=en&${period()}`,
      { headers: { Cookie: session.cookie }, signal: AbortSignal.timeout(1_500) },
    ).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    expect(aborted).toBe('TimeoutError');
    await inspector.query('commit');
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const { rows: recorded } = await inspector.query(
      `select state from report_exports where company_id = $1 and format = 'csv'`,
      [aborting.companyId],
    );
    expect({
      states: recorded.map((row) => row.state),
      stuckConnections: await stuckConnections(),
    }).toEqual({
      states: ['export_failed'],
      stuckConnections: 0,
    });
  });
});
