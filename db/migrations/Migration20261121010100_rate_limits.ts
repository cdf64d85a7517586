import { Migration } from '@mikro-orm/migrations';

/**
 * Shared rate-limit counters (api/http/rate-limit.ts, rate-limiter-flexible's PostgreSQL store):
 * one row per limiter name and key. Unlogged: counters are worth nothing after a crash and
 * skipping the WAL keeps every limited request cheap.
 */
export class Migration20261121010100_rate_limits extends Migration {
  override up(): void {
    this.addSql(`
      create unlogged table if not exists rate_limits (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      )`);
    this.addSql(`create index if not exists rate_limits_expire_idx on rate_limits (expire)`);
  }

  override down(): void {
    this.addSql(`drop table if exists rate_limits`);
  }
}
