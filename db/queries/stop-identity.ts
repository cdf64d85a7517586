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

/** Columns to select for a stop call `sc` joined to its stop `s` and city `ci`, under a prefix. */
export function stopIdentityColumns(prefix: string, call = 'sc', stop = 's', city = 'ci'): string {
  return [
    `${call}.id as ${prefix}_stop_call_id`,
    `${call}.stop_id as ${prefix}_stop_id`,
    `${call}.sequence as ${prefix}_sequence`,
    `${call}.arrival_at as ${prefix}_arrival_at`,
    `${call}.departure_at as ${prefix}_departure_at`,
    `${stop}.name_ar as ${prefix}_name_ar`,
    `${stop}.name_en as ${prefix}_name_en`,
    `${stop}.kind as ${prefix}_kind`,
    `${stop}.latitude as ${prefix}_latitude`,
    `${stop}.longitude as ${prefix}_longitude`,
    `${stop}.city_id as ${prefix}_city_id`,
    `${city}.name_ar as ${prefix}_city_name_ar`,
    `${city}.name_en as ${prefix}_city_name_en`,
  ].join(', ');
}

/** Builds the StopIdentity from a row selected with stopIdentityColumns(prefix). */
export function toStopIdentity(row: Record<string, unknown>, prefix: string): StopIdentity {
  const get = (name: string) => row[`${prefix}_${name}`];
  // The pool returns timestamptz as PostgreSQL text ("2026-11-25 05:00:00+00"); the API speaks ISO 8601 UTC.
  const iso = (value: unknown) => new Date(value as string | Date).toISOString();
  return {
    stop_call_id: get('stop_call_id') as string,
    stop_id: get('stop_id') as string,
    id: get('stop_call_id') as string,
    name_ar: get('name_ar') as string,
    name_en: get('name_en') as string,
    kind: get('kind') as string,
    city_id: get('city_id') as string,
    city_name_ar: get('city_name_ar') as string,
    city_name_en: get('city_name_en') as string,
    latitude: Number(get('latitude')),
    longitude: Number(get('longitude')),
    arrival_at: iso(get('arrival_at')),
    departure_at: iso(get('departure_at')),
    sequence: Number(get('sequence')),
  };
}
