import { Migration } from '@mikro-orm/migrations';

/**
 * The rows that say in what order things happened are stamped when they are written, no longer at
 * their transaction's start: a company's history (company_admin_actions, which also orders the
 * notices its OWNER reads and names the suspension in force), the audit log, a ticket's messages,
 * and a ticket's updated_at (it orders support's list). Each is written after the row locks that
 * order the changes it records, so a change whose transaction began before another's but waited
 * for it (for the acting administrator's row, the company, the ticket) is stamped after it: a
 * suspension that waited behind an unsuspension no longer lists before it. Rows written before
 * keep their time.
 */
const COLUMNS = [
  ['company_admin_actions', 'created_at'],
  ['audit_log', 'created_at'],
  ['support_ticket_messages', 'created_at'],
  ['support_tickets', 'updated_at'],
] as const;

export class Migration20261205030000_history_write_time extends Migration {
  override up(): void {
    for (const [table, column] of COLUMNS) {
      this.addSql(`alter table ${table} alter column ${column} set default clock_timestamp()`);
    }
  }

  override down(): void {
    for (const [table, column] of COLUMNS) {
      this.addSql(`alter table ${table} alter column ${column} set default now()`);
    }
  }
}
