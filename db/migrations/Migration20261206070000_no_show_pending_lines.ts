import { Migration } from '@mikro-orm/migrations';

/**
 * Since this release a trip's COMPLETE cancels the PENDING cash lines of the bookings it makes
 * NO_SHOW (db/writes/trip-operations/trip-actions.ts closeAttendance): their cash can never be
 * collected (verify refuses a NO_SHOW booking, domain/payment.ts), so left PENDING they stayed in the
 * ledger's `outstanding` for good. Trips completed before it get the same now: the PENDING lines of
 * NO_SHOW bookings on COMPLETED trips end CANCELLED, with no `cancelled_by` (no user did it, as for a
 * line the platform ends). A booking marked no-show on a trip still boarding is left as it is (a
 * RESTORE may still bring it back). The ledger's daily rollup follows by its trigger.
 */
export const CANCEL_NO_SHOW_PENDING_LINES = `update payment_operations o
  set status = 'CANCELLED', cancelled_at = now(), updated_at = now()
  from bookings b join trips t on t.id = b.trip_id
  where o.booking_id = b.id and o.status = 'PENDING' and b.status = 'NO_SHOW' and t.status = 'COMPLETED'`;

export class Migration20261206070000_no_show_pending_lines extends Migration {
  override up(): void {
    this.addSql(CANCEL_NO_SHOW_PENDING_LINES);
  }

  override down(): void {
    // The lines cancelled here cannot be told from lines cancelled by hand afterwards; nothing to undo.
  }
}
