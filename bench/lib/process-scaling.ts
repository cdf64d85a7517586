import type { LoadResult } from './load.js';
import type { BenchStack } from './stack.js';

export interface ProcessScaling<R extends LoadResult = LoadResult> {
  one: R;
  two: R;
  /** Throughput with two API processes over one. */
  ratio: number;
}

/**
 * The same load against the API with API_PROCESSES=1 and then 2 (each a fresh API on its own port,
 * with `changes` applied), in the same run: how throughput grows with a second process on this
 * machine, where the load generator and PostgreSQL share the cores.
 */
export async function measureProcessScaling<R extends LoadResult>(
  stack: BenchStack,
  changes: Record<string, string>,
  load: (apiUrl: string, processes: 1 | 2) => Promise<R>,
): Promise<ProcessScaling<R>> {
  const one = await load(await stack.startApi({ ...changes, API_PROCESSES: '1' }), 1);
  const two = await load(await stack.startApi({ ...changes, API_PROCESSES: '2' }), 2);
  return processScaling(one, two);
}

/** The same load measured against one API process and against two: their ratio, printed. */
export function processScaling<R extends LoadResult>(one: R, two: R): ProcessScaling<R> {
  const ratio = two.perSecond / Math.max(one.perSecond, 1e-9);
  console.log(
    `[bench] API_PROCESSES 1 → 2: ${one.perSecond.toFixed(1)} → ${two.perSecond.toFixed(1)} a second ` +
      `(×${ratio.toFixed(2)}; p99 ${one.p99.toFixed(1)} → ${two.p99.toFixed(1)} ms)`,
  );
  return { one, two, ratio };
}
