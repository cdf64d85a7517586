import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../domain/analytics.js';
import { REPORT_COLUMNS, type ReportRow, type ReportSnapshotData } from '../../../domain/reports.js';
import { parseCsv } from '../../support/csv.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { fetchDocument, type FetchedDocument } from '../../support/documents.js';
import { useTestApp } from '../../support/harness.js';
import { insightWorld, type InsightWorld } from '../../support/insight.js';
import { staffSession } from '../../support/journey-rows.js';
import { pdfText } from '../../support/pdf.js';

/**
 * README "Reports": the revenue report is for OWNER, ADMIN and ACCOUNTANT; a DISPATCHER also gets
 * the bookings report, but not what the bookings were worth. Its bookings report leaves the money
 * columns (subtotal, discount, total) out of every format, the rows otherwise the same, and the
 * export recorded as any other; the finance roles get every column as before.
 */
const MONEY_KEYS = ['subtotal', 'discount', 'total'];
const ALL_KEYS = REPORT_COLUMNS.bookings.map((column) => column.key);
const DISPATCHER_KEYS = ALL_KEYS.filter((key) => !MONEY_KEYS.includes(key));
const labelsOf = (keys: string[]) =>
  keys.map((key) => REPORT_COLUMNS.bookings.find((column) => column.key === key)!.label.en);

type Role = 'OWNER' | 'ADMIN' | 'ACCOUNTANT' | 'DISPATCHER';

describe('GET /dashboard/api/reports: the bookings report without money for a DISPATCHER', () => {
  const app = useTestApp({ REPORT_RATE_LIMIT_PER_MINUTE: 10_000 });
  let world: InsightWorld;
  let day = '';
  const cookies = {} as Record<Role, string>;
  const period = () => `fromDate=${addDays(day, -40)}&toDate=${day}`;

  beforeAll(async () => {
    day = await dayWithRoom();
    world = await insightWorld(app.db, { day, companyName: `Dispatcher money ${Date.now()}` });
    for (const role of ['OWNER', 'ADMIN', 'ACCOUNTANT', 'DISPATCHER'] as const) {
      cookies[role] = (await staffSession(app.db, app.config, world.companyId, role)).cookie;
    }
  }, dayWithRoomTimeout());

  const download = async (role: Role, format: 'csv' | 'json' | 'pdf', type = 'bookings') => {
    const file = await fetchDocument(
      app,
      `/dashboard/api/reports?type=${type}&format=${format}&locale=en&${period()}`,
      { Cookie: cookies[role] },
    );
    expect(file.status, JSON.stringify(file.body)).toBe(200);
    return file;
  };
  const jsonOf = (file: FetchedDocument) => JSON.parse(Buffer.from(file.bytes).toString('utf8')).data;
  const csvOf = (file: FetchedDocument) => parseCsv(Buffer.from(file.bytes.slice(3)).toString('utf8'));
  const only = (keys: string[], row: ReportRow) => Object.fromEntries(keys.map((key) => [key, row[key]]));

  /** The export as recorded, and whether it records this file (ready, its row count and checksum). */
  const recorded = async (file: FetchedDocument) => {
    const [row] = await app.db.query<{ state: string; row_count: number; sha256: string; size: string }>(
      `select state, row_count, sha256, size from report_exports where id = $1`,
      [file.headers.get('x-report-id')],
    );
    return {
      state: row!.state,
      rowCount: row!.row_count,
      sameFile: row!.sha256 === createHash('sha256').update(file.bytes).digest('hex'),
      size: Number(row!.size) === file.bytes.byteLength,
    };
  };

  /** The document snapshot a PDF report was rendered from. */
  const snapshotOf = async (file: FetchedDocument) => {
    const [row] = await app.db.query<{ data: ReportSnapshotData }>(
      `select s.data from report_exports e join document_snapshots s on s.id = e.snapshot_id where e.id = $1`,
      [file.headers.get('x-report-id')],
    );
    return row!.data;
  };

  it('OWNER, ADMIN and ACCOUNTANT get every column, money included, in CSV and JSON', async () => {
    const owner = jsonOf(await download('OWNER', 'json'));
    expect(owner.columns.map((column: { key: string }) => column.key)).toEqual(ALL_KEYS);
    expect(owner.rows.length).toBeGreaterThan(0);
    for (const row of owner.rows) expect(Object.keys(row)).toEqual(ALL_KEYS);
    expect(Object.keys(owner.totals)).toEqual(ALL_KEYS);
    expect(owner.totals.total).toBeGreaterThan(0);
    const ownerCsv = csvOf(await download('OWNER', 'csv'));
    expect(ownerCsv[0]).toEqual(labelsOf(ALL_KEYS));
    for (const role of ['ADMIN', 'ACCOUNTANT'] as const) {
      const json = jsonOf(await download(role, 'json'));
      expect({ columns: json.columns, rows: json.rows, totals: json.totals }).toEqual({
        columns: owner.columns,
        rows: owner.rows,
        totals: owner.totals,
      });
      expect(csvOf(await download(role, 'csv'))).toEqual(ownerCsv);
    }
  });

  it("a DISPATCHER's JSON and CSV have the same bookings without subtotal, discount or total, recorded ready", async () => {
    const owner = jsonOf(await download('OWNER', 'json'));
    const jsonFile = await download('DISPATCHER', 'json');
    const json = jsonOf(jsonFile);
    expect(json.columns.map((column: { key: string }) => column.key)).toEqual(DISPATCHER_KEYS);
    expect(json.rows).toEqual(owner.rows.map((row: ReportRow) => only(DISPATCHER_KEYS, row)));
    expect(Object.keys(json.totals)).toEqual(DISPATCHER_KEYS);
    expect(json.rowCount).toBe(owner.rowCount);

    const csvFile = await download('DISPATCHER', 'csv');
    const [header, ...lines] = csvOf(csvFile);
    expect(header).toEqual(labelsOf(DISPATCHER_KEYS));
    expect(lines).toEqual(
      json.rows.map((row: ReportRow) =>
        DISPATCHER_KEYS.map((key) => (row[key] === null ? '' : String(row[key]))),
      ),
    );
    for (const file of [jsonFile, csvFile]) {
      expect(await recorded(file)).toEqual({
        state: 'ready',
        rowCount: owner.rowCount,
        sameFile: true,
        size: true,
      });
    }
  });

  it("a DISPATCHER's PDF prints no money column or total; an OWNER's still does", async () => {
    const ownerFile = await download('OWNER', 'pdf');
    const dispatcherFile = await download('DISPATCHER', 'pdf');
    const owner = await snapshotOf(ownerFile);
    const dispatcher = await snapshotOf(dispatcherFile);
    expect(owner.columns.map((column) => column.key)).toEqual(ALL_KEYS);
    expect(dispatcher.columns.map((column) => column.key)).toEqual(DISPATCHER_KEYS);
    expect(dispatcher.rows).toEqual(owner.rows.map((row) => only(DISPATCHER_KEYS, row)));
    expect(dispatcher.totals).toEqual(only(DISPATCHER_KEYS, owner.totals!));

    // The money total as the PDF prints it (en): on the owner's page only.
    const total = Number(owner.totals!.total).toLocaleString('en-US');
    const ownerText = pdfText(ownerFile.bytes);
    const dispatcherText = pdfText(dispatcherFile.bytes);
    expect({ subtotal: ownerText.includes('Subtotal'), total: ownerText.includes(total) }).toEqual({
      subtotal: true,
      total: true,
    });
    expect({
      subtotal: dispatcherText.includes('Subtotal'),
      discount: dispatcherText.includes('Discount'),
      total: dispatcherText.includes(total),
    }).toEqual({ subtotal: false, discount: false, total: false });
    for (const file of [ownerFile, dispatcherFile]) {
      expect(await recorded(file)).toEqual({
        state: 'ready',
        rowCount: owner.report.row_count,
        sameFile: true,
        size: true,
      });
    }
  });

  it('trips and occupancy carry no money: a DISPATCHER gets every column of them, as an OWNER does', async () => {
    for (const type of ['trips', 'occupancy'] as const) {
      const keys = REPORT_COLUMNS[type].map((column) => column.key);
      expect(REPORT_COLUMNS[type].some((column) => column.kind === 'money')).toBe(false);
      const dispatcher = jsonOf(await download('DISPATCHER', 'json', type));
      const owner = jsonOf(await download('OWNER', 'json', type));
      expect(dispatcher.columns.map((column: { key: string }) => column.key)).toEqual(keys);
      expect(dispatcher.rows).toEqual(owner.rows);
    }
  });
});
