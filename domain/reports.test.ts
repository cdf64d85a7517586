import { describe, expect, it } from 'vitest';
import {
  csvLine,
  mayExport,
  nextReportState,
  periodRefusal,
  REPORT_COLUMNS,
  REPORT_TRANSITIONS,
  ReportTotals,
} from './reports.js';

describe('report rules', () => {
  it('moves a request through its states as the table says, and nowhere else', () => {
    expect(nextReportState('new', 'refused')).toBe('unauthorized');
    expect(nextReportState('new', 'tooLarge')).toBe('export_failed');
    expect(nextReportState('new', 'accepted')).toBe('pending');
    expect(nextReportState('pending', 'completed', 3)).toBe('ready');
    expect(nextReportState('pending', 'completed', 0)).toBe('no_data');
    expect(nextReportState('pending', 'failed')).toBe('export_failed');
    for (const final of ['ready', 'no_data', 'unauthorized', 'export_failed'] as const) {
      expect(REPORT_TRANSITIONS[final]).toEqual({});
      expect(() => nextReportState(final, 'completed', 1)).toThrow();
    }
  });

  it('lets finance roles export revenue and dispatchers the operational reports; staff nothing', () => {
    expect(['OWNER', 'ADMIN', 'ACCOUNTANT'].every((role) => mayExport(role, 'revenue'))).toBe(true);
    expect(mayExport('DISPATCHER', 'revenue')).toBe(false);
    expect(mayExport('DISPATCHER', 'occupancy')).toBe(true);
    expect(
      (['revenue', 'bookings', 'trips', 'occupancy'] as const).some((type) => mayExport('STAFF', type)),
    ).toBe(false);
  });

  it('accepts a forward period of at most 366 days', () => {
    expect(periodRefusal('2026-01-01', '2026-01-01')).toBeNull();
    expect(periodRefusal('2024-01-01', '2024-12-31')).toBeNull();
    expect(periodRefusal('2026-01-02', '2026-01-01')?.code).toBe('REPORT_PERIOD_INVALID');
    expect(periodRefusal('2025-01-01', '2026-01-02')?.code).toBe('REPORT_PERIOD_TOO_LONG');
  });

  it('writes CSV lines as RFC 4180 says and defuses spreadsheet formulas', () => {
    expect(csvLine(['a', 1, null, 'x,y', 'say "hi"', 'دمشق ← حلب'])).toBe(
      'a,1,,"x,y","say ""hi""",دمشق ← حلب\r\n',
    );
    expect(csvLine(['=HYPERLINK("x")', '+1', '-2', '@me', -5])).toBe(
      '"\'=HYPERLINK(""x"")",\'+1,\'-2,\'@me,-5\r\n',
    );
    // A spreadsheet whose list separator is ';' splits unquoted text there, and the part after it
    // would start a cell of its own: a name holding ';' is quoted, one cell whatever the separator.
    expect(csvLine(['Ali;=HYPERLINK("x")', 'a;b'])).toBe('"Ali;=HYPERLINK(""x"")","a;b"\r\n');
  });

  it('totals the summed columns and recomputes occupancy from its parts', () => {
    const totals = new ReportTotals('occupancy');
    totals.add({
      route: 'A',
      trips: 2,
      cancelledTrips: 0,
      seatsOffered: 100,
      seatsSold: 50,
      occupancyPercent: 50,
    });
    totals.add({
      route: 'B',
      trips: 1,
      cancelledTrips: 1,
      seatsOffered: 50,
      seatsSold: 10,
      occupancyPercent: 20,
    });
    expect(totals.rowCount).toBe(2);
    expect(totals.row()).toEqual({
      route: null,
      trips: 3,
      cancelledTrips: 1,
      seatsOffered: 150,
      seatsSold: 60,
      occupancyPercent: 40,
    });
    expect(REPORT_COLUMNS.trips.find((column) => column.key === 'delayMinutes')?.summed).toBe(false);
  });

  it('totals whole-trip seats sold by stretches exactly, as their rows print them, and never fills a bus twice', () => {
    const totals = new ReportTotals('trips');
    const trip = { date: '2026-12-01', route: 'A', bus: 'B-1', status: 'SCHEDULED', seatsTotal: 8 };
    // Three trips, seats sold by stretches: fractions of a whole-trip seat.
    totals.add({ ...trip, seatsSold: 0.1, occupancyPercent: 1.3 });
    totals.add({ ...trip, seatsSold: 0.2, occupancyPercent: 2.5 });
    totals.add({ ...trip, seatsSold: 7.7, occupancyPercent: 96.3 });
    expect(totals.row()).toMatchObject({ seatsTotal: 24, seatsSold: 8, occupancyPercent: 33.3 });
    const two = new ReportTotals('occupancy');
    two.add({ route: 'A', seatsOffered: 8, seatsSold: 0.1 });
    two.add({ route: 'B', seatsOffered: 8, seatsSold: 0.2 });
    // 0.1 + 0.2 is 0.30000000000000004 in floating point: the total is rounded to 1/10000 of a seat.
    expect(two.row()).toMatchObject({ seatsSold: 0.3 });
    expect(REPORT_COLUMNS.trips.find((column) => column.key === 'seatsSold')?.kind).toBe('seats');
    expect(REPORT_COLUMNS.occupancy.find((column) => column.key === 'seatsSold')?.kind).toBe('seats');
    expect(REPORT_COLUMNS.revenue.find((column) => column.key === 'seatsSold')?.kind).toBe('integer');
  });
});
