import type { PoolClient } from 'pg';
import { describe, expect, it } from 'vitest';
import { awardTripPoints, ensureAccount } from '../../../db/writes/loyalty/index.js';
import { waitersOf } from '../../drills/support/blocking.js';
import { bookableTrip } from '../../support/bookings.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { completedBooking, completeTripForEarning, loyaltyProgram } from '../../support/loyalty.js';

/**
 * README Loyalty: a trip's points are floor(total_price / 100 × points_per_100 × tier multiplier),
 * and every points change takes turns with a tier or terms change on the programme row. A trip's
 * award that waited for a tier change credits with the tiers the change left (read once the
 * programme row is shared), not with what it read before it waited; its points per 100 are the
 * ones its completion settled (README Dispatch), whatever a terms change made of them since.
 */
describe('a trip points award that waited for a tier or terms change', () => {
  const app = useTestApp();

  /** The company's programme row held as a tier change holds it (saveTier: lockProgram). */
  async function tierChangeInFlight(app: TestApp, companyId: string) {
    const client: PoolClient = await app.db.pool.connect();
    await client.query('begin');
    await client.query(`select company_id from loyalty_programs where company_id = $1 for no key update`, [
      companyId,
    ]);
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    return { client, pid: rows[0]!.pid };
  }

  /**
   * A completed trip's booking of 20,000 (10 points per 100, one base tier at 100%), its award
   * started while a change holds the programme row: `changeSql` ($1 the company) runs in that
   * transaction, which then commits; answers the award's result once it is done.
   */
  async function awardThatWaitedFor(changeSql: string) {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { pointsPer100: 10, tiers: [[0, 100]] });
    const traveller = await app.signIn();
    await ensureAccount(app.db.pool, trip.companyId, traveller.userId);
    await completedBooking(app.db, trip, traveller.userId, { totalPrice: 20_000 });
    await completeTripForEarning(app.db, trip.tripId);

    const change = await tierChangeInFlight(app, trip.companyId);
    const award = awardTripPoints(app.db, trip.tripId);
    await waitersOf(app.db, change.pid, 1);
    await change.client.query(changeSql, [trip.companyId]);
    await change.client.query('commit');
    change.client.release();
    return { result: await award, companyId: trip.companyId, userId: traveller.userId };
  }

  it('credits with the multiplier of the tier the account is in once the tier change it waited for committed', async () => {
    // A tier change is in flight: the base tier's multiplier goes from 100% to 200%.
    const { result, companyId, userId } = await awardThatWaitedFor(
      `update loyalty_tiers set multiplier_percent = 200 where company_id = $1 and min_lifetime_points = 0`,
    );

    // The credit was made after the change committed (it waited for it): 20,000 / 100 × 10 × 200%.
    expect(result.pointsCredited).toBe(4_000);
    const [account] = await app.db.query<{ balance: number }>(
      `select balance from loyalty_accounts where company_id = $1 and user_id = $2`,
      [companyId, userId],
    );
    expect(account!.balance).toBe(4_000);
  });

  it('credits with the points per 100 the trip completed under, not those of a terms change it waited for', async () => {
    // PUT /loyalty raising points_per_100 from 10 to 20 is in flight (saveProgramTerms: lockProgram, then the update).
    const { result } = await awardThatWaitedFor(
      `update loyalty_programs set points_per_100 = 20 where company_id = $1`,
    );

    // The trip completed at 10 points per 100: 20,000 / 100 × 10 × 100%.
    expect(result.pointsCredited).toBe(2_000);
  });

  it('credits nothing when the programme is switched off by a change it waited for', async () => {
    // PUT /loyalty switching the programme off is in flight.
    const { result, companyId, userId } = await awardThatWaitedFor(
      `update loyalty_programs set active = false where company_id = $1`,
    );

    expect(result).toMatchObject({ bookingsCredited: 0, pointsCredited: 0 });
    const [account] = await app.db.query<{ balance: number }>(
      `select balance from loyalty_accounts where company_id = $1 and user_id = $2`,
      [companyId, userId],
    );
    expect(account!.balance).toBe(0);
  });
});
