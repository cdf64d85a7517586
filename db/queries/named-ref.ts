import type { NamedRef } from './catalogue.js';

/** The columns of a city or company selected under a prefix: `<prefix>_id`, `<prefix>_name_ar`, `<prefix>_name_en`. */
export type NamedRefColumns<P extends string> = Record<`${P}_id` | `${P}_name_ar` | `${P}_name_en`, string>;

/** The city or company a row names under `prefix`, as nested in other records. */
export function namedRefOf<P extends string>(row: NamedRefColumns<P>, prefix: P): NamedRef {
  return { id: row[`${prefix}_id`], name_ar: row[`${prefix}_name_ar`], name_en: row[`${prefix}_name_en`] };
}

/** The select list of NamedRefColumns<prefix> from the table aliased `alias`. */
const namedRefColumns = (alias: string, prefix: string) =>
  `${alias}.id as ${prefix}_id, ${alias}.name_ar as ${prefix}_name_ar, ${alias}.name_en as ${prefix}_name_en`;

/** The company `c` as NamedRefColumns<'company'>. */
export const COMPANY_COLUMNS = namedRefColumns('c', 'company');

/**
 * The cities a trip `t` runs between by its route: `oc` (origin) and `dc` (destination), selected
 * by ROUTE_CITY_COLUMNS as NamedRefColumns<'origin' | 'destination'>.
 */
export const ROUTE_CITIES_JOIN = `join routes r on r.id = t.route_id
     join cities oc on oc.id = r.origin_city_id
     join cities dc on dc.id = r.destination_city_id`;

export const ROUTE_CITY_COLUMNS = `${namedRefColumns('oc', 'origin')},
            ${namedRefColumns('dc', 'destination')}`;

/**
 * The stretch a traveller rides, from the boarding stop call `bc` to the alighting one `ac`: the
 * cities `oc` and `dc` they lie in (STRETCH_CITIES_JOIN) and the times, as StretchColumns.
 */
export const STRETCH_COLUMNS = `oc.name_ar as origin_ar, oc.name_en as origin_en, dc.name_ar as destination_ar,
         dc.name_en as destination_en, bc.departure_at, ac.arrival_at`;

export const STRETCH_CITIES_JOIN = `join cities oc on oc.id = bc.city_id
     join cities dc on dc.id = ac.city_id`;

/** What STRETCH_COLUMNS selects; timestamptz as the pool hands it over (text). */
export interface StretchColumns {
  origin_ar: string;
  origin_en: string;
  destination_ar: string;
  destination_en: string;
  departure_at: string;
  arrival_at: string;
}
