import { Migration } from '@mikro-orm/migrations';

/**
 * The companies whose travel frequency must be counted again, kept in the database: the
 * analytics-rollup fold marks the companies of the deltas it folds in the transaction that deletes
 * them, and a recount clears a company's mark in the transaction that stores its counts
 * (db/writes/analytics-rollup.ts). Until this release the list lived only in the fold activity's
 * answer: a fold that committed but whose completion Temporal never heard (the worker lost after the
 * COMMIT) was retried, found no delta and answered no company, and a recount that failed all its
 * attempts dropped its companies the same way; they stayed unrecounted until the horizon moved on
 * the next day. `marked_at` is the first unrecounted change's fold.
 *
 * Every company with stored counts is marked once, so counts such a lost list left behind are
 * recounted by the first run after the release (the same work as the first run of a day).
 *
 * Rolled back (README "Rolling back"), the table stays: the code before this release never reads
 * it, and the marks it holds are changes not yet recounted. Applied again, up() marks every company
 * with stored counts once more, keeping the marks (and their times) already there.
 */
export class Migration20261206200000_frequency_recounts_due extends Migration {
  override up(): void {
    this.addSql(`
      create table if not exists customer_frequency_recounts_due (
        company_id uuid primary key references companies(id),
        marked_at timestamptz not null default now()
      )`);
    this.addSql(`insert into customer_frequency_recounts_due (company_id)
                 select distinct company_id from customer_frequency_snapshots
                 on conflict (company_id) do nothing`);
  }

  override down(): void {
    // The marks stay: the code before this release never reads them (nor deletes a company they name).
  }
}
