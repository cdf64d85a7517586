import type { Database } from '../db/orm.js';
import { saveBusLayout } from '../db/writes/catalogue.js';
import { coachLayout } from '../domain/layout-templates.js';

/**
 * A large synthetic catalogue for benchmarks, built set-wise in SQL: 60 cities, 400 stops,
 * 120 companies, 1,250 routes of 4-8 stops, and 2,500 trips a day for 60 days (150,000 trips,
 * about 900,000 stop calls), with some seats already sold. Deterministic, so that two runs search
 * the same catalogue: positions from setseed, and every id the search sees (cities, stops,
 * companies, routes, trips) made from what it names (`BENCH_ID`) rather than drawn at random, as the
 * benchmark's 400 searches are chosen by their ids. Generated once per database: a marker row
 * records the parameters.
 */
export const BENCH_CATALOGUE = {
  cities: 60,
  stops: 400,
  companies: 120,
  routes: 1250,
  tripsPerDay: 2500,
  days: 60,
};

/** The database that holds the catalogue (v2: ids made from names; v1's were random). */
export const BENCH_CATALOGUE_DATABASE = 'busbooking_bench_v2';

/**
 * A version-4-shaped uuid made from a text (md5 with the version and variant digits set), so the
 * API's uuid validation accepts it. A temporary function lives as long as its connection, and each
 * transaction may get another pooled connection, so every transaction that uses it creates it.
 */
const BENCH_ID = `create or replace function pg_temp.bench_id(name text) returns uuid language sql immutable
  as $$ select overlay(overlay(md5(name) placing '4' from 13) placing '8' from 17)::uuid $$`;

export async function ensureBenchCatalogue(db: Database, log: (message: string) => void): Promise<void> {
  await db.query(
    `create table if not exists bench_catalogue_marker (parameters jsonb primary key, created_at timestamptz default now())`,
  );
  const marker = JSON.stringify(BENCH_CATALOGUE);
  const existing = await db.query('select 1 from bench_catalogue_marker where parameters = $1::jsonb', [
    marker,
  ]);
  if (existing.length) {
    log('bench catalogue already present');
    return;
  }
  const started = Date.now();
  const { cities, stops, companies, routes, tripsPerDay, days } = BENCH_CATALOGUE;
  await db.transaction(async (client) => {
    await client.query('select setseed(0.42)');
    await client.query(BENCH_ID);
    await client.query(
      `insert into cities (id, name_ar, name_en, latitude, longitude)
       select pg_temp.bench_id('city:' || i), 'مدينة ' || i, 'Bench City ' || i, 32.3 + random() * 4.8, 35.7 + random() * 6.3
       from generate_series(1, $1) i`,
      [cities],
    );
    await client.query(
      `with c as (select id, latitude, longitude, row_number() over (order by name_en) - 1 as n from cities where name_en like 'Bench City %')
       insert into stops (id, city_id, kind, name_ar, name_en, address_ar, address_en, latitude, longitude)
       select pg_temp.bench_id('stop:' || i), c.id, (array['BUS_STATION','PARKING_POINT','AIRPORT','BOARDING_POINT'])[1 + (i / $2) % 4],
              'موقف ' || i, 'Bench Stop ' || i, 'عنوان ' || i, 'Address ' || i,
              c.latitude + random() / 50, c.longitude + random() / 50
       from generate_series(0, $1 - 1) i join c on c.n = i % $2`,
      [stops, cities],
    );
    await client.query(
      `insert into companies (id, name_ar, name_en, slug, status, verified, published)
       select pg_temp.bench_id('company:' || i), 'شركة ' || i, 'Bench Company ' || i, 'bench-company-' || i, 'ACTIVE', true, true from generate_series(1, $1) i`,
      [companies],
    );
    await client.query(
      `insert into buses (company_id, plate_number, model)
       select id, 'BENCH-' || slug, 'Bench coach' from companies where slug like 'bench-company-%'`,
    );
  });
  const buses = await db.query<{ id: string }>(
    `select b.id from buses b where b.plate_number like 'BENCH-%'`,
  );
  for (const bus of buses) {
    await db.transaction((client) =>
      saveBusLayout(client, {
        busId: bus.id,
        document: coachLayout({ rows: 12, pattern: '2+2' }),
        saveMode: 'active',
      }),
    );
  }
  await db.transaction(async (client) => {
    await client.query('select setseed(0.42)');
    await client.query(BENCH_ID);
    // Route patterns: each route visits 4-8 distinct stops in distinct cities, 50-110 minutes apart.
    await client.query(
      `create temporary table bench_pattern (route_n int, seq int, stop_id uuid, city_id uuid, offset_minutes int, fare_bp int) on commit drop`,
    );
    await client.query(
      `with s as (select id, city_id, row_number() over (order by name_en) - 1 as n from stops where name_en like 'Bench Stop %'),
            r as (select n, 4 + (n % 5) as len, (n * 7919) % $2 as start from generate_series(0, $1 - 1) n)
       insert into bench_pattern (route_n, seq, stop_id, city_id, offset_minutes)
       select r.n, k, s.id, s.city_id, 0
       from r cross join lateral generate_series(0, r.len - 1) k
       join s on s.n = (r.start + k * (7 + r.n % 13) * 1) % $2`,
      [routes, stops],
    );
    // Drop patterns that visit a city twice (a trip calls at one stop per city here).
    await client.query(
      `delete from bench_pattern p where p.route_n in (
         select route_n from bench_pattern group by route_n having count(*) <> count(distinct city_id))`,
    );
    await client.query(
      `update bench_pattern p set offset_minutes = x.off, fare_bp = x.bp
       from (select route_n, seq,
                    (sum(60 + (abs(hashtext(route_n::text || ':' || seq)) % 50)) over w) - (60 + (abs(hashtext(route_n::text || ':0')) % 50)) as off,
                    case when seq = max(seq) over (partition by route_n) then 10000
                         else (10000 * seq / greatest(1, max(seq) over (partition by route_n)))::int end as bp
             from bench_pattern window w as (partition by route_n order by seq)) x
       where p.route_n = x.route_n and p.seq = x.seq`,
    );
    await client.query(
      `create temporary table bench_route on commit drop as
       select p.route_n, (select id from companies where slug = 'bench-company-' || (1 + p.route_n % $1)) as company_id,
              min(p.city_id::text) filter (where p.seq = 0)::uuid as origin_city_id,
              min(p.city_id::text) filter (where p.seq = (select max(seq) from bench_pattern q where q.route_n = p.route_n))::uuid as destination_city_id,
              min(p.stop_id::text) filter (where p.seq = 0)::uuid as pickup_stop_id,
              pg_temp.bench_id('route:' || p.route_n) as route_id
       from bench_pattern p group by p.route_n`,
      [companies],
    );
    await client.query(
      `insert into routes (id, company_id, origin_city_id, destination_city_id, name_ar, name_en)
       select route_id, company_id, origin_city_id, destination_city_id, 'خط ' || route_n, 'Bench Route ' || route_n from bench_route`,
    );
    await client.query(
      `create temporary table bench_trip on commit drop as
       select pg_temp.bench_id('trip:' || r.route_n || ':' || d || ':' || k) as id, r.route_n, r.route_id, r.company_id, r.pickup_stop_id,
              (date_trunc('day', now() at time zone 'Asia/Damascus') + make_interval(days => d, hours => 5 + (k * 7 + r.route_n) % 17)
                 + make_interval(mins => (r.route_n * 13) % 60)) at time zone 'Asia/Damascus' as departure_at,
              15000 + (r.route_n % 40) * 1000 as price_base
       from (select *, row_number() over (order by route_n) - 1 as idx, count(*) over () as total from bench_route) r
       cross join generate_series(0, $1 - 1) d cross join generate_series(0, 2) k
       -- two departures a day per route, and a third on as many routes as needed for tripsPerDay
       where k < 2 or r.idx < $2 - 2 * r.total`,
      [days, tripsPerDay],
    );
    await client.query(
      `insert into trips (id, company_id, route_id, bus_id, pickup_stop_id, departure_at, arrival_at, operating_date,
                          price_base, price_vip, currency, seats_total)
       select t.id, t.company_id, t.route_id, b.id, t.pickup_stop_id, t.departure_at,
              t.departure_at + make_interval(mins => (select max(offset_minutes) from bench_pattern p where p.route_n = t.route_n)),
              (t.departure_at at time zone 'Asia/Damascus')::date, t.price_base, null, 'SYP', 48
       from bench_trip t join buses b on b.company_id = t.company_id`,
    );
    await client.query(
      `insert into trip_stop_calls (trip_id, stop_id, city_id, sequence, arrival_at, departure_at, fare_share_bp)
       select t.id, p.stop_id, p.city_id, p.seq, t.departure_at + make_interval(mins => p.offset_minutes),
              t.departure_at + make_interval(mins => p.offset_minutes + case when p.seq = 0 then 0 else 5 end), p.fare_bp
       from bench_trip t join bench_pattern p on p.route_n = t.route_n`,
    );
    // Some seats already sold on the first week's trips.
    await client.query(
      `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, owner_kind)
       select t.id, 'd1-r' || (1 + s / 4) || '-c' || (case s % 4 when 0 then 1 when 1 then 2 when 2 then 4 else 5 end), 0,
              (select max(sequence) from trip_stop_calls c where c.trip_id = t.id), 'CONFIRMED', 'BOOKING'
       from bench_trip t cross join generate_series(0, 11) s
       where t.departure_at < now() + interval '7 days' and (abs(hashtext(t.id::text)) % 12) > s`,
    );
    await client.query('insert into bench_catalogue_marker (parameters) values ($1::jsonb)', [marker]);
  });
  await db.query('analyze');
  const [counts] = await db.query<{ trips: number; calls: number }>(
    `select (select count(*)::int from trips) as trips, (select count(*)::int from trip_stop_calls) as calls`,
  );
  log(
    `bench catalogue built in ${((Date.now() - started) / 1000).toFixed(1)}s: ${counts!.trips} trips, ${counts!.calls} stop calls`,
  );
}
