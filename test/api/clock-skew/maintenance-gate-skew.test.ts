import { afterEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { usePrivateDatabase } from '../../support/private-database.js';
import { skewClock } from '../../support/clock-skew.js';

/**
 * README: "while one is in force (`maintenanceGate` ...) every write under `/api` and `/dashboard/api`
 * answers 503 `MAINTENANCE`". The administration states a window ACTIVE on the database clock
 * (db/queries/platform-state.ts: starts_at <= now()), and scheduling checks times "against the
 * database clock" (db/writes/platform-state.ts); the gate judges it on the API host's `new Date()`
 * (api/platform/maintenance-gate.ts). An API host 5 minutes behind PostgreSQL lets writes through a
 * window the administration shows ACTIVE. Windows are global: a private database.
 */
const database = usePrivateDatabase('review442_maintenance');
const app = useTestApp({ DATABASE_URL: database.url, PLATFORM_STATE_POLL_SECONDS: 1 });

describe('clock skew: the maintenance gate on the API clock', () => {
  afterEach(() => skewClock(0));

  it('a window the administration lists ACTIVE refuses writes on an API host 5 min behind the database', async () => {
    const [window] = await app.db.query<{ id: string; state: string }>(
      `insert into maintenance_windows (message, starts_at, ends_at)
       values ('Database upgrade', now() - interval '1 second', now() + interval '30 minutes')
       returning id, case when starts_at <= now() then 'ACTIVE' else 'SCHEDULED' end as state`,
    );
    await app.db.query(`update platform_state_versions set version = version + 1 where name = 'maintenance'`);
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_500)); // the API's poll of the change counters
      // Control: the API host in step with the database refuses the write.
      const inStep = await app.request('/api/bookings', { method: 'POST', json: {} });
      expect([inStep.status, inStep.body?.errorCode], inStep.text).toEqual([503, 'MAINTENANCE']);
      skewClock(-5 * 60_000);
      const [listed] = await app.db.query<{ state: string }>(
        `select case when cancelled_at is not null then 'CANCELLED' when ends_at <= now() then 'ENDED'
                     when starts_at <= now() then 'ACTIVE' else 'SCHEDULED' end as state
           from maintenance_windows where id = $1`,
        [window!.id],
      );
      expect(listed!.state).toBe('ACTIVE');
      const write = await app.request('/api/bookings', { method: 'POST', json: {} });
      expect([write.status, write.body?.errorCode], write.text).toEqual([503, 'MAINTENANCE']);
    } finally {
      skewClock(0);
      await app.db.query(`update maintenance_windows set cancelled_at = now() where id = $1`, [window!.id]);
    }
  }, 60_000);
});
