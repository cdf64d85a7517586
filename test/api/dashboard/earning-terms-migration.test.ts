import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { loyaltyProgram } from '../../support/loyalty.js';
import { advance, boardAndPay, bookSeats, dispatch, operationsWorld } from '../../support/operations.js';
import { usePrivateDatabase } from '../../support/private-database.js';

/**
 * README (Loyalty): "Trips completed before this rule: those on which a booking had earned take the
 * programme's terms of the migration, the others earn nothing more." A trip completed under an active
 * programme whose award a crash interrupted (one booking credited, the other not) has earned: it keeps
 * the programme's terms through the migration, so a replayed COMPLETE still finishes that earning.
 */
describe('Migration20261207000000_trip_earning_terms on a database with completed trips', () => {
  const database = usePrivateDatabase('earning_terms');
  const app = useTestApp({ DATABASE_URL: database.url });

  const ledger = (companyId: string) =>
    app.db.query<{ kind: string; points: number; booking_id: string }>(
      `select t.kind, t.points, t.booking_id from loyalty_transactions t join loyalty_accounts a on a.id = t.account_id
        where a.company_id = $1 order by t.created_at`,
      [companyId],
    );

  it('a trip on which a booking had earned keeps terms though the programme was paused at the migration; a replay finishes it', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    await loyaltyProgram(app.db, world.companyId, { pointsPer100: 10, referralPoints: 0 });
    const first = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const second = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    for (const booked of [first, second]) {
      await boardAndPay(app, world, booked);
    }
    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE', 'COMPLETE');
    const earned = await ledger(world.companyId);
    expect(earned.map((row) => row.booking_id).sort()).toEqual([first.bookingId, second.bookingId].sort());
    const secondPoints = earned.find((row) => row.booking_id === second.bookingId)!.points;

    // As a release before this one would leave it: the award credited the first booking, then a
    // crash stopped it before the second (no EARN row for it).
    await app.db.query(`delete from loyalty_transactions where booking_id = $1 and kind = 'EARN'`, [
      second.bookingId,
    ]);

    // The database as the release before this migration left it (every migration after the one before it
    // undone). A rollback keeps the trips' terms (README "Rolling back"); a database this release never ran
    // on has no such columns.
    await app.db.orm.migrator.down({ to: 'Migration20261206200000_frequency_recounts_due' });
    await app.db.query(
      `alter table trips drop column earning_points_per_100, drop column earning_referral_points`,
    );

    // The company paused its programme for a while, exactly while this release was deployed.
    await app.db.query(`update loyalty_programs set active = false where company_id = $1`, [world.companyId]);
    await app.db.orm.migrator.up();
    await app.db.query(`update loyalty_programs set active = true where company_id = $1`, [world.companyId]);

    const [trip] = await app.db.query<{ points: number | null }>(
      `select earning_points_per_100 as points from trips where id = $1`,
      [world.trip.tripId],
    );
    expect(trip!.points, 'a trip on which a booking had earned takes the programme terms').toBe(10);

    // The replay finishes the earning the crash interrupted.
    const again = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ replayed: true, loyalty: { bookings_credited: 1 } });
    expect((await ledger(world.companyId)).find((row) => row.booking_id === second.bookingId)?.points).toBe(
      secondPoints,
    );
  });
});
