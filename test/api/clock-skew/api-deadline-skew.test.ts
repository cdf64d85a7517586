import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../domain/analytics.js';
import { futureDay } from '../../support/factories.js';
import { financeWorld, shiftCommand } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { dashboard, planningWorld, type PlanningWorld } from '../../support/planning.js';
import { skewClock } from '../../support/clock-skew.js';

/**
 * README: a cash-shift step "carries the API's deadline (`stepBy`, 20 s): one that would commit after
 * the request stopped waiting (25 s) writes nothing", and a schedule's claim "must commit within 20 s
 * (the API's 25 s wait for it less a 5 s margin, checked on the database clock as its last step)".
 * The deadline is Date.now() of the API host + 20 s, compared with PostgreSQL's clock_timestamp():
 * an API host 30 s behind the database sends a deadline that has already passed.
 */
describe('clock skew: API deadlines judged on the database clock, API clock 30 s behind', () => {
  const app = useTestApp({ SEARCH_RATE_LIMIT_PER_MINUTE: 0 });
  afterEach(() => skewClock(0));

  it('cash shift OPEN succeeds (201) with the API host 30 s behind the database', async () => {
    const world = await financeWorld(app);
    skewClock(-30_000);
    const response = await shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 20_000 });
    skewClock(0);
    expect([response.status, response.body?.errorCode], response.text).toEqual([201, undefined]);
  }, 60_000);

  describe('trip schedules', () => {
    let world: PlanningWorld;
    beforeAll(async () => {
      world = await planningWorld(app);
    });
    const body = (start: string) => ({
      route_id: world.routeId,
      pickup_stop_id: world.originStop.id,
      bus_id: world.bus.id,
      driver_id: world.driverId,
      start_date: start,
      end_date: addDays(start, 2),
      departure_time: '08:00',
      days_of_week: [0, 1, 2, 3, 4, 5, 6],
      price_base: 25_000,
      price_vip: null,
      notes: 'review 442',
      commit: true,
    });

    it('control: with the clocks in step a schedule commits', async () => {
      const response = await dashboard(
        app,
        world.sessions.OWNER,
        'POST',
        '/trip-schedules',
        body(futureDay(3)),
      );
      expect(response.status, response.text).toBeLessThan(300);
    }, 60_000);

    it('a schedule commits with the API host 30 s behind the database', async () => {
      skewClock(-30_000);
      const response = await dashboard(
        app,
        world.sessions.OWNER,
        'POST',
        '/trip-schedules',
        body(futureDay(10)),
      );
      skewClock(0);
      expect([response.status, response.body?.errorCode], response.text).not.toEqual([
        503,
        'SCHEDULE_UNAVAILABLE',
      ]);
      expect(response.status, response.text).toBeLessThan(300);
    }, 60_000);
  });
});
