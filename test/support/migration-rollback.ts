import { loadConfig } from '../../config/index.js';
import { initDatabase, migrationsList, type Database } from '../../db/orm.js';
import { createDatabaseIfMissing, databaseUrl, dropDatabase } from '../../scripts/lib/services.js';

/**
 * Rolling a release back and forward again on databases of the test file's own (README "Rolling
 * back"): the release's migrations, a database to run them on, and the schema as text to compare.
 */

const names = migrationsList.map((m) => m.name);
const firstOfRelease = names.indexOf('Migration20261206030000_trips_company_departure_index');

/** The newest release's migrations, oldest first: a rollback undoes every one of them. */
export const RELEASE = names.slice(firstOfRelease);

/** The last migration of the release before it: where a rollback stops. */
export const PREVIOUS_RELEASE = names[firstOfRelease - 1]!;

/** An empty database of its own (dropped first if a crashed run left it), and a way to remove it. */
export async function emptyDatabase(label: string): Promise<{ db: Database; drop: () => Promise<void> }> {
  const config = loadConfig();
  const serverUrl = databaseUrl(config.DATABASE_URL, 'postgres');
  const name = `${new URL(config.DATABASE_URL).pathname.slice(1)}_${label}_${process.pid}`;
  await dropDatabase(serverUrl, name);
  await createDatabaseIfMissing(serverUrl, name);
  const db = await initDatabase({
    ...config,
    DATABASE_URL: databaseUrl(config.DATABASE_URL, name),
    DATABASE_POOL_MAX: 2,
  });
  return {
    db,
    drop: async () => {
      await db.close();
      await dropDatabase(serverUrl, name);
    },
  };
}

/** Undoes the release's migrations one by one, newest first, then applies them all again. */
export async function rollBackAndForward(db: Database): Promise<string[]> {
  const errors: string[] = [];
  for (const migration of [...RELEASE].reverse()) {
    try {
      await db.orm.migrator.down();
    } catch (error) {
      errors.push(`down ${migration}: ${(error as Error).message}`);
      return errors;
    }
  }
  try {
    await db.orm.migrator.up();
  } catch (error) {
    errors.push(`up again: ${(error as Error).message}`);
  }
  return errors;
}

export type SchemaDump = Record<string, string[]>;

/** The public schema as sorted lines of text, by kind of object (spaces normalised). */
export async function schemaDump(db: Database): Promise<SchemaDump> {
  const rows = async (sql: string) =>
    (await db.query<{ line: string }>(sql))
      .map((row) =>
        row.line
          .replace(/\s+/g, ' ')
          .replace(/ ?([(),]) ?/g, '$1')
          .trim(),
      )
      .sort();
  return {
    tables:
      await rows(`select c.relkind::text || ' ' || c.relname as line from pg_class c join pg_namespace n on n.oid = c.relnamespace
                         where n.nspname = 'public' and c.relkind in ('r','v','m','p','S','f')`),
    columns:
      await rows(`select table_name || '.' || column_name || ' ' || udt_name || coalesce('(' || character_maximum_length || ')', '')
                            || ' null=' || is_nullable || ' default=' || coalesce(column_default, '-')
                            || ' identity=' || is_identity || ' generated=' || coalesce(generation_expression, '-') as line
                           from information_schema.columns where table_schema = 'public'`),
    constraints:
      await rows(`select cl.relname || ' ' || co.conname || ' ' || pg_get_constraintdef(co.oid) as line
                               from pg_constraint co join pg_class cl on cl.oid = co.conrelid
                               join pg_namespace n on n.oid = co.connamespace where n.nspname = 'public'`),
    indexes: await rows(`select indexdef as line from pg_indexes where schemaname = 'public'`),
    triggers:
      await rows(`select pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text as line from pg_trigger t
                            join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
                           where n.nspname = 'public' and not t.tgisinternal`),
    functions:
      await rows(`select pg_get_functiondef(p.oid) as line from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                            where n.nspname = 'public' and p.prokind in ('f','p')`),
    types:
      await rows(`select t.typname || ' ' || coalesce((select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid), '') as line
                         from pg_type t join pg_namespace n on n.oid = t.typnamespace
                        where n.nspname = 'public' and t.typtype in ('e','d','c') and not exists (select 1 from pg_class c where c.reltype = t.oid)`),
    views: await rows(
      `select viewname || ' ' || definition as line from pg_views where schemaname = 'public'`,
    ),
    extensions: await rows(`select extname as line from pg_extension`),
    policies: await rows(
      `select tablename || ' ' || policyname || ' ' || coalesce(qual, '') as line from pg_policies where schemaname = 'public'`,
    ),
    comments:
      await rows(`select c.relname || ' ' || d.objsubid || ' ' || d.description as line from pg_description d
                            join pg_class c on c.oid = d.objoid join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'`),
  };
}

/** What `after` has that `before` has not (`extra: ...`) and the other way round (`missing: ...`). */
export function schemaDiff(before: SchemaDump, after: SchemaDump): string[] {
  const out: string[] = [];
  for (const kind of Object.keys(before)) {
    const was = new Set(before[kind]);
    const is = new Set(after[kind]);
    for (const line of was) if (!is.has(line)) out.push(`${kind} missing: ${line.slice(0, 400)}`);
    for (const line of is) if (!was.has(line)) out.push(`${kind} extra: ${line.slice(0, 400)}`);
  }
  return out;
}

/**
 * Whether a line of schemaDiff is about `object`: a table (`unlinked_identities`: the table, its
 * columns, constraints and indexes) or a column (`trips.earning_points_per_100`: the column and the
 * constraints of its table that name it).
 */
export function isAbout(line: string, object: string): boolean {
  const [, kind, text = ''] = /^(\w+) (?:missing|extra): (.*)$/s.exec(line) ?? [];
  const [table, column] = object.split('.');
  if (column === undefined) {
    if (kind === 'tables') return text === `r ${table}`;
    if (kind === 'columns') return text.startsWith(`${table}.`);
    if (kind === 'constraints') return text.startsWith(`${table} `);
    if (kind === 'indexes') return text.includes(` ON public.${table} `);
    return false;
  }
  if (kind === 'columns') return text.startsWith(`${table}.${column} `);
  if (kind === 'constraints') return text.startsWith(`${table} `) && new RegExp(`\\b${column}\\b`).test(text);
  if (kind === 'indexes')
    return text.includes(` ON public.${table} `) && new RegExp(`\\b${column}\\b`).test(text);
  return false;
}
