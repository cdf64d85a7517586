import { Migration } from '@mikro-orm/migrations';

/**
 * What journey search (db/queries/search.ts) needs from the database besides the catalogue.
 *
 * A covering (trip_id, sequence) index: search reads the calls of hundreds of trips per
 * connection search, and with every column it needs in the index each trip costs one index
 * descent and no heap visit.
 *
 * JIT compilation off for this database: the service's reads are short index-driven statements;
 * journey search carries cost estimates for branches it rarely runs, crosses jit_above_cost and
 * would then spend 100-200 ms compiling a statement that runs in about a millisecond. Without the
 * right to alter the database (a managed service may refuse it) the setting is left alone and
 * the operator sets jit = off for the application role instead.
 */
export class Migration20261121010200_search_tuning extends Migration {
  override up(): void {
    this.addSql(`create index trip_stop_calls_trip_covering_idx on trip_stop_calls (trip_id, sequence)
      include (id, stop_id, city_id, arrival_at, departure_at, fare_share_bp)`);
    this.addSql(`
      do $$
      begin
        execute format('alter database %I set jit = off', current_database());
      exception when insufficient_privilege then
        raise notice 'jit left unchanged: not allowed to alter database %', current_database();
      end
      $$`);
  }

  override down(): void {
    this.addSql(`drop index if exists trip_stop_calls_trip_covering_idx`);
    this.addSql(`do $$ begin execute format('alter database %I reset jit', current_database()); end $$`);
  }
}
