import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/lib/services.js';

/**
 * Machine-readable figures of a benchmark run, for `npm run bench` (bench/all.ts): each benchmark
 * writes `<BENCH_RESULTS_DIR>/<bench>.json` (default .data/bench-results) with one row per figure,
 * its target and whether it was met. A figure without a target (a baseline, a ratio shown for
 * information) has target and met null.
 */
export interface Target {
  op: '>=' | '<=' | '<' | '>';
  value: number;
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  target: Target | null;
  met: boolean | null;
}

export interface BenchResults {
  bench: string;
  finishedAt: string;
  scale: string | null;
  figures: Figure[];
}

export const resultsDir = () => process.env.BENCH_RESULTS_DIR ?? join(projectRoot, '.data', 'bench-results');

const meets = (value: number, target: Target) =>
  target.op === '>='
    ? value >= target.value
    : target.op === '<='
      ? value <= target.value
      : target.op === '<'
        ? value < target.value
        : value > target.value;

/** One figure; `met` follows from the target (null without one). */
export function figure(name: string, value: number, unit: string, target?: Target): Figure {
  const rounded = Number(value.toFixed(value >= 100 ? 1 : 3));
  return { name, value: rounded, unit, target: target ?? null, met: target ? meets(value, target) : null };
}

/** Writes the run's figures for the table runner (and anyone else reading the results directory). */
export function recordFigures(bench: string, figures: Figure[]): void {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  const results: BenchResults = {
    bench,
    finishedAt: new Date().toISOString(),
    scale: process.env.BENCH_SCALE ?? null,
    figures,
  };
  writeFileSync(join(dir, `${bench}.json`), JSON.stringify(results, null, 2));
  console.log(`[bench] ${figures.length} figures written to ${join(dir, `${bench}.json`)}`);
}
