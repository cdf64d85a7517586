/**
 * The database of one process: the ORM and its pg pool, shared by entity work and plain SQL.
 *
 * The ORM's role (written down with the entities in db/entities/index.ts): entities describe
 * every table; CRUD-style writes of the dashboard and the administration use an EntityManager
 * fork, inside `transaction` through `client.em` when the same transaction writes plain SQL too
 * (an audit row, a lock), or `fork()` + `em.transactional` on their own; the hot paths (search,
 * holds, bookings, journeys) stay hand-tuned SQL with typed row mappers, sent as prepared
 * statements inside `transaction`.
 */
import { MikroORM, defineConfig, type EntityManager } from '@mikro-orm/postgresql';
import { Kysely, PostgresDialect } from 'kysely';
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
import { Migration20261124000000_operations_foundation } from './migrations/Migration20261124000000_operations_foundation.js';
import { Migration20261124010000_planning } from './migrations/Migration20261124010000_planning.js';
import { Migration20261124020000_trip_operations } from './migrations/Migration20261124020000_trip_operations.js';
import { Migration20261124030000_finance } from './migrations/Migration20261124030000_finance.js';
import { Migration20261124040000_insight } from './migrations/Migration20261124040000_insight.js';
import { Migration20261124050000_admin_console } from './migrations/Migration20261124050000_admin_console.js';
import { Migration20261124060000_webhooks } from './migrations/Migration20261124060000_webhooks.js';
import { Migration20261125020000_hold_owner_index } from './migrations/Migration20261125020000_hold_owner_index.js';
import { Migration20261126030000_webhook_first_attempts } from './migrations/Migration20261126030000_webhook_first_attempts.js';
import { Migration20261127010000_booking_stats_plpgsql } from './migrations/Migration20261127010000_booking_stats_plpgsql.js';
import { Migration20261128010000_unpaid_owner_index } from './migrations/Migration20261128010000_unpaid_owner_index.js';
import { Migration20261202010000_journey_lookup_indexes } from './migrations/Migration20261202010000_journey_lookup_indexes.js';
import { Migration20261203010000_overdue_decisions_index } from './migrations/Migration20261203010000_overdue_decisions_index.js';
import { Migration20261203020000_quote_keys_per_traveller } from './migrations/Migration20261203020000_quote_keys_per_traveller.js';
import { Migration20261204010000_outbox_event_time } from './migrations/Migration20261204010000_outbox_event_time.js';
import { Migration20261204030000_credential_revocations_list_index } from './migrations/Migration20261204030000_credential_revocations_list_index.js';
import { Migration20261204040000_trip_positions_report_order } from './migrations/Migration20261204040000_trip_positions_report_order.js';
import { Migration20261204060000_loyalty_refund_reversal } from './migrations/Migration20261204060000_loyalty_refund_reversal.js';
import { Migration20261204070000_loyalty_referral_pairs } from './migrations/Migration20261204070000_loyalty_referral_pairs.js';
import { Migration20261204080000_identity_one_subject_per_provider } from './migrations/Migration20261204080000_identity_one_subject_per_provider.js';
import { Migration20261204090000_seat_lock_labels } from './migrations/Migration20261204090000_seat_lock_labels.js';
import { Migration20261205010000_schedule_skipped_departures } from './migrations/Migration20261205010000_schedule_skipped_departures.js';
import { Migration20261205030000_history_write_time } from './migrations/Migration20261205030000_history_write_time.js';
import { Migration20261205100000_webhook_subscription_history } from './migrations/Migration20261205100000_webhook_subscription_history.js';
import { Migration20261205110000_staff_session_surface } from './migrations/Migration20261205110000_staff_session_surface.js';
import { Migration20261206030000_trips_company_departure_index } from './migrations/Migration20261206030000_trips_company_departure_index.js';
import { Migration20261206050000_voucher_forfeited_at } from './migrations/Migration20261206050000_voucher_forfeited_at.js';
import { Migration20261206060000_list_page_indexes } from './migrations/Migration20261206060000_list_page_indexes.js';
import { Migration20261206070000_no_show_pending_lines } from './migrations/Migration20261206070000_no_show_pending_lines.js';
import { Migration20261206142100_compensation_revocation_reason } from './migrations/Migration20261206142100_compensation_revocation_reason.js';
import { Migration20261206145900_driver_cash_collection } from './migrations/Migration20261206145900_driver_cash_collection.js';
import { Migration20261206184500_unlinked_identities } from './migrations/Migration20261206184500_unlinked_identities.js';
import { Migration20261206185000_legacy_bus_layouts } from './migrations/Migration20261206185000_legacy_bus_layouts.js';
import { Migration20261206185700_credential_revocations_company } from './migrations/Migration20261206185700_credential_revocations_company.js';
import { Migration20261206190000_suspension_request_reason } from './migrations/Migration20261206190000_suspension_request_reason.js';
import { Migration20261206200000_frequency_recounts_due } from './migrations/Migration20261206200000_frequency_recounts_due.js';
import { Migration20261207000000_trip_earning_terms } from './migrations/Migration20261207000000_trip_earning_terms.js';
import { Migration20261207001000_stretch_occupancy } from './migrations/Migration20261207001000_stretch_occupancy.js';
import { Migration20261208000000_audit_row_kinds } from './migrations/Migration20261208000000_audit_row_kinds.js';
import { Migration20261208020000_booking_seat_order } from './migrations/Migration20261208020000_booking_seat_order.js';
import { Migration20261208030000_loyalty_booking_index } from './migrations/Migration20261208030000_loyalty_booking_index.js';
import { Migration20261209000000_name_key } from './migrations/Migration20261209000000_name_key.js';
import { Migration20261210000000_contact_forms } from './migrations/Migration20261210000000_contact_forms.js';
import { Migration20261211000000_plate_digits } from './migrations/Migration20261211000000_plate_digits.js';

/** Migrations in the order they apply; each new file is added here. */
const MIGRATIONS = [
  Migration20261121000000_catalogue,
  Migration20261121010000_quotes,
  Migration20261121010100_rate_limits,
  Migration20261121010200_search_tuning,
  Migration20261121020000_identity,
  Migration20261121030000_otp,
  Migration20261121031000_email,
  Migration20261121034000_admin,
  Migration20261121040000_journeys,
  Migration20261122050000_bookings,
  Migration20261122051000_loyalty,
  Migration20261122052000_payments,
  Migration20261122055000_booking_changes,
  Migration20261122060000_documents,
  Migration20261122060500_receipts,
  Migration20261122061000_document_shares,
  Migration20261124000000_operations_foundation,
  Migration20261124010000_planning,
  Migration20261124020000_trip_operations,
  Migration20261124030000_finance,
  Migration20261124040000_insight,
  Migration20261124050000_admin_console,
  Migration20261124060000_webhooks,
  Migration20261125020000_hold_owner_index,
  Migration20261126030000_webhook_first_attempts,
  Migration20261127010000_booking_stats_plpgsql,
  Migration20261128010000_unpaid_owner_index,
  Migration20261202010000_journey_lookup_indexes,
  Migration20261203010000_overdue_decisions_index,
  Migration20261203020000_quote_keys_per_traveller,
  Migration20261204010000_outbox_event_time,
  Migration20261204030000_credential_revocations_list_index,
  Migration20261204040000_trip_positions_report_order,
  Migration20261204060000_loyalty_refund_reversal,
  Migration20261204070000_loyalty_referral_pairs,
  Migration20261204080000_identity_one_subject_per_provider,
  Migration20261204090000_seat_lock_labels,
  Migration20261205010000_schedule_skipped_departures,
  Migration20261205030000_history_write_time,
  Migration20261205100000_webhook_subscription_history,
  Migration20261205110000_staff_session_surface,
  Migration20261206030000_trips_company_departure_index,
  Migration20261206050000_voucher_forfeited_at,
  Migration20261206060000_list_page_indexes,
  Migration20261206070000_no_show_pending_lines,
  Migration20261206142100_compensation_revocation_reason,
  Migration20261206145900_driver_cash_collection,
  Migration20261206184500_unlinked_identities,
  Migration20261206185000_legacy_bus_layouts,
  Migration20261206185700_credential_revocations_company,
  Migration20261206190000_suspension_request_reason,
  Migration20261206200000_frequency_recounts_due,
  Migration20261207000000_trip_earning_terms,
  Migration20261207001000_stretch_occupancy,
  Migration20261208000000_audit_row_kinds,
  Migration20261208020000_booking_seat_order,
  Migration20261208030000_loyalty_booking_index,
  Migration20261209000000_name_key,
  Migration20261210000000_contact_forms,
  Migration20261211000000_plate_digits,
];

/** Each migration is recorded (mikro_orm_migrations.name) under its class's name, which is its file's name. */
export const migrationsList = MIGRATIONS.map((migration) => ({ name: migration.name, class: migration }));

/**
 * What a pool is made from. DATABASE_POOL_ACQUIRE_TIMEOUT_MS bounds the wait for a connection (a
 * free one, or a new one connecting): past it pg-pool fails the query with "timeout exceeded when
 * trying to connect", which the API answers 503 with Retry-After (api/http/unavailable.ts) instead of
 * hanging while every connection is taken. Left out (a test's or a benchmark's own pool), it waits.
 */
export type PoolSettings = Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX'> &
  Partial<Pick<Config, 'DATABASE_POOL_ACQUIRE_TIMEOUT_MS'>>;

export function ormConfig(config: PoolSettings) {
  return defineConfig({
    clientUrl: config.DATABASE_URL,
    entities: allEntities,
    pool: { min: 0, max: config.DATABASE_POOL_MAX },
    // pg reads the whole URL, so its parameters (sslmode, application_name, options, ...) apply:
    // MikroORM's own parsing keeps only the host, port, user, password, database and schema.
    driverOptions: {
      connectionString: config.DATABASE_URL,
      ...(config.DATABASE_POOL_ACQUIRE_TIMEOUT_MS
        ? { connectionTimeoutMillis: config.DATABASE_POOL_ACQUIRE_TIMEOUT_MS }
        : {}),
    },
    extensions: [Migrator],
    // Silent: callers say what was applied (scripts/migrate.ts, scripts/seed.ts), tests say nothing.
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    discovery: { warnWhenNoEntities: false },
    debug: false,
    allowGlobalContext: false,
  });
}

/** The connection of one open transaction. */
export interface TransactionClient extends PoolClient {
  /**
   * An EntityManager fork whose queries run on this connection: what it flushes commits or rolls
   * back with the transaction's plain SQL. Made on first use, one per transaction. Flush it before
   * the transaction's work returns; `em.transactional` is not for it (the transaction is open).
   */
  readonly em: EntityManager;
}

export interface TransactionOptions {
  /**
   * Every statement of the transaction runs on a generic plan (`plan_cache_mode`), set in the same
   * round trip as its BEGIN: see db/writes/journeys/scope.ts `journeyTransaction`.
   */
  genericPlans?: boolean;
  /**
   * A read-only REPEATABLE READ transaction: every statement reads the snapshot its first one took,
   * so figures read by several statements add up while writes go on (db/sql-runner.ts inOneSnapshot).
   */
  readOnlySnapshot?: boolean;
}

export interface Database {
  orm: MikroORM;
  /** The pg pool behind the ORM: one pool per process, shared by entity work and plain SQL. */
  pool: Pool;
  /** Runs parameterized SQL ($1, $2...) and returns the rows. For the read queries in db/queries. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `work` inside one transaction (READ COMMITTED), committing on success. */
  transaction<T>(work: (client: TransactionClient) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** A fresh EntityManager for one unit of work of entities alone (a request or an activity). */
  fork(): EntityManager;
  close(): Promise<void>;
}

export interface InitDatabaseOptions {
  /**
   * Whether an error of the first connection says PostgreSQL does not answer yet rather than that a
   * setting is wrong. When it does, the database is returned all the same: its pool connects on
   * first use, so what needs PostgreSQL fails until the server is back (an API process starts and
   * answers 503 meanwhile). Without it, or for any other error, initDatabase rejects.
   */
  unreachable?: (error: unknown) => boolean;
}

export async function initDatabase(
  config: PoolSettings,
  options: InitDatabaseOptions = {},
): Promise<Database> {
  const orm = await MikroORM.init(ormConfig(config));
  const connection = orm.em.getConnection();
  let pool: Pool;
  try {
    // Makes the pool and runs MikroORM's on-connect check (a statement: the database exists).
    pool = await connection.getNativeClient();
  } catch (error) {
    if (!options.unreachable?.(error)) throw error;
    // The pool without the check: its first query connects.
    await connection.connect({ skipOnConnect: true });
    pool = await connection.getNativeClient();
  }
  return {
    orm,
    pool,
    // The one place a row type is taken on trust: each query declares the row its SQL returns.
    query: async <Row>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as Row[],
    transaction: async <T>(
      work: (client: TransactionClient) => Promise<T>,
      options: TransactionOptions = {},
    ) => {
      const client = await pool.connect();
      try {
        const begin = options.readOnlySnapshot ? 'begin isolation level repeatable read read only' : 'begin';
        await client.query(
          options.genericPlans ? `${begin}; set local plan_cache_mode = force_generic_plan` : begin,
        );
        const result = await work(transactionClient(orm, client));
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
 * already given as a config object, goes through unchanged. `em` is made on first use.
 */
function transactionClient(orm: MikroORM, client: PoolClient): TransactionClient {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let em: EntityManager | undefined;
  const proxy = new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'em') return (em ??= entityManagerOn(orm, client));
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return (text: unknown, values?: unknown, ...rest: unknown[]) =>
        typeof text === 'string' && Array.isArray(values) && values.length > 0
          ? query(prepared(text, values), ...rest)
          : query(text, values, ...rest);
    },
  });
  return proxy as TransactionClient;
}

/**
 * An EntityManager fork bound to a connection that already has a transaction open: its
 * transaction context is a Kysely instance (the query layer MikroORM runs on) over that one
 * connection, so its finds and flushes join the transaction instead of taking a pooled connection
 * of their own. Kysely hands a connection back after each query; this one stays with the
 * transaction, which releases it.
 */
function entityManagerOn(orm: MikroORM, client: PoolClient): EntityManager {
  const connection = new Proxy(client, {
    get: (target, property, receiver) =>
      property === 'release' ? () => undefined : (Reflect.get(target, property, receiver) as unknown),
  });
  const pool = { connect: async () => connection, end: async () => undefined, options: {} };
  const em = orm.em.fork();
  em.setTransactionContext(new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) }));
  return em;
}

export async function migrate(database: Database): Promise<string[]> {
  const applied = await database.orm.migrator.up();
  return applied.map((migration) => migration.name);
}
