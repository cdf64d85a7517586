import { describe, expect, it } from 'vitest';
import { holdLock, lockWaiters, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import {
  confirmJourney,
  holdForConfirm,
  holdJourney,
  mobileTraveller,
  quote,
  tripOf,
} from '../../support/journeys.js';

/**
 * One traveller's hold of a journey and confirm of another, on the same trip, at once. The hold
 * locks its scope, then the account, then the trip; the confirm locks the trip (FOR SHARE), then its
 * scope, then the account (the per-account caps). Each waits for the other: PostgreSQL ends one of
 * them with a deadlock, and the one it ends must run again instead of answering 500.
 *
 * The test makes the hold the one PostgreSQL ends: a share lock of the trip held by the test keeps
 * the hold waiting for the trip, the confirm (whose share lock does not conflict) then waits for the
 * account, and the hold, which has waited longest, finds the deadlock when deadlock_timeout (1 s)
 * passes.
 */
describe('a hold and a confirm of one traveller on one trip at once', () => {
  const app = useTestApp();

  it('both go through: the one PostgreSQL ends on the deadlock runs again', async () => {
    const trip = await tripOf(app.db, { rows: 2 });
    const traveller = await mobileTraveller(app);
    const first = await holdForConfirm(app, traveller, [{ trip }]);
    const second = await quote(app, traveller, [{ trip }]);

    const blocker = await holdLock(app.db, `select id from trips where id = '${trip.tripId}' for share`);
    const hold = holdJourney(app, traveller, second.journey_id, { quote_id: second.quote_id });
    await lockWaiters(app.db, '%from trips where id = any%for no key update%');
    const confirm = confirmJourney(app, traveller, first.journeyId, first.confirmBody);
    // The confirm waits for the account the hold has locked; then the cycle is closed.
    await lockWaiters(app.db, '%from users where id = $1%for no key update%');
    await waitersOf(app.db, blocker.pid);
    // Past deadlock_timeout, so the deadlock is found (and one side ended) before the trip is let go.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await blocker.release();
    const [held, confirmed] = await Promise.all([hold, confirm]);

    expect(`${held.status} ${held.text.slice(0, 200)}`).toMatch(/^200 /);
    expect(`${confirmed.status} ${confirmed.text.slice(0, 200)}`).toMatch(/^200 /);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    const [journeys] = await app.db.query<{ held: string; confirmed: string }>(
      `select count(*) filter (where status = 'HELD') as held, count(*) filter (where status = 'CONFIRMED') as confirmed
       from journeys where id = any($1::uuid[])`,
      [[first.journeyId, second.journey_id]],
    );
    expect(journeys).toEqual({ held: '1', confirmed: '1' });
  });
});
