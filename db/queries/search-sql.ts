import { MAX_JOURNEYS, MAX_LEG_HOURS } from '../../domain/journey-search.js';
import { BOOKABLE_TRIP_SQL, offeredVipFareSql, takenSeatsSql } from './inventory.js';
import { stopIdentityColumns } from './stop-identity.js';

/**
 * The journey search statement (db/queries/search.ts runs it): its text per shape of search, built
 * once and sent as a named prepared statement. A little over 400 lines, kept in one module: its
 * parts are the CTEs of one statement, which name one another, and read best in their order.
 */

/** A search end's kind: a whole city (any public stop of it) or one stop. */
export type PlaceKind = 'city' | 'stop';

/** Public stops only: enabled and never a depot. */
const publicStop = (alias: string) => `${alias}.enabled and ${alias}.kind <> 'DEPOT'`;

/**
 * The city a search end stands for; no row when it is unknown, not a public stop, or a stop of a
 * company outside the caller's scope (listed in the location directory on the same condition).
 */
function placeCitiesSql(place: { kind: PlaceKind }, param: string): string {
  return place.kind === 'city'
    ? `select ci.id from cities ci where ci.id = ${param}`
    : `select s.city_id from stops s where s.id = ${param} and ${publicStop('s')}
         and (s.company_id is null or s.company_id in (select c.id from scope_company c))`;
}

/** The public stops a search end covers: every public stop of the city, or the stop itself. */
function placeStopsSql(place: { kind: PlaceKind }, param: string): string {
  return `select s.id from stops s where s.${place.kind === 'city' ? 'city_id' : 'id'} = ${param} and ${publicStop('s')}`;
}

/**
 * Stops a traveller never changes at (depots, disabled stops): few, so one array read once per
 * statement replaces a stops lookup per candidate call.
 */
const HIDDEN_STOPS = `array(select s.id from stops s where not (${publicStop('s')}))`;

/**
 * A leg's fare for ordering inside SQL, as domain legFare computes it: the fare accumulated up to the
 * alighting call less that up to the boarding call, each rounded half up (numeric round, exact for the
 * bigint fares and integer shares).
 */
const fareUpToSql = (price: string, bp: string) => `round(${price} * ${bp} / 10000.0)`;
const fareSql = (price: string, boardBp: string, alightBp: string) =>
  `(${fareUpToSql(price, alightBp)} - ${fareUpToSql(price, boardBp)})`;

/** The columns of one leg and their types; both legs of a result row carry them, prefixed l1_ and l2_. */
const LEG_COLUMNS = {
  trip_id: 'uuid',
  board_call_id: 'uuid',
  alight_call_id: 'uuid',
  board_seq: 'int',
  alight_seq: 'int',
  board_bp: 'int',
  alight_bp: 'int',
  departure_at: 'timestamptz',
  arrival_at: 'timestamptz',
  seats_total: 'int',
  price_base: 'bigint',
  price_vip: 'bigint',
  currency: 'text',
  company_id: 'uuid',
  delay_minutes: 'int',
} as const;
const LEG_NAMES = Object.keys(LEG_COLUMNS);

const legAs = (from: string, prefix: string) =>
  LEG_NAMES.map((name) => `${from}.${name} as ${prefix}_${name}`).join(', ');
const nullLegAs = (prefix: string) =>
  Object.entries(LEG_COLUMNS)
    .map(([name, type]) => `null::${type} as ${prefix}_${name}`)
    .join(', ');
const RESULT_COLUMNS = [
  ...LEG_NAMES.map((name) => `l1_${name}`),
  'l1_free_seats',
  ...LEG_NAMES.map((name) => `l2_${name}`),
  'l2_free_seats',
  'departure_at',
  'arrival_at',
  'price',
].join(', ');

/** What the answer carries per leg besides the company names; stop identities come once per stop call. */
const OUTPUT_LEG_COLUMNS = ['l1', 'l2']
  .flatMap((prefix) =>
    [
      'trip_id',
      'board_call_id',
      'alight_call_id',
      'board_bp',
      'alight_bp',
      'price_base',
      'currency',
      'company_id',
      'free_seats',
      'delay_minutes',
    ]
      .map((name) => `r.${prefix}_${name}`)
      .concat(`${offeredVipFareSql(`r.${prefix}_trip_id`, `r.${prefix}_price_vip`)} as ${prefix}_price_vip`),
  )
  .join(', ');

/**
 * The trip `tripId` (as `alias`) when it is bookable and its company is in scope, read by primary
 * key: the planner cannot know how few rows reach this point and would otherwise scan trips.
 */
const tripLateral = (tripId: string, alias = 't') =>
  `cross join lateral (
    select t.seats_total, t.price_base, t.price_vip, t.currency, t.company_id, t.delay_minutes from trips t
    where t.id = ${tripId} and ${BOOKABLE_TRIP_SQL} and t.company_id = any (array(select c.id from scope_company c))
    offset 0) ${alias}`;

/**
 * The stop identity of every stop call the answer names, once each, as one JSON object keyed by
 * stop call id (rows of stopIdentityColumns('call')). Journeys share calls (one first leg with
 * several second legs), and one object costs far less to produce and read than the same columns
 * repeated on every row.
 */
const IDENTITIES = `(select json_object_agg(x.call_stop_call_id, row_to_json(x)) from (
    select ${stopIdentityColumns('call')} from trip_stop_calls sc
    join stops s on s.id = sc.stop_id
    join cities ci on ci.id = s.city_id
    where sc.id = any (array(
      select distinct unnest(array[r.l1_board_call_id, r.l1_alight_call_id, r.l2_board_call_id, r.l2_alight_call_id]) from ranked r))
  ) x)`;

const JOURNEY_KEY = [
  'l1_trip_id',
  'l1_board_call_id',
  'l1_alight_call_id',
  'l2_trip_id nulls first',
  'l2_board_call_id',
  'l2_alight_call_id',
];

/**
 * Search order (domain compareJourneys): departure, duration, price, then the journey key, whose
 * parts (trip, boarding call, alighting call per leg) are uuids of one length, so comparing them in
 * turn orders as the key's text does; a direct journey has no second leg (nulls first, as a key that
 * is a prefix of another comes first).
 */
const searchOrder = (row = '') =>
  `${row}departure_at, ${row}arrival_at - ${row}departure_at, ${row}price, ${JOURNEY_KEY.map((column) => row + column).join(', ')}`;

/**
 * What a connection's stop combination carries from connection_candidate into its pair's arrays
 * (pair_candidate), to be read back per pair without scanning the candidates again.
 */
const COMBINATION_COLUMNS = [
  'l1_board_seq',
  'l1_alight_seq',
  'l1_alight_call_id',
  'l1_alight_bp',
  'l1_departure_at',
  'l1_arrival_at',
  'l2_board_call_id',
  'l2_alight_call_id',
  'l2_board_seq',
  'l2_alight_seq',
  'l2_board_bp',
  'l2_alight_bp',
  'l2_departure_at',
  'l2_arrival_at',
];

/** The columns of a trip that tripLateral reads; a result row carries them per leg. */
const TRIP_COLUMNS = new Set([
  'seats_total',
  'price_base',
  'price_vip',
  'currency',
  'company_id',
  'delay_minutes',
]);

/**
 * A pair of pair_candidate (`p`, its trips read as t1 and t2) at its best usable stop combination
 * (`c`): the one first in search order among those whose first leg costs something (its alighting
 * call's fare share above its boarding call's; the second leg's is checked in second_leg) and that
 * have seats for the party on both legs. The combinations are ordered first and their seats counted
 * after, one at a time until one has them (most often the first). As result columns (RESULT_COLUMNS).
 */
const bestCombinationSql = (passengers: string) => `
  cross join lateral (
    select c.*, f1.free_seats as l1_free_seats, f2.free_seats as l2_free_seats
    from (
      select u.*, b1.board_call_id as l1_board_call_id, b1.board_bp as l1_board_bp,
             ${fareSql('t1.price_base', 'b1.board_bp', 'u.l1_alight_bp')} + ${fareSql('t2.price_base', 'u.l2_board_bp', 'u.l2_alight_bp')} as price
      from unnest(${COMBINATION_COLUMNS.map((name) => `p.${name}s`).join(', ')}) u(${COMBINATION_COLUMNS.join(', ')})
      cross join lateral (
        select bc.id as board_call_id, bc.fare_share_bp as board_bp from trip_stop_calls bc
        where bc.trip_id = p.l1_trip_id and bc.sequence = u.l1_board_seq and bc.fare_share_bp < u.l1_alight_bp offset 0) b1
      order by u.l1_departure_at, u.l2_arrival_at - u.l1_departure_at, price,
               b1.board_call_id, u.l1_alight_call_id, u.l2_board_call_id, u.l2_alight_call_id
      offset 0) c
    cross join lateral (select t1.seats_total - ${takenSeatsSql('p.l1_trip_id', 'c.l1_board_seq', 'c.l1_alight_seq')} as free_seats offset 0) f1
    cross join lateral (select t2.seats_total - ${takenSeatsSql('p.l2_trip_id', 'c.l2_board_seq', 'c.l2_alight_seq')} as free_seats offset 0) f2
    where f1.free_seats >= ${passengers} and f2.free_seats >= ${passengers}
    limit 1) c`;

/** The select list of a pair at its best combination (bestCombinationSql), as RESULT_COLUMNS. */
const PAIR_COLUMNS = [
  ...['l1', 'l2'].flatMap((prefix) =>
    [...LEG_NAMES, 'free_seats'].map((name) =>
      name === 'trip_id'
        ? `p.${prefix}_trip_id`
        : TRIP_COLUMNS.has(name)
          ? `t${prefix.slice(1)}.${name} as ${prefix}_${name}`
          : `c.${prefix}_${name}`,
    ),
  ),
  'c.l1_departure_at as departure_at',
  'c.l2_arrival_at as arrival_at',
  'c.price',
].join(', ');

/** The statement text and its prepared-statement name per shape of search (ends' kinds, scope condition). */
const statements = new Map<string, { text: string; name: string }>();

export function searchStatement(originKind: PlaceKind, destinationKind: PlaceKind, scope: string) {
  const key = `${originKind}:${destinationKind}:${scope}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = {
      text: searchSqlText(originKind, destinationKind, scope),
      name: `journey-search-${statements.size + 1}`,
    };
    statements.set(key, statement);
  }
  return statement;
}

/**
 * The whole search as one statement (one round trip), for the API and the benchmark alike.
 *
 *   $1 origin id, $2 destination id, $3..$4 the boarding window (the Damascus day, not before now),
 *   $5 passengers, $6 same-stop minimum, $7 same-city minimum, $8 longest wait (minutes), then scope.
 *
 * Direct: origin and destination stop calls are read from the (stop_id, departure_at) index
 * alone and paired by trip; only pairs get their trip, calls and seat count read; the best stop
 * combination of each trip is kept. Connections are looked for only when no direct journey
 * exists: first legs run from the origin to any other city, second legs come from the
 * destination side (its calls and the earlier calls of their trips), the two meet in a change
 * city under the change-time rules of domain connectionChange, measured from the first leg's
 * expected arrival: its planned arrival plus the delay its company announced (trips.delay_minutes;
 * stop-call times stay the plan). A bookable trip has not departed, so no actual departure makes
 * it later (the rule of db/queries/leg-boarding.ts). Each pair of trips is offered at its best
 * usable stop combination (seats for the party on both legs, a leg that costs something) in search
 * order, and the cap takes the first MAX_JOURNEYS pairs in that order, whatever their other
 * combinations: pairs are read in order of the earliest departure of any combination (a bound), and
 * seats are counted only for pairs read until MAX_JOURNEYS have a usable combination, and for pairs
 * whose bound is no later than the departure of the last of those.
 * A leg is at most MAX_LEG_HOURS long, and its alighting call has a higher fare share than its
 * boarding call (calls priced alike, stored before routes refused them, sell nothing). The answer
 * always has one row at least, whose origin_city_id and destination_city_id say whether the two
 * ends exist; the first row also carries the stop identities of every stop call named
 * (identities, JSON by stop call id).
 */
// eslint-disable-next-line max-lines-per-function -- one SQL statement: its CTEs read in order, top to bottom
function searchSqlText(originKind: PlaceKind, destinationKind: PlaceKind, scope: string): string {
  const origin = { kind: originKind };
  const destination = { kind: destinationKind };
  const from = '$3::timestamptz';
  const to = '$4::timestamptz';
  const passengers = '$5::int';
  const maxWait = `make_interval(mins => $8::int)`;
  const maxLeg = `interval '${MAX_LEG_HOURS} hours'`;
  const endCities = `array(${placeCitiesSql(origin, '$1')} union all ${placeCitiesSql(destination, '$2')})`;
  const call = (alias: string, prefix: string) =>
    `${alias}.id as ${prefix}_call_id, ${alias}.sequence as ${prefix}_seq, ${alias}.fare_share_bp as ${prefix}_bp`;

  // Each CTE joins few relations and the laterals are fenced (offset 0): planning time grows
  // steeply with the size of one join problem, and this statement runs hundreds of times a second.
  // Stop calls are read through the covering (trip_id, sequence) index, never the heap.
  return `
with scope_company as materialized (select c.id, c.name_ar, c.name_en from companies c where ${scope}),
board as materialized (
  select b.trip_id, b.sequence as board_seq, b.departure_at
  from trip_stop_calls b
  where b.stop_id = any (array(${placeStopsSql(origin, '$1')})) and b.departure_at >= ${from} and b.departure_at < ${to}
),
direct_pair as materialized (
  select b.trip_id, b.board_seq, al.sequence as alight_seq
  from board b
  join trip_stop_calls al on al.trip_id = b.trip_id and al.sequence > b.board_seq
   and al.stop_id = any (array(${placeStopsSql(destination, '$2')}))
   and al.departure_at >= ${from} and al.departure_at < ${to} + ${maxLeg}
),
direct_leg as (
  select distinct on (p.trip_id) p.trip_id, p.board_seq, p.alight_seq, t.*, k.*, f.free_seats,
         ${fareSql('t.price_base', 'k.board_bp', 'k.alight_bp')} as price
  from direct_pair p
  ${tripLateral('p.trip_id')}
  cross join lateral (
    select bc.id as board_call_id, bc.fare_share_bp as board_bp, bc.departure_at,
           ac.id as alight_call_id, ac.fare_share_bp as alight_bp, ac.arrival_at
    from trip_stop_calls bc, trip_stop_calls ac
    where bc.trip_id = p.trip_id and bc.sequence = p.board_seq and ac.trip_id = p.trip_id and ac.sequence = p.alight_seq
      and ac.fare_share_bp > bc.fare_share_bp
    offset 0) k
  cross join lateral (select t.seats_total - ${takenSeatsSql('p.trip_id', 'p.board_seq', 'p.alight_seq')} as free_seats offset 0) f
  where f.free_seats >= ${passengers}
  order by p.trip_id, k.departure_at, k.arrival_at, price, k.board_call_id, k.alight_call_id
),
direct as materialized (
  select ${legAs('d', 'l1')}, d.free_seats as l1_free_seats, ${nullLegAs('l2')}, null::int as l2_free_seats,
         d.departure_at, d.arrival_at, d.price
  from direct_leg d
),
first_leg as materialized (
  select b.trip_id, b.board_seq, b.departure_at, k.*
  from board b
  cross join lateral (select make_interval(mins => t.delay_minutes) as delay from trips t where t.id = b.trip_id offset 0) d
  cross join lateral (
    select ${call('ac', 'alight')}, ac.arrival_at, ac.arrival_at + d.delay as expected_at, ac.stop_id as alight_stop_id,
           ac.city_id as alight_city_id, ac.arrival_at + d.delay + make_interval(mins => $6::int) as same_stop_from,
           ac.arrival_at + d.delay + make_interval(mins => $7::int) as same_city_from, ac.arrival_at + d.delay + ${maxWait} as change_until
    from trip_stop_calls ac
    where ac.trip_id = b.trip_id and ac.sequence > b.board_seq
      and ac.city_id <> all (${endCities}) and ac.stop_id <> all (${HIDDEN_STOPS})
    offset 0) k
  where not exists (select 1 from direct)
),
change_window as (select min(expected_at) as first_at, max(expected_at) + ${maxWait} as last_at from first_leg),
final_call as materialized (
  select ${call('al', 'alight')}, al.trip_id, al.arrival_at
  from change_window w
  join trip_stop_calls al on al.stop_id = any (array(${placeStopsSql(destination, '$2')}))
   and al.departure_at >= w.first_at and al.departure_at < w.last_at + ${maxLeg}
),
second_leg as materialized (
  select a.*, k.*
  from change_window w
  cross join final_call a
  cross join lateral (
    select ${call('bc', 'board')}, bc.departure_at, bc.stop_id as board_stop_id, bc.city_id as board_city_id
    from trip_stop_calls bc
    where bc.trip_id = a.trip_id and bc.sequence < a.alight_seq and bc.departure_at >= w.first_at and bc.departure_at <= w.last_at
      and bc.fare_share_bp < a.alight_bp and bc.city_id <> all (${endCities}) and bc.stop_id <> all (${HIDDEN_STOPS})
    offset 0) k
),
connection_candidate as (
  select f.trip_id as l1_trip_id, f.board_seq as l1_board_seq, f.alight_call_id as l1_alight_call_id, f.alight_seq as l1_alight_seq,
         f.alight_bp as l1_alight_bp, f.departure_at as l1_departure_at, f.arrival_at as l1_arrival_at,
         s.trip_id as l2_trip_id, s.board_call_id as l2_board_call_id, s.alight_call_id as l2_alight_call_id,
         s.board_seq as l2_board_seq, s.alight_seq as l2_alight_seq, s.board_bp as l2_board_bp, s.alight_bp as l2_alight_bp,
         s.departure_at as l2_departure_at, s.arrival_at as l2_arrival_at
  from first_leg f
  join second_leg s on s.board_city_id = f.alight_city_id and s.trip_id <> f.trip_id
   and s.departure_at >= case when s.board_stop_id = f.alight_stop_id then f.same_stop_from else f.same_city_from end
   and s.departure_at <= f.change_until
),
pair_candidate as materialized (
  -- Pairs of trips, not stop combinations, fill the cap: a pair is offered once (domain
  -- composeJourneys), and one pair has a combination per stop of each city it serves. Each pair
  -- with its combinations, and the earliest departure and arrival of any of them: a bound its best
  -- usable combination can only meet or follow.
  select l1_trip_id, l2_trip_id, min(l1_departure_at) as first_departure_at, min(l2_arrival_at) as first_arrival_at,
         ${COMBINATION_COLUMNS.map((name) => `array_agg(${name}) as ${name}s`).join(', ')}
  from connection_candidate group by l1_trip_id, l2_trip_id
),
early_pair as materialized (
  -- The first MAX_JOURNEYS pairs by that bound whose trips are bookable and in scope, each at its
  -- best usable combination (seats counted lazily, for pairs read before the cap is reached only).
  select ${PAIR_COLUMNS}
  from (select * from pair_candidate order by first_departure_at, first_arrival_at, l1_trip_id, l2_trip_id) p
  ${tripLateral('p.l1_trip_id', 't1')}
  ${tripLateral('p.l2_trip_id', 't2')}
  ${bestCombinationSql(passengers)}
  limit ${MAX_JOURNEYS}
),
connection as (
  -- The cap takes the first MAX_JOURNEYS pairs in search order (ranked), by their best usable
  -- combination, which may depart later than the bound (an earlier boarding sold out or priced
  -- alike). When MAX_JOURNEYS pairs were found, every pair that can come before the last of them
  -- departs by its bound no later than that one does: those pairs are read too.
  select ${RESULT_COLUMNS} from early_pair
  union all
  select ${PAIR_COLUMNS}
  from pair_candidate p
  ${tripLateral('p.l1_trip_id', 't1')}
  ${tripLateral('p.l2_trip_id', 't2')}
  ${bestCombinationSql(passengers)}
  where (select count(*) from early_pair) = ${MAX_JOURNEYS}
    and p.first_departure_at <= (select max(e.departure_at) from early_pair e)
    and not exists (select 1 from early_pair e where e.l1_trip_id = p.l1_trip_id and e.l2_trip_id = p.l2_trip_id)
),
ranked as materialized (
  select * from (
    select ${RESULT_COLUMNS} from direct
    union all
    select ${RESULT_COLUMNS} from connection
  ) j
  order by ${searchOrder()}
  limit ${MAX_JOURNEYS}
),
numbered as (select row_number() over (order by ${searchOrder()}) as position, * from ranked)
select (${placeCitiesSql(origin, '$1')}) as origin_city_id, (${placeCitiesSql(destination, '$2')}) as destination_city_id,
       case when r.position = 1 then ${IDENTITIES} end as identities,
       ${OUTPUT_LEG_COLUMNS}, c1.name_ar as l1_company_name_ar, c1.name_en as l1_company_name_en,
       c2.name_ar as l2_company_name_ar, c2.name_en as l2_company_name_en
from (select) one
left join numbered r on true
left join scope_company c1 on c1.id = r.l1_company_id
left join scope_company c2 on c2.id = r.l2_company_id
order by r.position`;
}
