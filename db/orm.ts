import { MikroORM, defineConfig, type EntityManager } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import type { Config } from '../config/index.js';
import { allEntities } from './entities/index.js';
import { prepared } from './prepared.js';
import { Migration20261121000000_catalogue } from './migrations/Migration20261121000000_catalogue.js';
import { Migration20261121010000_quotes } from './migrations/Migration20261121010000_quotes.js';
import { Migration20261121010100_rate_limits } from './migrations/Migration20261121010100_rate_limits.js';
import { Migration20261121010200_search_tuning } from './migrations/Migration20261121010200_search_tuning.js';
import { Migration20261121020000_identity } from './migrations/Migration20261121020000_identity.js';
import { Migration20261121030000_otp } from './migrations/Migration20261121030000_otp.js';
import { Migration20261121031000_email } from './migrations/Migration20261121031000_email.js';
import { Migration20261121034000_admin } from './migrations/Migration20261121034000_admin.js';
import { Migration20261121040000_journeys } from './migrations/Migration20261121040000_journeys.js';
import { Migration20261122050000_bookings } from './migrations/Migration20261122050000_bookings.js';
import { Migration20261122051000_loyalty } from './migrations/Migration20261122051000_loyalty.js';
import { Migration20261122052000_payments } from './migrations/Migration20261122052000_payments.js';
import { Migration20261122055000_booking_changes } from './migrations/Migration20261122055000_booking_changes.js';
import { Migration20261122060000_documents } from './migrations/Migration20261122060000_documents.js';
import { Migration20261122060500_receipts } from './migrations/Migration20261122060500_receipts.js';
import { Migration20261122061000_document_shares } from './migrations/Migration20261122061000_document_shares.js';

/** Migrations in the order they apply; each new file is added here. */
export const migrationsList = [
  { name: 'Migration20261121000000_catalogue', class: Migration20261121000000_catalogue },
  { name: 'Migration20261121010000_quotes', class: Migration20261121010000_quotes },
  { name: 'Migration20261121010100_rate_limits', class: Migration20261121010100_rate_limits },
  { name: 'Migration20261121010200_search_tuning', class: Migration20261121010200_search_tuning },
  { name: 'Migration20261121020000_identity', class: Migration20261121020000_identity },
  { name: 'Migration20261121030000_otp', class: Migration20261121030000_otp },
  { name: 'Migration20261121031000_email', class: Migration20261121031000_email },
  { name: 'Migration20261121034000_admin', class: Migration20261121034000_admin },
  { name: 'Migration20261121040000_journeys', class: Migration20261121040000_journeys },
  { name: 'Migration20261122050000_bookings', class: Migration20261122050000_bookings },
  { name: 'Migration20261122051000_loyalty', class: Migration20261122051000_loyalty },
  { name: 'Migration20261122052000_payments', class: Migration20261122052000_payments },
  { name: 'Migration20261122055000_booking_changes', class: Migration20261122055000_booking_changes },
  { name: 'Migration20261122060000_documents', class: Migration20261122060000_documents },
  { name: 'Migration20261122060500_receipts', class: Migration20261122060500_receipts },
  { name: 'Migration20261122061000_document_shares', class: Migration20261122061000_document_shares },
];

export function ormConfig(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX'>) {
  return defineConfig({
    clientUrl: config.DATABASE_URL,
    entities: allEntities,
    pool: { min: 0, max: config.DATABASE_POOL_MAX },
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false },
    discovery: { warnWhenNoEntities: false },
    debug: false,
    allowGlobalContext: false,
  });
}

export interface Database {
  orm: MikroORM;
  /** The pg pool behind the ORM: one pool per process, shared by entity work and plain SQL. */
  pool: Pool;
  /** Runs parameterized SQL ($1, $2...) and returns the rows. For the read queries in db/queries. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `work` inside one transaction (READ COMMITTED), committing on success. */
  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
  /** A fresh EntityManager for one unit of work (a request or an activity). */
  fork(): EntityManager;
  close(): Promise<void>;
}

export async function initDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX'>,
): Promise<Database> {
  const orm = await MikroORM.init(ormConfig(config));
  const pool = await orm.em.getConnection().getNativeClient();
  return {
    orm,
    pool,
    query: async <Row>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as Row[],
    transaction: async <T>(work: (client: PoolClient) => Promise<T>) => {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work(preparing(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    fork: () => orm.em.fork(),
    close: () => orm.close(true),
  };
}

/**
 * The transaction's connection, with every parameterized statement sent as a named prepared
 * statement (db/prepared.ts): a write transaction runs a fixed set of texts, and planning them
 * again on every run cost PostgreSQL more than executing them (the journey flow spent 16 s
 * planning against 12 s executing in one benchmark run). A text without parameters, or a query
 * already given as a config object, goes through unchanged.
 */
function preparing(client: PoolClient): PoolClient {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return (text: unknown, values?: unknown, ...rest: unknown[]) =>
        typeof text === 'string' && Array.isArray(values) && values.length > 0
          ? query(prepared(text, values), ...rest)
          : query(text, values, ...rest);
    },
  });
}

export async function migrate(database: Database): Promise<string[]> {
  const applied = await database.orm.migrator.up();
  return applied.map((migration) => migration.name);
}
