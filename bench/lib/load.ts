import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoadResult {
  label: string;
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

/** `task` over every item, `concurrency` at a time; the answers in the items' order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(items[index]!, index);
      }
    }),
  );
  return results;
}

/**
 * Runs `task` from `concurrency` loops for `seconds` and reports throughput and latency
 * percentiles (milliseconds). Used for the raw-SQL baselines, measured in the same run as the API.
 */
export async function runLoops(
  label: string,
  options: { concurrency: number; seconds: number },
  task: (iteration: number) => Promise<unknown>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let iteration = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const begin = performance.now();
        try {
          await task(iteration++);
          latencies.push(performance.now() - begin);
        } catch {
          errors++;
        }
      }
    }),
  );
  return loadResult(label, latencies, errors, started);
}

/** Throughput and latency percentiles of requests that took `latencies` (ms) since `started`. */
export function loadResult(label: string, latencies: number[], errors: number, started: number): LoadResult {
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    label,
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/**
 * One row of a console.table of load results: the result's label under `columns.label`, the rate as
 * `<unit>/s`, p50 and p99 in ms to `columns.digits` decimals, the count as `<unit>` and the errors.
 */
export function resultRow(
  result: LoadResult,
  columns: { label: string; unit: string; digits: number },
): Record<string, string | number> {
  return {
    [columns.label]: result.label,
    [`${columns.unit}/s`]: Number(result.perSecond.toFixed(1)),
    'p50 ms': Number(result.p50.toFixed(columns.digits)),
    'p99 ms': Number(result.p99.toFixed(columns.digits)),
    [columns.unit]: result.requests,
    errors: result.errors,
  };
}

export function printTable(results: LoadResult[]): void {
  const rows = results.map((r) => ({
    measure: r.label,
    'req/s': Math.round(r.perSecond),
    'p50 ms': r.p50.toFixed(2),
    'p99 ms': r.p99.toFixed(2),
    ok: r.requests,
    errors: r.errors,
  }));
  console.table(rows);
}

/**
 * HTTP load with wrk (Debian's package; installed on first use when missing and run as root), a C
 * load generator that leaves the two cores to the server it measures far more than a JavaScript
 * one does. `requests` are cycled through so the server sees varied input.
 */
export async function runWrk(
  label: string,
  options: {
    url: string;
    concurrency: number;
    seconds: number;
    requests: { method: 'GET' | 'POST'; path: string; body?: string; headers?: Record<string, string> }[];
  },
): Promise<LoadResult> {
  ensureWrk();
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const luaString = (value: string) => `[==[${value}]==]`;
  const entries = options.requests.map((request) => {
    const headers = { 'Content-Type': 'application/json', ...request.headers };
    const headerTable = Object.entries(headers)
      .map(([name, value]) => `[ ${luaString(name)} ] = ${luaString(value)}`)
      .join(', ');
    return `{ ${luaString(request.method)}, ${luaString(request.path)}, { ${headerTable} }, ${request.body ? luaString(request.body) : 'nil'} }`;
  });
  const script = join(dir, 'requests.lua');
  writeFileSync(
    script,
    `local requests = { ${entries.join(',\n')} }\nlocal i = 0\nrequest = function()\n  i = i + 1\n  local r = requests[(i % #requests) + 1]\n  return wrk.format(r[1], r[2], r[3], r[4])\nend\n`,
  );
  const result = spawnSync(
    'wrk',
    ['-t1', `-c${options.concurrency}`, `-d${options.seconds}s`, '--latency', '-s', script, options.url],
    { encoding: 'utf8' },
  );
  rmSync(dir, { recursive: true, force: true });
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr}`);
  const output = result.stdout;
  const latency = (percent: string) => {
    const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
    if (!match) return Number.NaN;
    const scale = { us: 0.001, ms: 1, s: 1000 }[match[2] as 'us' | 'ms' | 's'];
    return Number(match[1]) * scale;
  };
  const total = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const ok = total - non2xx;
  return {
    label,
    requests: ok,
    errors: non2xx + socketErrors,
    seconds: options.seconds,
    perSecond: ok / options.seconds,
    p50: latency('50'),
    p99: latency('99'),
  };
}

function ensureWrk(): void {
  if (spawnSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' }).status === 0) return;
  if (process.getuid?.() !== 0) throw new Error('the benchmark needs wrk: sudo apt-get install -y wrk');
  const installed = spawnSync('apt-get', ['install', '-y', '-qq', 'wrk'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (installed.status !== 0) throw new Error('apt-get install wrk failed');
}

/** The machine's size and load, for the last line of a benchmark's report. */
export function machineLoad(): string {
  const [load1, load5] = loadavg();
  return `machine: ${cpus().length} CPUs, load average ${load1!.toFixed(1)} (1 min) ${load5!.toFixed(1)} (5 min) at the end of the run`;
}
