import { Migration } from '@mikro-orm/migrations';

/**
 * What a completed trip's bookings earn, settled by the COMPLETE that completes it: the points per
 * 100 SYP and the referral points of the company's loyalty programme as COMPLETE found it, kept on the
 * trip (db/writes/loyalty/earn.ts settleTripEarning). Null: the trip is not completed, or it was
 * completed while the programme was switched off (or the company had none), and earns nothing. Until
 * this release the award read the programme's terms whenever it ran, and a replayed COMPLETE (the
 * operations room's, POST /trips/bulk's) credited a trip completed while the programme was off, or at
 * 0 points per 100, under a programme switched on or terms raised since.
 *
 * Trips completed before this release: one whose bookings have earned (an EARN entry) completed under
 * an active programme, and gets the programme's terms of today, so a replay still finishes an earning
 * a crash interrupted (the best record there is of terms nobody kept), even when the programme is
 * switched off while this runs (the award credits nothing until it is on again). Every other
 * completed trip (none of its bookings earned: the programme was off or earned 0 points then) stays
 * null and earns nothing more.
 *
 * Rolled back (README "Rolling back"), the columns stay: the terms COMPLETE settled cannot be told
 * again (the programme may have changed since), and the code before this release never reads them.
 * Only the check goes. Applied again, up() adds what is missing and fills only trips still without
 * terms (those the older code completed meanwhile), so a trip completed at 10 points per 100 keeps 10.
 */
export class Migration20261207000000_trip_earning_terms extends Migration {
  override up(): void {
    this.addSql(`
      alter table trips
        add column if not exists earning_points_per_100 integer,
        add column if not exists earning_referral_points integer,
        add constraint trips_earning_terms_check
          check ((earning_points_per_100 is null) = (earning_referral_points is null))`);
    this.addSql(`
      update trips t set earning_points_per_100 = p.points_per_100, earning_referral_points = p.referral_points
        from loyalty_programs p
       where t.status = 'COMPLETED' and p.company_id = t.company_id and t.earning_points_per_100 is null
         and exists (select 1 from bookings b
                       join loyalty_transactions e on e.booking_id = b.id and e.kind = 'EARN'
                      where b.trip_id = t.id)`);
  }

  override down(): void {
    // The terms stay (nullable, never read before this release); only the check goes, as up() adds it.
    this.addSql(`alter table trips drop constraint if exists trips_earning_terms_check`);
  }
}
