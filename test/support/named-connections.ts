import type pg from 'pg';

/**
 * The run's DATABASE_URL with an application_name, so the connections of the app a test starts can
 * be told apart in pg_stat_activity from every other test's.
 */
export function namedDatabaseUrl(applicationName: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

/** How many connections named `applicationName` sit idle inside a report's transaction, its cursor open. */
export async function reportCursorConnections(
  inspector: pg.Client,
  applicationName: string,
): Promise<number> {
  const { rows } = await inspector.query(
    `select pid from pg_stat_activity
      where datname = current_database() and application_name = $1
        and state = 'idle in transaction' and query like 'fetch forward % from report_rows'`,
    [applicationName],
  );
  return rows.length;
}

/** What a request answered, or that it got no answer within `timeoutMs` (the status says so). */
export interface Answer {
  status: number | string;
  retryAfter: string | null;
  errorCode: string | null;
}

export function answerWithin(url: string, init: RequestInit = {}, timeoutMs = 5_000): Promise<Answer> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) }).then(
    async (response) => ({
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      errorCode:
        response.status === 200 ? null : ((await response.json()) as { errorCode: string }).errorCode,
    }),
    (error: Error) => ({ status: `no answer: ${error.name}`, retryAfter: null, errorCode: null }),
  );
}
