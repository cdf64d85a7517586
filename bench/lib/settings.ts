/**
 * What every benchmark shares in how it is run and how it speaks: its numeric settings from the
 * environment (BENCH_SCALE, BENCH_SECONDS, BENCH_CONCURRENCY, ...) and its log lines.
 */

/** The number in the environment variable `name`, or `fallback` when it is unset. */
export function benchSetting(name: `BENCH_${string}`, fallback: number): number {
  return Number(process.env[name] ?? fallback);
}

/** One line of a benchmark's progress, marked as the benchmark's (the API and worker children log too). */
export function log(message: string): void {
  console.log(`[bench] ${message}`);
}
