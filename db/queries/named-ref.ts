import type { NamedRef } from './catalogue.js';

/** The columns of a city or company selected under a prefix: `<prefix>_id`, `<prefix>_name_ar`, `<prefix>_name_en`. */
export type NamedRefColumns<P extends string> = Record<`${P}_id` | `${P}_name_ar` | `${P}_name_en`, string>;

/** The city or company a row names under `prefix`, as nested in other records. */
export function namedRefOf<P extends string>(row: NamedRefColumns<P>, prefix: P): NamedRef {
  return { id: row[`${prefix}_id`], name_ar: row[`${prefix}_name_ar`], name_en: row[`${prefix}_name_en`] };
}
