import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/index.js';
import { initDatabase, type Database } from '../../../db/orm.js';
import { databaseNow, platformState } from '../../../api/platform/state.js';

/**
 * databaseNow() carries the database's clock from the platform-state poll: the clock_timestamp()
 * read in the poll's statement, placed at the midpoint of that statement's round trip. Under load
 * the poll queues for a pool connection first; were that wait counted in the round trip, the
 * reading would be placed half the wait too early and every deadline the API judges on it (a
 * share's acceptBy, a cash-shift step, the maintenance gate) would run that much ahead. PostgreSQL
 * and this process share the machine's clock here, so databaseNow() must agree with Date.now().
 */
describe('the database clock read under a pool wait', () => {
  let db: Database;
  beforeAll(async () => {
    db = await initDatabase({ ...loadConfig(), DATABASE_POOL_MAX: 1 });
  });
  afterAll(() => db.close());

  it('is placed at its statement, not halfway through the wait for a connection', async () => {
    const state = platformState(db, { PLATFORM_STATE_POLL_SECONDS: 60 });
    const held = await db.pool.connect(); // the pool's only connection, as a busy API's are
    const polled = state.flag('waitlist.signup');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    held.release();
    await polled;
    const ahead = databaseNow() - Date.now();
    expect(Math.abs(ahead), `databaseNow() is ${ahead.toFixed(0)} ms off the shared clock`).toBeLessThan(100);
  });
});
