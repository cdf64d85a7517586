import { measureCpu, type PhaseCpuOptions } from './cpu.js';
import type { LoadResult } from './load.js';

/** One load measured in turn with others: `run(seconds)` drives it for that long. */
export interface Contender {
  name: string;
  run: (seconds: number) => Promise<LoadResult>;
  /** The untimed warm-up before each slice (default: run), for a run that records more than it returns. */
  warmUp?: (seconds: number) => Promise<unknown>;
}

/** A contender's slices taken together: its load result and its CPU per request by part of the stack. */
export interface Interleaved {
  result: LoadResult;
  cpu: Record<string, number>;
}

/** How long each slice of `seconds` in `rounds` lasts: whole seconds, at least one. */
export function sliceSeconds(seconds: number, rounds: number): number {
  return Math.max(1, Math.round(seconds / rounds));
}

/**
 * Measures loads that are to be compared with each other in `rounds` alternating slices of
 * `seconds / rounds` whole seconds each (at least one), the order turning every round, instead of one
 * long phase each one after the other: on a shared machine whose speed drifts by a fifth within
 * minutes, each load then meets the same drift, and their ratio measures the loads, not the moment
 * each ran. Each slice's CPU is read from /proc as `measureCpu` reads a phase's. With `warmUpSeconds`,
 * each slice follows an untimed warm-up of its own: a contender idle while the others ran may have had
 * its pool close idle connections (pg-pool closes them after 10 s), and the new ones connect and plan
 * their statements there.
 *
 * The slices add up: requests, errors and seconds are summed (the rate is their quotient); p50 is
 * the request-weighted mean of the slices' and p99 the highest slice's, an upper bound (wrk reports
 * percentiles, not the latencies themselves); each CPU figure is the request-weighted mean.
 */
export async function interleave(
  contenders: Contender[],
  options: {
    seconds: number;
    rounds: number;
    digits?: number;
    warmUpSeconds?: number;
    /** measureCpu's: the PostgreSQL backends of this database alone, too. */
    database?: PhaseCpuOptions['database'];
  },
): Promise<Map<string, Interleaved>> {
  const slice = sliceSeconds(options.seconds, options.rounds);
  const slices = new Map<string, Interleaved[]>(contenders.map((contender) => [contender.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    const shift = round % contenders.length;
    for (const contender of [...contenders.slice(shift), ...contenders.slice(0, shift)]) {
      if (options.warmUpSeconds) await (contender.warmUp ?? contender.run)(options.warmUpSeconds);
      const measured = await measureCpu(
        () => contender.run(slice),
        (result) => result.requests,
        { digits: 4, database: options.database },
      );
      slices.get(contender.name)!.push(measured);
    }
  }
  const digits = options.digits ?? 2;
  return new Map([...slices].map(([name, measured]) => [name, combine(name, measured, digits)]));
}

function combine(label: string, slices: Interleaved[], digits: number): Interleaved {
  const requests = slices.reduce((sum, { result }) => sum + result.requests, 0);
  const seconds = slices.reduce((sum, { result }) => sum + result.seconds, 0);
  const weighted = (value: (slice: Interleaved) => number) =>
    slices.reduce((sum, slice) => sum + value(slice) * slice.result.requests, 0) / Math.max(requests, 1);
  const cpu: Record<string, number> = {};
  for (const key of Object.keys(slices[0]?.cpu ?? {})) {
    cpu[key] = Number(weighted((slice) => slice.cpu[key] ?? 0).toFixed(digits));
  }
  return {
    result: {
      label,
      requests,
      errors: slices.reduce((sum, { result }) => sum + result.errors, 0),
      seconds,
      perSecond: requests / seconds,
      p50: weighted((slice) => slice.result.p50),
      p99: Math.max(...slices.map(({ result }) => result.p99)),
    },
    cpu,
  };
}
