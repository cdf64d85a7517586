import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownTable, rowsOf } from '../../bench/lib/results-table.js';
import { figure, recordFigures } from '../../bench/lib/results.js';

/** `npm run bench` reads the figures each benchmark writes and prints one table of them. */
describe('benchmark figures and the one table', () => {
  const previous = process.env.BENCH_RESULTS_DIR;
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    process.env.BENCH_RESULTS_DIR = dir;
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.BENCH_RESULTS_DIR;
    else process.env.BENCH_RESULTS_DIR = previous;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a benchmark writes its figures with targets, and the table shows each beside its target, met or not', () => {
    recordFigures('search', [
      figure('search as configured', 912.345, 'req/s', { op: '>=', value: 800 }),
      figure('search as configured p99', 52.1, 'ms', { op: '<', value: 40 }),
      figure('search SQL raw (baseline)', 1139, 'req/s'),
    ]);
    const written = JSON.parse(readFileSync(join(dir, 'search.json'), 'utf8'));
    expect(written.figures).toEqual([
      {
        name: 'search as configured',
        value: 912.3,
        unit: 'req/s',
        target: { op: '>=', value: 800 },
        met: true,
      },
      {
        name: 'search as configured p99',
        value: 52.1,
        unit: 'ms',
        target: { op: '<', value: 40 },
        met: false,
      },
      { name: 'search SQL raw (baseline)', value: 1139, unit: 'req/s', target: null, met: null },
    ]);
    const rows = [...rowsOf('search', dir, 0), ...rowsOf('ledger', dir, 1)];
    expect(rows.map((row) => [row.figure, row.value, row.target, row.met])).toEqual([
      ['search as configured', '912.3 req/s', '>= 800 req/s', 'met'],
      ['search as configured p99', '52.1 ms', '< 40 ms', '**not met**'],
      ['search SQL raw (baseline)', '1,139 req/s', '—', ''],
      ['(run failed)', 'exit 1', '', '**not met**'],
    ]);
    const table = markdownTable(rows).split('\n');
    expect(table).toHaveLength(2 + rows.length);
    expect(table[0]).toMatch(/^\| Benchmark +\| Figure +\| Value +\| Target +\| Met +\|$/);
    expect(table[3]).toContain('| search ');
    expect(new Set(table.map((line) => line.length)).size).toBe(1);
  });

  it('a missed target whose floor, measured in the same run, misses it too is shown out of reach here', () => {
    recordFigures('journeys', [
      figure('journeys deadline lag p99', 2928.6, 'ms', { op: '<', value: 2000 }, 6012),
      figure('journeys deadline lag p99 (floor under target)', 2928.6, 'ms', { op: '<', value: 2000 }, 569),
      figure('journeys deadline lag p99 (met)', 1936, 'ms', { op: '<', value: 2000 }, 6012),
    ]);
    const written = JSON.parse(readFileSync(join(dir, 'journeys.json'), 'utf8'));
    expect(written.figures[0]).toMatchObject({ value: 2928.6, met: false, floor: 6012 });
    expect(rowsOf('journeys', dir, 0).map((row) => row.met)).toEqual([
      "**not met**; out of reach here: the floor's 6,012 ms misses it too",
      '**not met**',
      'met',
    ]);
  });
});
