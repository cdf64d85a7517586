import { Migration } from '@mikro-orm/migrations';

/**
 * A voucher spent on several bookings (a round trip) comes back at a company's trip CANCEL only when
 * trip cancels ended them all. Whether a refund or its traveller's cancel touched one of them first
 * was read from the tickets' first credential revocation, which a compensation refund of a booking
 * whose tickets were all USED never writes. `forfeited_at` records it where it happens: set, in the
 * same transaction, by a refund (ending or compensating) or a traveller's cancel of a live booking
 * the voucher paid for (db/writes/loyalty/voucher-return.ts forfeitVouchers). A forfeited voucher
 * stays spent for good. A voucher still USED is marked now when one of its bookings shows it: one
 * kept but refunded (a compensation), or one cancelled whose tickets were first revoked by its
 * traveller's cancel or a refund (the rule this column replaces). A compensation refund of tickets
 * all USED whose trip was cancelled afterwards left no trace, and stays unmarked.
 *
 * Rolled back (README "Rolling back"), the column stays: a forfeit this release recorded (its time,
 * and the compensations the rule above cannot see) is written nowhere else, and the code before it
 * never reads the column. Only the check goes, since that code gives vouchers back without knowing
 * it. Applied again, up() adds what is missing, clears the mark of a voucher that code left no longer
 * USED (given back or cancelled meanwhile), and marks only vouchers still unmarked.
 */
export class Migration20261206050000_voucher_forfeited_at extends Migration {
  override up(): void {
    this.addSql(`alter table loyalty_redemptions add column if not exists forfeited_at timestamptz`);
    this.addSql(
      `update loyalty_redemptions set forfeited_at = null where forfeited_at is not null and status <> 'USED'`,
    );
    this.addSql(`alter table loyalty_redemptions add constraint loyalty_redemptions_forfeited_used_check
      check (forfeited_at is null or status = 'USED')`);
    this.addSql(`update loyalty_redemptions r set forfeited_at = now()
      where r.status = 'USED' and r.forfeited_at is null and exists (
        select 1 from bookings b
         where b.id = any(r.used_booking_ids)
           and ((b.status not in ('CANCELLED', 'EXPIRED') and b.payment_status = 'REFUNDED')
                or (b.status = 'CANCELLED' and (
                      select cr.reason from journey_tickets k join credential_revocations cr on cr.ticket_id = k.id
                       where k.journey_id = b.journey_id and k.trip_id = b.trip_id and k.status <> 'REISSUED'
                       order by cr.revoked_at limit 1) in ('BOOKING_CANCELLED', 'BOOKING_REFUNDED'))))`);
  }

  override down(): void {
    // The marks stay (nullable, never read before this release); only the check goes, as up() adds it.
    this.addSql(
      `alter table loyalty_redemptions drop constraint if exists loyalty_redemptions_forfeited_used_check`,
    );
  }
}
