import { Migration } from '@mikro-orm/migrations';

/**
 * Audit rows about a company's people, named as the rest of the log names them, so the audit log's
 * filters (GET /audit-log?targetKind=, ?actorKind=) find them with the others:
 *
 * - The sign-ins and sign-outs of the dashboard and the driver app (STAFF_SIGNED_IN/OUT,
 *   DRIVER_SIGNED_IN/OUT) targeted their company as `COMPANY`, while every other row about a company
 *   (company.*, companies.*) says `company`; targetKind=company missed them. They are written as
 *   `company` now (api/auth/staff-sign-in.ts), and the rows written before are renamed.
 * - A driver's cash collection in the driver app (payments.driver_collection, which only the driver
 *   app writes) was filed under actorKind STAFF, while the same driver's sign-in is DRIVER; an
 *   administrator filtering actor + actorKind=DRIVER missed it. It is written as DRIVER now
 *   (db/writes/audit.ts recordDriverAudit), and the rows written before are too.
 */
export const AUDIT_ROW_KINDS = [
  `update audit_log set target_kind = 'company' where target_kind = 'COMPANY'`,
  `update audit_log set actor_kind = 'DRIVER' where action = 'payments.driver_collection' and actor_kind = 'STAFF'`,
];

export class Migration20261208000000_audit_row_kinds extends Migration {
  override up(): void {
    for (const statement of AUDIT_ROW_KINDS) this.addSql(statement);
  }

  /**
   * Only the sign-in and sign-out rows were ever written as `COMPANY`, and only the driver app
   * writes payments.driver_collection, so this restores exactly what was there.
   */
  override down(): void {
    this.addSql(
      `update audit_log set actor_kind = 'STAFF' where action = 'payments.driver_collection' and actor_kind = 'DRIVER'`,
    );
    this.addSql(
      `update audit_log set target_kind = 'COMPANY' where target_kind = 'company'
        and action in ('STAFF_SIGNED_IN', 'STAFF_SIGNED_OUT', 'DRIVER_SIGNED_IN', 'DRIVER_SIGNED_OUT')`,
    );
  }
}
