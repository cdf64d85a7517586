/** A snake_case column name as the camelCase field the API and the domain use: `name_en` → `nameEn`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The named columns of a row as camelCase fields, with the row's types. */
export type CamelFields<Row, Key extends keyof Row & string> = {
  [K in Key as CamelCase<K>]: Row[K];
};

const camelCase = (column: string) =>
  column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/**
 * The typed row mapper for the columns that pass through unchanged: each named column under its
 * camelCase name, in the order given (so an answer's fields keep their order). Columns that need a
 * conversion (dates, bigint text, nested objects) are mapped beside it by hand.
 */
export function camelFields<Row extends object, const Key extends keyof Row & string>(
  row: Row,
  columns: readonly Key[],
): CamelFields<Row, Key> {
  const fields: Record<string, unknown> = {};
  for (const column of columns) fields[camelCase(column)] = row[column];
  return fields as CamelFields<Row, Key>;
}

/** A timestamptz column as PostgreSQL sends it (text), in the ISO 8601 UTC form the API answers with. */
export const iso = (timestamp: string): string => new Date(timestamp).toISOString();

/** `iso` for a nullable column. */
export const isoOrNull = (timestamp: string | null): string | null =>
  timestamp === null ? null : iso(timestamp);

/**
 * The typed row mapper for the columns an answer keeps under their own snake_case names: each
 * named column as it is, in the order given (`camelFields` without the renaming). Columns that
 * need a conversion or nest are mapped beside it by hand.
 */
export function pickColumns<Row extends object, const Key extends keyof Row & string>(
  row: Row,
  columns: readonly Key[],
): Pick<Row, Key> {
  const fields = {} as Pick<Row, Key>;
  for (const column of columns) fields[column] = row[column];
  return fields;
}

/**
 * The named fields of `rows` as one array each, in the order given: the parameters of a statement
 * that writes many rows at once from `unnest($n::type[], ...)`.
 */
export function columnsOf<Row extends object, const Key extends keyof Row>(
  rows: readonly Row[],
  fields: readonly Key[],
): Row[Key][][] {
  return fields.map((field) => rows.map((row) => row[field]));
}
