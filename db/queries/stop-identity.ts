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

/** The API speaks ISO 8601 UTC; the pool returns timestamptz as PostgreSQL text ("2026-11-25 05:00:00+00"). */
const iso = (timestamp: string) => new Date(timestamp).toISOString();

/** Builds the StopIdentity from a row selected with stopIdentityColumns(prefix). */
export function toStopIdentity<P extends string>(row: StopIdentityRow<P>, prefix: P): StopIdentity {
  const texts: Record<`${P}_${TextColumn}`, string> = row;
  const numbers: Record<`${P}_${NumberColumn}`, number> = row;
  const text = (name: TextColumn) => texts[`${prefix}_${name}`];
  const number = (name: NumberColumn) => numbers[`${prefix}_${name}`];
  return {
    stop_call_id: text('stop_call_id'),
    stop_id: text('stop_id'),
    id: text('stop_call_id'),
    name_ar: text('name_ar'),
    name_en: text('name_en'),
    kind: text('kind'),
    city_id: text('city_id'),
    city_name_ar: text('city_name_ar'),
    city_name_en: text('city_name_en'),
    latitude: number('latitude'),
    longitude: number('longitude'),
    arrival_at: iso(text('arrival_at')),
    departure_at: iso(text('departure_at')),
    sequence: number('sequence'),
  };
}
