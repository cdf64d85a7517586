/**
 * The stop identity of a leg's board or alight point (SPEC "Journey leg stop identity"):
 * stop_call_id is what quote and booking take; stop_id is the permanent stop; id is the legacy
 * alias of stop_call_id.
 */
export interface StopIdentity {
  stop_call_id: string;
  stop_id: string;
  id: string;
  name_ar: string;
  name_en: string;
  kind: string;
  city_id: string;
  city_name_ar: string;
  city_name_en: string;
  latitude: number;
  longitude: number;
  arrival_at: string;
  departure_at: string;
  sequence: number;
}

/** The columns of a stop identity by table: each selected under `${prefix}_${name}`. */
const IDENTITY_COLUMNS = {
  call: [
    ['id', 'stop_call_id'],
    ['stop_id', 'stop_id'],
    ['sequence', 'sequence'],
    ['arrival_at', 'arrival_at'],
    ['departure_at', 'departure_at'],
  ],
  stop: [
    ['name_ar', 'name_ar'],
    ['name_en', 'name_en'],
    ['kind', 'kind'],
    ['latitude', 'latitude'],
    ['longitude', 'longitude'],
    ['city_id', 'city_id'],
  ],
  city: [
    ['name_ar', 'city_name_ar'],
    ['name_en', 'city_name_en'],
  ],
} as const;

/** Columns to select for a stop call `sc` joined to its stop `s` and city `ci`, under a prefix. */
export function stopIdentityColumns(prefix: string, call = 'sc', stop = 's', city = 'ci'): string {
  const aliases = { call, stop, city };
  return (['call', 'stop', 'city'] as const)
    .flatMap((table) =>
      IDENTITY_COLUMNS[table].map(([column, name]) => `${aliases[table]}.${column} as ${prefix}_${name}`),
    )
    .join(', ');
}

type TextColumn =
  | 'stop_call_id'
  | 'stop_id'
  | 'name_ar'
  | 'name_en'
  | 'kind'
  | 'city_id'
  | 'city_name_ar'
  | 'city_name_en'
  /** timestamptz: PostgreSQL text from the pool, JSON text inside row_to_json. */
  | 'arrival_at'
  | 'departure_at';
type NumberColumn = 'sequence' | 'latitude' | 'longitude';

/** The columns stopIdentityColumns(prefix) selects, as pg returns them. */
export type StopIdentityRow<P extends string> = Record<`${P}_${TextColumn}`, string> &
  Record<`${P}_${NumberColumn}`, number>;

/** The same columns from outer joins: all null when there is no such stop call. */
export type OptionalStopIdentityRow<P extends string> = Record<`${P}_${TextColumn}`, string | null> &
  Record<`${P}_${NumberColumn}`, number | null>;

/** Whether the outer-joined stop call under `prefix` exists. */
export function hasStopIdentity<P extends string>(
  row: OptionalStopIdentityRow<P>,
  prefix: P,
): row is OptionalStopIdentityRow<P> & StopIdentityRow<P> {
  const ids: Record<`${P}_stop_call_id`, string | null> = row;
  return ids[`${prefix}_stop_call_id`] !== null;
}

/** A UTC timestamp as PostgreSQL writes it, as text ("2026-11-25 05:00:00+00") or in JSON ("...T05:00:00.5+00:00"). */
const UTC_TIMESTAMP = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00(?::00)?$/;

/**
 * The API speaks ISO 8601 UTC (as Date#toISOString writes it, milliseconds truncated). A UTC
 * timestamp is rewritten as text, a tenth of the cost of parsing a Date (search names dozens of
 * stop calls per answer); any other offset goes through Date.
 */
export function iso(timestamp: string): string {
  const utc = UTC_TIMESTAMP.exec(timestamp);
  if (!utc) return new Date(timestamp).toISOString();
  return `${utc[1]}T${utc[2]}.${`${utc[3] ?? ''}000`.slice(0, 3)}Z`;
}

/** The column names of a prefix, built once per prefix: a row is read by these keys. */
type IdentityKeys<P extends string> = { [C in TextColumn | NumberColumn]: `${P}_${C}` };

const identityKeys = new Map<string, IdentityKeys<string>>();

function keysOf<P extends string>(prefix: P): IdentityKeys<P> {
  let keys = identityKeys.get(prefix);
  if (!keys) {
    const columns = Object.values(IDENTITY_COLUMNS).flatMap((table) => table.map(([, name]) => name));
    keys = Object.fromEntries(columns.map((name) => [name, `${prefix}_${name}`])) as IdentityKeys<string>;
    identityKeys.set(prefix, keys);
  }
  return keys as IdentityKeys<P>;
}

/** Builds the StopIdentity from a row selected with stopIdentityColumns(prefix). */
export function toStopIdentity<P extends string>(row: StopIdentityRow<P>, prefix: P): StopIdentity {
  const texts: Record<`${P}_${TextColumn}`, string> = row;
  const numbers: Record<`${P}_${NumberColumn}`, number> = row;
  const keys = keysOf(prefix);
  return {
    stop_call_id: texts[keys.stop_call_id],
    stop_id: texts[keys.stop_id],
    id: texts[keys.stop_call_id],
    name_ar: texts[keys.name_ar],
    name_en: texts[keys.name_en],
    kind: texts[keys.kind],
    city_id: texts[keys.city_id],
    city_name_ar: texts[keys.city_name_ar],
    city_name_en: texts[keys.city_name_en],
    latitude: numbers[keys.latitude],
    longitude: numbers[keys.longitude],
    arrival_at: iso(texts[keys.arrival_at]),
    departure_at: iso(texts[keys.departure_at]),
    sequence: numbers[keys.sequence],
  };
}
