import { beforeAll, describe, expect, it } from 'vitest';
import { atDamascus, createCompany, createStop, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import {
  dispatch,
  dispatchView,
  operationsSnapshot,
  operationsWorld,
  tripOfItsOwn,
  type OperationsWorld,
} from '../../support/operations.js';
import { dashboard, planningWorld, type PlanningWorld } from '../../support/planning.js';

/**
 * GET /dashboard/api/trips/{id}/dispatch: the pickup snapshot is judged by the rule trip planning
 * follows, and allowed_actions is what the reading session may do now (POST /dispatch takes it).
 */
describe('the dispatch view: pickup confirmation and the actions offered', () => {
  const app = useTestApp();

  describe('pickup confirmation', () => {
    let world: PlanningWorld;

    beforeAll(async () => {
      world = await planningWorld(app);
    });

    const planTrip = async (days: number) => {
      const planned = await dashboard(app, world.sessions.OWNER, 'POST', '/trips', {
        route_id: world.routeId,
        bus_id: world.bus.id,
        driver_id: world.driverId,
        pickup_stop_id: world.originStop.id,
        departure_at: atDamascus(futureDay(days), '08:00').toISOString(),
        price_base: 30_000,
      });
      expect(planned.status, planned.text).toBe(201);
      return planned.body.data.id as string;
    };
    const confirmation = async (tripId: string) => {
      const view = await dispatchView(app, world.sessions.DISPATCHER, tripId);
      expect(view.status, view.text).toBe(200);
      return view.body.data.pickup;
    };

    it('a public station of the origin city that GET /pickup-locations offers reads CONFIRMED', async () => {
      const offered = await dashboard(
        app,
        world.sessions.OWNER,
        'GET',
        `/pickup-locations?city_id=${world.origin.id}`,
      );
      expect(offered.status, offered.text).toBe(200);
      expect(
        offered.body.data.find((point: { id: string }) => point.id === world.originStop.id),
      ).toMatchObject({
        scope: 'PUBLIC',
      });
      const pickup = await confirmation(await planTrip(12));
      expect(pickup.snapshot).toMatchObject({ id: world.originStop.id });
      expect(pickup.confirmation).toEqual({ status: 'CONFIRMED', issues: [] });
    });

    it("names only what is wrong: a disabled stop, another company's stop outside the origin city", async () => {
      const tripId = await planTrip(13);
      const own = await createStop(app.db, world.origin.id, { companyId: world.companyId, enabled: false });
      await app.db.query('update trips set pickup_stop_id = $2 where id = $1', [tripId, own.id]);
      expect((await confirmation(tripId)).confirmation).toEqual({
        status: 'UNCONFIRMED',
        issues: ['STOP_DISABLED'],
      });
      const other = await createCompany(app.db);
      const theirs = await createStop(app.db, world.destination.id, { companyId: other.id });
      await app.db.query('update trips set pickup_stop_id = $2 where id = $1', [tripId, theirs.id]);
      expect((await confirmation(tripId)).confirmation).toEqual({
        status: 'UNCONFIRMED',
        issues: ['OUTSIDE_ORIGIN_CITY', 'NOT_A_PICKUP_POINT'],
      });
      const depot = await createStop(app.db, world.origin.id, { kind: 'DEPOT' });
      await app.db.query('update trips set pickup_stop_id = $2 where id = $1', [tripId, depot.id]);
      expect((await confirmation(tripId)).confirmation).toEqual({
        status: 'UNCONFIRMED',
        issues: ['NOT_A_PICKUP_POINT'],
      });
    });
  });

  describe('allowed_actions', () => {
    let world: OperationsWorld;
    const offered = async (session: OperationsWorld['dispatcher'], tripId: string) => {
      const view = await dispatchView(app, session, tripId);
      expect(view.status, view.text).toBe(200);
      return view.body.data.allowed_actions as string[];
    };

    beforeAll(async () => {
      world = await operationsWorld(app, { seats: 4 });
    });

    it('offers the trip actions to OWNER, ADMIN and DISPATCHER, and none to STAFF and ACCOUNTANT', async () => {
      const { tripId } = await tripOfItsOwn(app, world);
      for (const role of ['OWNER', 'ADMIN', 'DISPATCHER'] as const) {
        expect(await offered(world.sessions[role], tripId), role).toEqual([
          'START_BOARDING',
          'MARK_DELAYED',
          'CANCEL',
        ]);
      }
      for (const role of ['STAFF', 'ACCOUNTANT'] as const) {
        expect(await offered(world.sessions[role], tripId), role).toEqual([]);
        const before = await operationsSnapshot(app.db, tripId);
        const refused = await dispatch(app, world.sessions[role], tripId, { action: 'START_BOARDING' });
        expect([refused.status, refused.body.errorCode], role).toEqual([403, 'ROLE_NOT_ALLOWED']);
        expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
      }
      const boarded = await dispatch(app, world.dispatcher, tripId, { action: 'START_BOARDING' });
      expect(boarded.status, boarded.text).toBe(200);
      expect(boarded.body.data.allowed_actions).toEqual(await offered(world.dispatcher, tripId));
      expect(boarded.body.data.allowed_actions).toContain('DEPART');
    });

    it('offers nothing to a suspended company, whose actions are refused', async () => {
      const suspended = await operationsWorld(app, { seats: 4 });
      const { tripId } = await tripOfItsOwn(app, suspended);
      expect(await offered(suspended.dispatcher, tripId)).toEqual([
        'START_BOARDING',
        'MARK_DELAYED',
        'CANCEL',
      ]);
      await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [suspended.companyId]);
      expect(await offered(suspended.dispatcher, tripId)).toEqual([]);
      expect(await offered(suspended.sessions.OWNER, tripId)).toEqual([]);
      const before = await operationsSnapshot(app.db, tripId);
      const refused = await dispatch(app, suspended.dispatcher, tripId, { action: 'START_BOARDING' });
      expect([refused.status, refused.body.errorCode]).toEqual([403, 'COMPANY_SUSPENDED']);
      expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
    });
  });
});
