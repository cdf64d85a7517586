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
  /**
   * The same measure of the floor measured in the same run (the empty Temporal workflow, the bare
   * node:http endpoint), when the figure has one: a floor that misses the target too shows the
   * target out of reach on this machine in this run. Absent on figures without a floor.
   */
  floor?: number;
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

const rounded = (value: number) => Number(value.toFixed(value >= 100 ? 1 : 3));

/** One figure; `met` follows from the target (null without one), `floor` is the run's floor of the same measure. */
export function figure(name: string, value: number, unit: string, target?: Target, floor?: number): Figure {
  return {
    name,
    value: rounded(value),
    unit,
    target: target ?? null,
    met: target ? meets(value, target) : null,
    ...(floor === undefined ? {} : { floor: rounded(floor) }),
  };
}

/** Whether the run's floor misses the figure's target too: out of reach on this machine in this run. */
export const floorMisses = (figure: Figure): boolean =>
  figure.target !== null && figure.floor !== undefined && !meets(figure.floor, figure.target);

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
