import { Migration } from '@mikro-orm/migrations';

/**
 * EARN_REVERSAL: the points a booking earned, taken back when the booking is refunded in full after
 * its trip completed (README: points go only to bookings not refunded). Points already spent cannot
 * be taken back, so the entry takes what the balance holds, down to nothing: an entry of 0 points
 * still records that the booking's points were reversed (its note says how many were spent).
 */
export class Migration20261204060000_loyalty_refund_reversal extends Migration {
  override up(): void {
    this.addSql(`alter table loyalty_transactions drop constraint loyalty_transactions_kind_check`);
    this.addSql(`alter table loyalty_transactions add constraint loyalty_transactions_kind_check
      check (kind in ('EARN', 'REDEEM', 'ADJUST', 'REFERRAL_BONUS', 'VOUCHER_REFUND', 'EARN_REVERSAL'))`);
    this.addSql(`alter table loyalty_transactions drop constraint loyalty_transactions_points_check`);
    this.addSql(`alter table loyalty_transactions add constraint loyalty_transactions_points_check
      check (points <> 0 or kind = 'EARN_REVERSAL')`);
  }

  override down(): void {
    this.addSql(`delete from loyalty_transactions where kind = 'EARN_REVERSAL'`);
    this.addSql(`alter table loyalty_transactions drop constraint loyalty_transactions_points_check`);
    this.addSql(`alter table loyalty_transactions add constraint loyalty_transactions_points_check
      check (points <> 0)`);
    this.addSql(`alter table loyalty_transactions drop constraint loyalty_transactions_kind_check`);
    this.addSql(`alter table loyalty_transactions add constraint loyalty_transactions_kind_check
      check (kind in ('EARN', 'REDEEM', 'ADJUST', 'REFERRAL_BONUS', 'VOUCHER_REFUND'))`);
  }
}
