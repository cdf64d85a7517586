/**
 * npm run bench:ledger — GET /dashboard/api/payments for one company holding 1,000,000 payment
 * operations over two years: a month's page (20 lines) with the statistics of the month's filtered
 * set, at concurrency 8, against the real API in its own process (production configuration). In
 * the same run, the bare baseline sends exactly the endpoint's two statements
 * (db/queries/payment-ledger.ts ledgerStatements: the page and the grouped totals) through pg at
 * the same concurrency. Requests cycle over 12 months and four filters (none, status, source,
 * status + source). Target: p99 < 150 ms.
 *
 * In the same run, GET /dashboard/api/trips without a date (the trip history, latest first) for a
 * company with 20,000 trips over a year (55 a day, five leaving together at each of 11 times), 12
 * live seat allocations each: pages from the first to offset 5,000, 100 at once, a bus's pages and
 * a status, at the same concurrency; its bare baseline sends the endpoint's two statements
 * (db/queries/planning-trips.ts tripListStatements: the status counters and the page) through pg.
 *
 * BENCH_SCALE (default 1) multiplies the 1,000,000 operations and the 20,000 trips: BENCH_SCALE=0.02
 * is a quick run of 20,000 operations and 1,000 trips (the least). BENCH_SECONDS (default 20) per phase, BENCH_CONCURRENCY (default 8). The data is built in
 * SQL with generate_series, once per scale: the benchmark database persists between runs.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/orm.js';
import { ledgerStatements } from '../db/queries/payment-ledger.js';
import { tripListStatements } from '../db/queries/planning-trips.js';
import type { Statement } from '../db/queries/statements.js';
import { ledgerFilters } from '../api/use-cases/company-payments.js';
import { damascusDate } from '../domain/time.js';
import { printTable, runLoops, runWrk } from './lib/load.js';
import { figure, recordFigures } from './lib/results.js';
import { benchOwnerSession, createBenchCompany, createBenchTrips } from './lib/company.js';
import { startBenchStack } from './lib/stack.js';
import { benchSetting, log } from './lib/settings.js';

const SCALE = benchSetting('BENCH_SCALE', 1);
const OPERATIONS = Math.max(1000, Math.round(1_000_000 * SCALE));
const SECONDS = benchSetting('BENCH_SECONDS', 20);
const CONCURRENCY = benchSetting('BENCH_CONCURRENCY', 8);
const TARGET_P99_MS = 150;
const DAYS = 730;
const TRIPS = Math.max(1000, Math.round(20_000 * SCALE));
const TRIPS_A_DAY = 55;

/** The company of this scale, built once: bookings and one payment operation each, over two years. */
async function ledgerCompany(db: Database): Promise<string> {
  const name = `Ledger${OPERATIONS}`;
  const [existing] = await db.query<{ id: string }>(
    `select c.id from companies c where c.name_en = $1
        and exists (select 1 from payment_ledger_daily d where d.company_id = c.id)`,
    [name],
  );
  if (existing) return existing.id;
  const company = await createBenchCompany(db, name, 'AUTO_CONFIRM');
  const [trip] = await createBenchTrips(db, company, { rows: 10, count: 1 });
  const started = performance.now();
  log(`generating ${OPERATIONS.toLocaleString('en')} payment operations over ${DAYS} days...`);
  await db.transaction(async (client) => {
    // A bulk load: the row triggers (the daily rollup, foreign keys) are off for this transaction
    // and the rollup is written once from the loaded rows below, as the migration's backfill does.
    await client.query(`set local session_replication_role = replica`);
    // Statuses and sources in realistic shares; created_at spread evenly over two years.
    await client.query(
      `with made as (
         select g, gen_random_uuid() as booking_id, now() - (g::float8 / $3) * interval '${DAYS} days' as at,
                (array['COMPLETED','COMPLETED','COMPLETED','COMPLETED','COMPLETED','COMPLETED','COMPLETED',
                       'PENDING','REFUNDED','CANCELLED','REFUND_DUE','FAILED'])[1 + (g * 7) % 12] as status,
                (array['transaction','transaction','driver','office','booking'])[1 + (g * 3) % 5] as source,
                (array['Rami Haddad','Lina Saleh','Omar Khoury','Hala Nasser','Yousef Darwish','Maya Azar'])[1 + g % 6]
                  as passenger,
                5000 + (g % 20) * 500 as amount
           from generate_series(1, $3::int) g),
       booked as (
         insert into bookings (id, booking_code, company_id, trip_id, passenger_name, passenger_phone, seats_count, subtotal,
                               seat_numbers, status, payment_status, total_price, created_at, updated_at)
         select booking_id, 'LB' || $4 || lpad(g::text, 8, '0'), $1, $2, passenger,
                '+9639' || lpad((g % 100000000)::text, 8, '0'), 1, amount, array['1'], 'CONFIRMED',
                case status when 'COMPLETED' then 'PAID' when 'REFUND_DUE' then 'PAID' when 'REFUNDED' then 'REFUNDED'
                            else 'UNPAID' end,
                amount, at, at
           from made
         returning id)
       insert into payment_operations (company_id, booking_id, method, provider, source, amount, status, collected_at,
                                       refunded_at, created_at, updated_at)
       select $1, b.id, 'CASH', 'cash', m.source, m.amount, m.status,
              case when m.status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED') then m.at + interval '1 hour' end,
              case when m.status = 'REFUNDED' then m.at + interval '2 days' end, m.at, m.at
         from booked b join made m on m.booking_id = b.id
        order by m.at`,
      [company.companyId, trip!.id, OPERATIONS, randomUUID().slice(0, 4)],
    );
    await client.query(
      `insert into payment_ledger_daily (company_id, day, status, source, provider, count, amount)
       select company_id, (created_at at time zone 'Asia/Damascus')::date, status, source, provider, count(*), sum(amount)
         from payment_operations where company_id = $1 group by 1, 2, 3, 4, 5`,
      [company.companyId],
    );
  });
  await db.query('vacuum analyze payment_operations');
  await db.query('vacuum analyze bookings');
  log(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return company.companyId;
}

/**
 * The company of the trip history, built once per scale: TRIPS trips back from five days ahead on
 * 20 buses and 4 routes, a driver on every third, every 20th cancelled, 12 seats sold and 2
 * released on each. Answers the company and the bus whose pages are read.
 */
async function historyCompany(db: Database): Promise<{ companyId: string; busId: string }> {
  const name = `History${TRIPS}`;
  const [existing] = await db.query<{ id: string; bus_id: string }>(
    `select c.id, (select min(t.bus_id::text) from trips t where t.company_id = c.id) as bus_id
       from companies c where c.name_en = $1 and exists (select 1 from trips t where t.company_id = c.id)`,
    [name],
  );
  if (existing) return { companyId: existing.id, busId: existing.bus_id };
  const company = await createBenchCompany(db, name, 'AUTO_CONFIRM');
  const started = performance.now();
  log(`generating ${TRIPS.toLocaleString('en')} trips of history...`);
  await db.transaction(async (client) => {
    // A bulk load, as above: no row triggers or foreign-key checks for this transaction.
    await client.query(`set local session_replication_role = replica`);
    const { rows: buses } = await client.query<{ id: string }>(
      `insert into buses (company_id, plate_number, model)
       select $1, 'HIST-' || $2 || '-' || g, 'Bench coach' from generate_series(1, 20) g returning id`,
      [company.companyId, randomUUID().slice(0, 6)],
    );
    const { rows: routes } = await client.query<{ id: string }>(
      `insert into routes (company_id, origin_city_id, destination_city_id, name_ar, name_en)
       select company_id, origin_city_id, destination_city_id, name_ar, name_en || ' ' || g
         from routes, generate_series(2, 4) g where id = $1 returning id`,
      [company.routeId],
    );
    const {
      rows: [driver],
    } = await client.query<{ id: string }>(
      `with made as (insert into staff_users (email, name, password_hash) values ($2, 'History driver', 'x') returning id)
       insert into company_memberships (company_id, staff_user_id, role) select $1, id, 'DRIVER' from made
       returning staff_user_id as id`,
      [company.companyId, `driver-${randomUUID().slice(0, 8)}@bench.test`],
    );
    await client.query(
      `insert into trips (company_id, route_id, bus_id, driver_id, pickup_stop_id, departure_at, arrival_at,
                          operating_date, price_base, price_vip, seats_total, status)
       select $1, ($3::uuid[])[1 + g % 4], ($2::uuid[])[1 + g % 20], case when g % 3 = 0 then $4::uuid end, $5,
              at, at + interval '3 hours', (at at time zone 'Asia/Damascus')::date, 25000, null, 40,
              case when at > now() then 'SCHEDULED' when g % 20 = 7 then 'CANCELLED' else 'COMPLETED' end
         from (select g, date_trunc('day', now()) + interval '5 days' - (g / $7) * interval '1 day'
                         + interval '5 hours' + ((g % $7) / 5) * interval '80 minutes' as at
                 from generate_series(0, $6::int - 1) g) made`,
      [
        company.companyId,
        buses.map((row) => row.id),
        [company.routeId, ...routes.map((row) => row.id)],
        driver!.id,
        company.stops[0]!.id,
        TRIPS,
        TRIPS_A_DAY,
      ],
    );
    await client.query(
      `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, owner_kind)
       select t.id, s::text, 1, 2, case when s > 12 then 'RELEASED' else 'CONFIRMED' end, 'BOOKING'
         from trips t, generate_series(1, 14) s where t.company_id = $1`,
      [company.companyId],
    );
  });
  await db.query('vacuum analyze trips');
  await db.query('vacuum analyze seat_allocations');
  log(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return historyCompany(db);
}

/** History pages from the first to offset 5,000, 100 at once, a bus's pages and a status, as query strings. */
function historyQueries(busId: string): string[] {
  const offsets = [0, 20, 100, 500, 1000, 2000, 5000].filter((offset) => offset < TRIPS);
  return [
    ...offsets.map((offset) => `limit=20&offset=${offset}`),
    'limit=100&offset=0',
    `bus_id=${busId}&limit=20&offset=0`,
    `bus_id=${busId}&limit=20&offset=200`,
    'status=CANCELLED&limit=20&offset=0',
  ];
}

/** The trip list's statements for one query string. */
function tripStatementsOf(companyId: string, query: string) {
  const params = new URLSearchParams(query);
  const filter = {
    busId: params.get('bus_id') ?? undefined,
    status: (params.get('status') ?? undefined) as 'CANCELLED' | undefined,
  };
  return tripListStatements(companyId, filter, {
    limit: Number(params.get('limit')),
    offset: Number(params.get('offset')),
  });
}

/** 12 past months × 4 filters, as query strings. */
function monthQueries(): string[] {
  const now = new Date();
  const filters = ['', '&status=COMPLETED', '&source=driver', '&status=PENDING&source=transaction'];
  const queries: string[] = [];
  for (let back = 2; back < 14; back += 1) {
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1, 12));
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back + 1, 0, 12));
    for (const filter of filters) {
      queries.push(`from=${damascusDate(first)}&to=${damascusDate(last)}${filter}&limit=20&offset=0`);
    }
  }
  return queries;
}

/** The statements the API sends for one query string. */
function statementsOf(companyId: string, query: string) {
  const params = Object.fromEntries(new URLSearchParams(query));
  return ledgerStatements(companyId, ledgerFilters({ ...params, limit: 20, offset: 0 }), {
    limit: 20,
    offset: 0,
  });
}

/**
 * GET `paths` of the API as `cookie`, then, in turn, each path's statements (`statements[i]`, the
 * ones its endpoint sends) through pg at the same concurrency (bare SQL); printed as two rows.
 */
async function apiAgainstBare(
  stack: Awaited<ReturnType<typeof startBenchStack>>,
  label: string,
  cookie: string,
  paths: string[],
  statements: Statement[][],
) {
  const api = await runWrk(label, {
    url: stack.apiUrl,
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    requests: paths.map((path) => ({ method: 'GET' as const, path, headers: { Cookie: cookie } })),
  });
  const bare = await runLoops(
    'the same two statements through pg (bare SQL)',
    { concurrency: CONCURRENCY, seconds: SECONDS },
    (i) =>
      Promise.all(statements[i % statements.length]!.map(({ text, values }) => stack.db.query(text, values))),
  );
  printTable([api, bare]);
  return { api, bare };
}

/** GET /dashboard/api/trips over the history's pages, then its two statements through pg, in turn. */
async function historyPhase(stack: Awaited<ReturnType<typeof startBenchStack>>) {
  const { companyId, busId } = await historyCompany(stack.db);
  const cookie = `bb_staff=${(await benchOwnerSession(stack.db, companyId)).token}`;
  const queries = historyQueries(busId);
  const { api, bare } = await apiAgainstBare(
    stack,
    'GET /dashboard/api/trips (history page + status counters)',
    cookie,
    queries.map((query) => `/dashboard/api/trips?${query}`),
    queries.map((query) => {
      const { page, counters } = tripStatementsOf(companyId, query);
      return [page, counters];
    }),
  );
  console.log(
    `\nTrips: ${TRIPS.toLocaleString('en')} in the history, ${queries.length} queries in the cycle. API p99 ` +
      `${api.p99.toFixed(1)} ms; bare p99 ${bare.p99.toFixed(1)} ms; API / bare p99 ${(api.p99 / bare.p99).toFixed(2)}, ` +
      `throughput ${(api.perSecond / bare.perSecond).toFixed(2)}; errors ${api.errors + bare.errors}.`,
  );
  return { api, bare };
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ database: 'busbooking_bench_ledger' });
  try {
    const companyId = await ledgerCompany(stack.db);
    const cookie = `bb_staff=${(await benchOwnerSession(stack.db, companyId)).token}`;
    const queries = monthQueries();
    const probe = await fetch(`${stack.apiUrl}/dashboard/api/payments?${queries[0]}`, {
      headers: { Cookie: cookie },
    });
    const body = (await probe.json()) as { pagination?: { total: number } };
    if (probe.status !== 200) throw new Error(`the API answered ${probe.status}: ${JSON.stringify(body)}`);
    log(
      `a month holds ${body.pagination!.total.toLocaleString('en')} lines; concurrency ${CONCURRENCY}, ${SECONDS} s each`,
    );

    const prepared = queries.map((query) => statementsOf(companyId, query));
    const { api, bare } = await apiAgainstBare(
      stack,
      'GET /dashboard/api/payments (month page + statistics)',
      cookie,
      queries.map((query) => `/dashboard/api/payments?${query}`),
      prepared.map(({ page, totals }) => [page, totals]),
    );
    const example = prepared[1]!;
    console.log('\nBare SQL (the page, then the statistics), for the second query of the cycle:');
    console.log(`${example.page.text}\n  -- ${JSON.stringify(example.page.values)}`);
    console.log(`${example.totals.text}\n  -- ${JSON.stringify(example.totals.values)}`);
    console.log(
      `\nOperations: ${OPERATIONS.toLocaleString('en')} (BENCH_SCALE ${SCALE}). API p99 ${api.p99.toFixed(1)} ms ` +
        `(target < ${TARGET_P99_MS} ms: ${api.p99 < TARGET_P99_MS ? 'met' : 'NOT met'}); bare p99 ${bare.p99.toFixed(1)} ms; ` +
        `API / bare p99 ${(api.p99 / bare.p99).toFixed(2)}, throughput ${(api.perSecond / bare.perSecond).toFixed(2)}; ` +
        `errors ${api.errors + bare.errors}.`,
    );
    const history = await historyPhase(stack);
    recordFigures('ledger', [
      figure('ledger GET /payments p99', api.p99, 'ms', { op: '<', value: TARGET_P99_MS }),
      figure('ledger GET /payments', api.perSecond, 'req/s'),
      figure('ledger bare SQL (baseline)', bare.perSecond, 'req/s'),
      figure('ledger bare SQL p99 (baseline)', bare.p99, 'ms'),
      figure('ledger GET /trips history p99', history.api.p99, 'ms'),
      figure('ledger GET /trips history', history.api.perSecond, 'req/s'),
      figure('ledger trips history bare SQL (baseline)', history.bare.perSecond, 'req/s'),
      figure('ledger trips history bare SQL p99 (baseline)', history.bare.p99, 'ms'),
    ]);
  } finally {
    await stack.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
