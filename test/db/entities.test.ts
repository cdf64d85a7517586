import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { initDatabase, type Database } from '../../db/orm.js';

/**
 * The entities in db/entities are the schema's description in code, and the migrations are what
 * the database really is. This reads the migrated test database (information_schema and
 * pg_catalog) and holds every entity to it: one entity per table, one property per column, with
 * the same type, nullability, primary key and, for enum properties, the values the column's check
 * allows. The migrator's schema diff is not used: the hand-written SQL (exclusion constraints,
 * partial and expression indexes, checks, a trigger) would show up as differences the entities
 * have no way to describe.
 */

interface ColumnRow {
  table_name: string;
  column_name: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
}

interface KeyColumnRow {
  table_name: string;
  column_name: string;
}

interface CheckRow {
  table_name: string;
  column_name: string;
  definition: string;
}

/** What a property says about one of its columns. */
interface DescribedColumn {
  property: string;
  table: string;
  column: string;
  type: string;
  nullable: boolean;
  primary: boolean;
  enumItems: string[] | null;
}

const MIGRATIONS_TABLE = 'mikro_orm_migrations';

/** A column type as MikroORM writes it, in PostgreSQL's own spelling (information_schema's udt_name). */
const TYPE_NAMES: Record<string, string> = {
  int: 'int4',
  serial: 'int4',
  bigserial: 'int8',
  integer: 'int4',
  int4: 'int4',
  bigint: 'int8',
  int8: 'int8',
  smallint: 'int2',
  'double precision': 'float8',
  double: 'float8',
  float8: 'float8',
  boolean: 'bool',
  bool: 'bool',
  timestamptz: 'timestamptz',
  'timestamp with time zone': 'timestamptz',
  varchar: 'varchar',
  'character varying': 'varchar',
  text: 'text',
  uuid: 'uuid',
  json: 'json',
  jsonb: 'jsonb',
  bytea: 'bytea',
  date: 'date',
};

function pgTypeName(columnType: string): string {
  const bare = columnType.toLowerCase().replace(/\(\d+(,\s*\d+)?\)/g, '');
  if (bare.endsWith('[]')) return `_${pgTypeName(bare.slice(0, -2))}`;
  return TYPE_NAMES[bare] ?? `unknown:${bare}`;
}

function describedColumns(meta: EntityMetadata): DescribedColumn[] {
  const stored = meta.props.filter(
    (prop: EntityProperty) => prop.persist !== false && (prop.fieldNames?.length ?? 0) > 0,
  );
  return stored.flatMap((prop) =>
    prop.fieldNames.map((column, index) => ({
      property: `${meta.className}.${prop.name}`,
      table: meta.tableName,
      column,
      type: pgTypeName(prop.columnTypes[index] ?? ''),
      nullable: prop.nullable === true,
      primary: prop.primary === true,
      enumItems: prop.enum ? (prop.items ?? []).map(String).sort() : null,
    })),
  );
}

/** The string literals of the checks on one column alone: the values an enum column allows. */
function allowedValues(definitions: string[]): string[] {
  const values = definitions.flatMap((definition) =>
    [...definition.matchAll(/'((?:[^']|'')*)'::text/g)].map((match) => match[1]!.replaceAll("''", "'")),
  );
  return [...new Set(values)].sort();
}

describe('entities and the migrated schema', () => {
  let db: Database;
  let entities: EntityMetadata[];
  let columns: ColumnRow[];
  let primaryKeys: KeyColumnRow[];
  let checks: CheckRow[];

  beforeAll(async () => {
    db = await initDatabase({ ...loadConfig(), DATABASE_POOL_MAX: 1 });
    entities = [...db.orm.getMetadata().getAll().values()].filter(
      (meta) => !meta.abstract && !meta.embeddable && !meta.virtual,
    );
    columns = await db.query<ColumnRow>(
      `select table_name::text, column_name::text, udt_name::text, is_nullable::text
       from information_schema.columns where table_schema = 'public' and table_name <> $1
       order by table_name, ordinal_position`,
      [MIGRATIONS_TABLE],
    );
    primaryKeys = await db.query<KeyColumnRow>(
      `select c.conrelid::regclass::text as table_name, a.attname::text as column_name
       from pg_constraint c
       join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
       where c.contype = 'p' and c.connamespace = 'public'::regnamespace and c.conrelid <> $1::regclass`,
      [MIGRATIONS_TABLE],
    );
    checks = await db.query<CheckRow>(
      `select c.conrelid::regclass::text as table_name, a.attname::text as column_name,
              pg_get_constraintdef(c.oid) as definition
       from pg_constraint c
       join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
       where c.contype = 'c' and c.connamespace = 'public'::regnamespace and cardinality(c.conkey) = 1`,
    );
  });

  afterAll(async () => {
    await db?.close();
  });

  it('has exactly one entity for every table, and a table for every entity', () => {
    const tables = [...new Set(columns.map((column) => column.table_name))].sort();
    const described = entities.map((meta) => meta.tableName).sort();
    expect(described).toEqual(tables);
    expect(tables.length).toBeGreaterThan(50);
  });

  it('maps every property to a column of the same type and nullability', () => {
    const byName = new Map(columns.map((column) => [`${column.table_name}.${column.column_name}`, column]));
    const problems = entities.flatMap(describedColumns).flatMap((described) => {
      const column = byName.get(`${described.table}.${described.column}`);
      if (!column) return [`${described.property}: no column ${described.table}.${described.column}`];
      const found: string[] = [];
      if (column.udt_name !== described.type)
        found.push(`${described.property}: type ${described.type}, column is ${column.udt_name}`);
      if ((column.is_nullable === 'YES') !== described.nullable)
        found.push(
          `${described.property}: nullable ${described.nullable}, column is_nullable ${column.is_nullable}`,
        );
      return found;
    });
    expect(problems).toEqual([]);
  });

  it('describes every column of every table by a property', () => {
    const described = new Set(
      entities.flatMap(describedColumns).map((column) => `${column.table}.${column.column}`),
    );
    const undescribed = columns
      .map((column) => `${column.table_name}.${column.column_name}`)
      .filter((name) => !described.has(name));
    expect(undescribed).toEqual([]);
  });

  it('has the primary key of its table, composite keys included', () => {
    const keyOf = (rows: { table: string; column: string }[]) => {
      const keys = new Map<string, string[]>();
      for (const row of rows) keys.set(row.table, [...(keys.get(row.table) ?? []), row.column].sort());
      return Object.fromEntries([...keys].sort(([a], [b]) => a.localeCompare(b)));
    };
    const declared = entities.flatMap(describedColumns).filter((column) => column.primary);
    const actual = primaryKeys.map((row) => ({ table: row.table_name, column: row.column_name }));
    expect(keyOf(declared)).toEqual(keyOf(actual));
  });

  it("lists for each enum property exactly the values its column's check allows", () => {
    const enumColumns = entities.flatMap(describedColumns).filter((column) => column.enumItems);
    expect(enumColumns.length).toBeGreaterThan(40);
    const problems = enumColumns.flatMap((column) => {
      const definitions = checks
        .filter((check) => check.table_name === column.table && check.column_name === column.column)
        .map((check) => check.definition);
      const allowed = allowedValues(definitions);
      return JSON.stringify(allowed) === JSON.stringify(column.enumItems)
        ? []
        : [
            `${column.property}: enum ${JSON.stringify(column.enumItems)}, check allows ${JSON.stringify(allowed)}`,
          ];
    });
    expect(problems).toEqual([]);
  });
});
