import { beforeAll, describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import {
  bookSeats,
  dispatch,
  operationsWorld,
  scan,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';

/** The scan at the door at its edges: devices racing for one ticket, and a phone clock running fast. */
describe('the driver scan: races and clocks', () => {
  const app = useTestApp();
  let world: OperationsWorld;
  let travellers: BookedTraveller[];

  beforeAll(async () => {
    world = await operationsWorld(app, { seats: 4 });
    travellers = [];
    for (const seat of world.trip.seatNumbers.slice(0, 2))
      travellers.push(await bookSeats(app, world.trip, [seat]));
    const started = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'START_BOARDING' });
    expect(started.status, started.text).toBe(200);
  });

  it('four devices scanning one ticket at once: one check-in, and every answer shows the ticket USED', async () => {
    const traveller = travellers[0]!;
    // The ticket row held while the four scans read it and queue for it: each read sees it VALID.
    const blocker = await holdLock(
      app.db,
      `select id from journey_tickets where id = '${traveller.ticketIds[0]}' for update`,
    );
    const scans = ['door-1', 'door-2', 'door-3', 'door-4'].map((deviceId) =>
      scan(app, world.driver.token, world.trip.tripId, traveller.credentials[0]!, { deviceId }),
    );
    await waitersOf(app.db, blocker.pid, 4);
    await blocker.release();
    const answers = await Promise.all(scans);
    expect(answers.map((answer) => answer.body.data.outcome).sort()).toEqual([
      'ALREADY_CHECKED_IN',
      'ALREADY_CHECKED_IN',
      'ALREADY_CHECKED_IN',
      'CHECKED_IN',
    ]);
    const events = await app.db.query(
      `select 1 from trip_operation_events where manifest_item_id = $1 and action = 'CHECK_IN'`,
      [traveller.ticketIds[0]],
    );
    expect(events).toHaveLength(1);
    // Before: a device that lost the race was told the ticket was still VALID (read before the winner's lock).
    for (const answer of answers)
      expect(answer.body.data.ticket, answer.text).toMatchObject({ status: 'USED' });
  });

  it('checks in a scan stamped by a phone clock 4 minutes fast at the server time, not in the future', async () => {
    const traveller = travellers[1]!;
    const sent = Date.now();
    const response = await scan(app, world.driver.token, world.trip.tripId, traveller.credentials[0]!, {
      scannedAt: new Date(sent + 4 * 60_000).toISOString(),
    });
    const answered = Date.now();
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.outcome).toBe('CHECKED_IN');
    const [row] = await app.db.query<{ at: Date }>(
      'select attendance_at as at from journey_tickets where id = $1',
      [traveller.ticketIds[0]],
    );
    // Before: stored and answered 4 minutes ahead of the server.
    const at = Date.parse(response.body.data.checkedIn.at);
    expect(at).toBe(new Date(row!.at).getTime());
    expect(at).toBeGreaterThanOrEqual(sent - 1_000);
    expect(at).toBeLessThanOrEqual(answered);
  });
});
