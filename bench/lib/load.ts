import autocannon from 'autocannon';

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
 * HTTP load with autocannon from this process against a server in another process. `requests`
 * are cycled through so the server sees varied input.
 */
export async function runHttp(
  label: string,
  options: {
    url: string;
    concurrency: number;
    seconds: number;
    requests: { method: 'GET' | 'POST'; path: string; body?: string; headers?: Record<string, string> }[];
  },
): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.concurrency,
    duration: options.seconds,
    requests: options.requests,
    headers: { 'content-type': 'application/json' },
  });
  const okRequests = result['2xx'];
  const bad = result.non2xx + result.errors + result.timeouts;
  return {
    label,
    requests: okRequests,
    errors: bad,
    seconds: options.seconds,
    perSecond: okRequests / options.seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
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
