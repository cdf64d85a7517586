import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  anotherTrip,
  operationsSnapshot,
  operationsWorld,
  setTripStatus,
  tripOfItsOwn,
  type OperationsWorld,
} from '../../support/operations.js';

/** The legacy PATCH /trips/{id} and POST /trips/bulk: trip actions through the dispatch transition. */
describe('trip commands outside the operations room', () => {
  const app = useTestApp();
  let world: OperationsWorld;

  beforeAll(async () => {
    world = await operationsWorld(app, { seats: 4 });
  });

  const patch = (tripId: string, body: unknown, headers = world.dispatcher.writeHeaders) =>
    app.request(`/dashboard/api/trips/${tripId}`, { method: 'PATCH', headers, json: body });
  const bulk = (body: unknown, headers = world.dispatcher.writeHeaders) =>
    app.request('/dashboard/api/trips/bulk', { method: 'POST', headers, json: body });

  describe('PATCH /trips/{id} (legacy)', () => {
    it('delays a trip with a reason through the transition, logged as LEGACY_PATCH', async () => {
      const tripId = await anotherTrip(app, world);
      const response = await patch(tripId, {
        status: 'DELAYED',
        reason: 'Snow on the pass',
        delay_minutes: 45,
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toMatchObject({
        action: 'MARK_DELAYED',
        previous_status: 'SCHEDULED',
        status: 'DELAYED',
        trip: { delay_minutes: 45 },
      });
      const [event] = await app.db.query(
        'select action, channel, reason from trip_operation_events where trip_id = $1',
        [tripId],
      );
      expect(event).toEqual({ action: 'MARK_DELAYED', channel: 'LEGACY_PATCH', reason: 'Snow on the pass' });
    });

    it('needs a reason to delay or cancel, and minutes to delay; nothing changes', async () => {
      const tripId = await anotherTrip(app, world);
      const before = await operationsSnapshot(app.db, tripId);
      const cases: [unknown, string][] = [
        [{ status: 'CANCELLED' }, 'REASON_REQUIRED'],
        [{ status: 'DELAYED', delay_minutes: 10 }, 'REASON_REQUIRED'],
        [{ status: 'DELAYED', reason: 'Fog' }, 'DELAY_MINUTES_REQUIRED'],
        [{ status: 'DEPARTED', delay_minutes: 10 }, 'VALIDATION_FAILED'],
        [{ status: 'LOST' }, 'UNKNOWN_ACTION'],
        [{ status: 'CANCELLED', reason: 'x', company_id: world.companyId }, 'VALIDATION_FAILED'],
      ];
      for (const [body, errorCode] of cases) {
        const response = await patch(tripId, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body.errorCode, JSON.stringify(body)).toBe(errorCode);
      }
      expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
    });

    it('refuses a wrong reason or delay under the errorCode POST /dispatch gives it; nothing changes', async () => {
      const tripId = await anotherTrip(app, world);
      const before = await operationsSnapshot(app.db, tripId);
      const cases: [Record<string, unknown>, string][] = [
        [{ status: 'CANCELLED', reason: 'x'.repeat(501) }, 'VALIDATION_FAILED'],
        [{ status: 'CANCELLED', reason: 42 }, 'VALIDATION_FAILED'],
        [{ status: 'CANCELLED', reason: '   ' }, 'REASON_REQUIRED'],
        [{ status: 'DELAYED', reason: 'Fog', delay_minutes: 30.5 }, 'VALIDATION_FAILED'],
        [{ status: 'DELAYED', reason: 'Fog', delay_minutes: '30' }, 'VALIDATION_FAILED'],
        [{ status: 'DELAYED', reason: 'Fog', delay_minutes: 1441 }, 'VALIDATION_FAILED'],
        [{ status: 'DELAYED', reason: 'Fog', delay_minutes: null }, 'DELAY_MINUTES_REQUIRED'],
        [{ status: 'DELAYED', reason: 'x'.repeat(501), delay_minutes: 10 }, 'VALIDATION_FAILED'],
      ];
      for (const [{ status, ...fields }, errorCode] of cases) {
        const label = JSON.stringify({ status, ...fields }).slice(0, 80);
        const legacy = await patch(tripId, { status, ...fields });
        const action = status === 'CANCELLED' ? 'CANCEL' : 'MARK_DELAYED';
        const dispatch = await app.request(`/dashboard/api/trips/${tripId}/dispatch`, {
          method: 'POST',
          headers: world.dispatcher.writeHeaders,
          json: { action, ...fields },
        });
        expect([legacy.status, legacy.body.errorCode], label).toEqual([400, errorCode]);
        expect([dispatch.status, dispatch.body.errorCode], label).toEqual([400, errorCode]);
      }
      expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
    });

    it('takes only the fields of the action its status names, as POST /dispatch does', async () => {
      const { tripId } = await tripOfItsOwn(app, world);
      const before = await operationsSnapshot(app.db, tripId);
      const cases: Record<string, unknown>[] = [
        { status: 'BOARDING', reason: 'Early start' },
        { status: 'BOARDING', reason: '' },
        { status: 'DEPARTED', reason: null },
        { status: 'ARRIVED', delay_minutes: null },
        { status: 'COMPLETED', reason: 'Done' },
        { status: 'CANCELLED', reason: 'Storm', delay_minutes: 10 },
      ];
      const ACTION: Record<string, string> = {
        BOARDING: 'START_BOARDING',
        DEPARTED: 'DEPART',
        ARRIVED: 'ARRIVE',
        COMPLETED: 'COMPLETE',
        CANCELLED: 'CANCEL',
      };
      for (const { status, ...fields } of cases) {
        const label = JSON.stringify({ status, ...fields });
        const legacy = await patch(tripId, { status, ...fields });
        const dispatch = await app.request(`/dashboard/api/trips/${tripId}/dispatch`, {
          method: 'POST',
          headers: world.dispatcher.writeHeaders,
          json: { action: ACTION[status as string], ...fields },
        });
        expect([legacy.status, legacy.body.errorCode], label).toEqual([400, 'VALIDATION_FAILED']);
        expect([dispatch.status, dispatch.body.errorCode], label).toEqual([400, 'VALIDATION_FAILED']);
      }
      expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
    });

    it('answers as POST /dispatch does, with the actions allowed now', async () => {
      const { tripId } = await tripOfItsOwn(app, world);
      const response = await patch(tripId, { status: 'BOARDING' });
      expect(response.status, response.text).toBe(200);
      const view = await app.request(`/dashboard/api/trips/${tripId}/dispatch`, {
        headers: world.dispatcher.writeHeaders,
      });
      expect(response.body.data).toMatchObject({
        action: 'START_BOARDING',
        previous_status: 'SCHEDULED',
        status: 'BOARDING',
        allowed_actions: view.body.data.allowed_actions,
      });
      expect(response.body.data.allowed_actions).toContain('CANCEL');
    });

    it('answers a step out of sequence with 409 and the allowed actions', async () => {
      const tripId = await anotherTrip(app, world);
      const response = await patch(tripId, { status: 'ARRIVED' });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({
        errorCode: 'TRIP_ACTION_NOT_ALLOWED',
        details: { status: 'SCHEDULED', allowedActions: ['START_BOARDING', 'MARK_DELAYED', 'CANCEL'] },
      });
    });

    it('is for OWNER, ADMIN and DISPATCHER of the trip company only', async () => {
      const tripId = await anotherTrip(app, world);
      const staff = await patch(tripId, { status: 'BOARDING' }, world.sessions.STAFF.writeHeaders);
      expect(staff.status).toBe(403);
      const other = await operationsWorld(app, { seats: 4 });
      const foreign = await patch(tripId, { status: 'BOARDING' }, other.dispatcher.writeHeaders);
      expect(foreign.status).toBe(404);
      const owner = await patch(tripId, { status: 'BOARDING' }, world.sessions.OWNER.writeHeaders);
      expect(owner.status).toBe(200);
    });
  });

  describe('POST /trips/bulk', () => {
    it('acts on each distinct trip independently and sums up', async () => {
      const scheduled = await anotherTrip(app, world);
      const another = await anotherTrip(app, world);
      const completed = await anotherTrip(app, world);
      await setTripStatus(app.db, completed, 'COMPLETED');
      const foreign = (await operationsWorld(app, { seats: 4 })).trip.tripId;
      const foreignBefore = await operationsSnapshot(app.db, foreign);
      const response = await bulk({
        trip_ids: [scheduled, another.toUpperCase(), completed, foreign, scheduled, another],
        action: 'cancel',
        reason: 'Storm warning',
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.results).toEqual([
        {
          trip_id: scheduled,
          success: true,
          status: 'CANCELLED',
          previous_status: 'SCHEDULED',
          replayed: false,
        },
        {
          trip_id: another,
          success: true,
          status: 'CANCELLED',
          previous_status: 'SCHEDULED',
          replayed: false,
        },
        {
          trip_id: completed,
          success: false,
          errorCode: 'TRIP_ACTION_NOT_ALLOWED',
          message: expect.any(String),
          details: { status: 'COMPLETED', action: 'CANCEL', allowedActions: [] },
        },
        { trip_id: foreign, success: false, errorCode: 'TRIP_NOT_FOUND', message: 'No such trip' },
      ]);
      expect(response.body.data.summary).toEqual({
        requested: 4,
        duplicates_removed: 2,
        succeeded: 2,
        failed: 2,
      });
      expect(await operationsSnapshot(app.db, foreign)).toEqual(foreignBefore);
      const events = await app.db.query<{ channel: string; reason: string }>(
        'select channel, reason from trip_operation_events where trip_id = any($1::uuid[])',
        [[scheduled, another]],
      );
      expect(events).toEqual([
        { channel: 'BULK', reason: 'Storm warning' },
        { channel: 'BULK', reason: 'Storm warning' },
      ]);
    });

    it('delays many trips at once', async () => {
      const trips = [await anotherTrip(app, world), await anotherTrip(app, world)];
      const response = await bulk({
        trip_ids: trips,
        action: 'mark_delayed',
        reason: 'Fuel',
        delay_minutes: 30,
      });
      expect(response.body.data.summary).toMatchObject({ succeeded: 2, failed: 0 });
      const rows = await app.db.query<{ status: string; delay_minutes: number }>(
        'select status, delay_minutes from trips where id = any($1::uuid[])',
        [trips],
      );
      expect(rows).toEqual([
        { status: 'DELAYED', delay_minutes: 30 },
        { status: 'DELAYED', delay_minutes: 30 },
      ]);
    });

    it('refuses a bad command before touching any trip', async () => {
      const tripId = await anotherTrip(app, world);
      const before = await operationsSnapshot(app.db, tripId);
      const fiftyOne = [tripId, ...Array.from({ length: 50 }, () => randomUUID())];
      const cases: [unknown, string][] = [
        [{ trip_ids: fiftyOne, action: 'start_boarding' }, 'TOO_MANY_TRIPS'],
        [{ trip_ids: [tripId], action: 'START_BOARDING' }, 'UNKNOWN_ACTION'],
        [{ trip_ids: [tripId], action: 'check_in' }, 'UNKNOWN_ACTION'],
        [{ trip_ids: [tripId], action: 'cancel' }, 'REASON_REQUIRED'],
        [{ trip_ids: [tripId], action: 'mark_delayed', reason: 'Fog' }, 'DELAY_MINUTES_REQUIRED'],
        [{ trip_ids: [], action: 'depart' }, 'VALIDATION_FAILED'],
        [{ trip_ids: [tripId, 'trip-2'], action: 'depart' }, 'VALIDATION_FAILED'],
        [{ trip_ids: [tripId], action: 'depart', company_id: world.companyId }, 'VALIDATION_FAILED'],
      ];
      for (const [body, errorCode] of cases) {
        const response = await bulk(body);
        expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(response.body.errorCode).toBe(errorCode);
      }
      expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
    });

    it('names a wrong reason or delay as POST /dispatch does; nothing changes', async () => {
      const tripId = await anotherTrip(app, world);
      const before = await operationsSnapshot(app.db, tripId);
      const cases: [unknown, string][] = [
        [{ trip_ids: [tripId], action: 'cancel', reason: 'x'.repeat(501) }, 'VALIDATION_FAILED'],
        [{ trip_ids: [tripId], action: 'cancel', reason: 42 }, 'VALIDATION_FAILED'],
        [{ trip_ids: [tripId], action: 'cancel', reason: '  ' }, 'REASON_REQUIRED'],
        [
          { trip_ids: [tripId], action: 'mark_delayed', reason: 'Fog', delay_minutes: 30.5 },
          'VALIDATION_FAILED',
        ],
      ];
      for (const [body, errorCode] of cases) {
        const response = await bulk(body);
        expect([response.status, response.body.errorCode], JSON.stringify(body).slice(0, 80)).toEqual([
          400,
          errorCode,
        ]);
      }
      expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
    });

    it('takes exactly 50 ids, and is refused to STAFF and without CSRF', async () => {
      const { tripId } = await tripOfItsOwn(app, world);
      const fifty = [tripId, ...Array.from({ length: 49 }, () => randomUUID())];
      const response = await bulk({ trip_ids: fifty, action: 'start_boarding' });
      expect(response.status).toBe(200);
      expect(response.body.data.summary).toEqual({
        requested: 50,
        duplicates_removed: 0,
        succeeded: 1,
        failed: 49,
      });
      const staff = await bulk({ trip_ids: [tripId], action: 'depart' }, world.sessions.STAFF.writeHeaders);
      expect(staff.status).toBe(403);
      const noCsrf = await bulk(
        { trip_ids: [tripId], action: 'depart' },
        { Cookie: world.dispatcher.cookie },
      );
      expect(noCsrf.status).toBe(403);
      expect(noCsrf.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    });
  });
});
