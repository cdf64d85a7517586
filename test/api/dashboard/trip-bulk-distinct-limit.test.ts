import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  operationsSnapshot,
  operationsWorld,
  tripOfItsOwn,
  type OperationsWorld,
} from '../../support/operations.js';

/**
 * POST /trips/bulk's limit of 50 is on distinct trip ids: SPEC removes duplicates (and the answer
 * counts them), so a repeated id is not counted toward the 50.
 */
describe('the bulk trip command counts distinct trip ids toward its limit', () => {
  const app = useTestApp();
  let world: OperationsWorld;

  beforeAll(async () => {
    world = await operationsWorld(app, { seats: 4 });
  });

  const bulk = (body: unknown) =>
    app.request('/dashboard/api/trips/bulk', {
      method: 'POST',
      headers: world.dispatcher.writeHeaders,
      json: body,
    });

  it('takes 51 entries naming 50 distinct trips (a repeat in another case included)', async () => {
    const { tripId } = await tripOfItsOwn(app, world);
    const fifty = [tripId, ...Array.from({ length: 49 }, () => randomUUID())];
    const response = await bulk({ trip_ids: [...fifty, tripId.toUpperCase()], action: 'start_boarding' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.summary).toEqual({
      requested: 50,
      duplicates_removed: 1,
      succeeded: 1,
      failed: 49,
    });
    expect(response.body.data.results).toHaveLength(50);
  });

  it('refuses 51 distinct trips 400 TOO_MANY_TRIPS, repeats or not, changing no trip', async () => {
    const { tripId } = await tripOfItsOwn(app, world);
    const before = await operationsSnapshot(app.db, tripId);
    const fiftyOne = [tripId, ...Array.from({ length: 50 }, () => randomUUID())];
    for (const trip_ids of [fiftyOne, [...fiftyOne, tripId]]) {
      const response = await bulk({ trip_ids, action: 'start_boarding' });
      expect(response.status, response.text).toBe(400);
      expect(response.body.errorCode).toBe('TOO_MANY_TRIPS');
      expect(response.body.details.issues).toEqual([
        { path: 'body.trip_ids', code: 'custom', message: 'names 51 distinct trips; at most 50' },
      ]);
    }
    expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
  });
});
