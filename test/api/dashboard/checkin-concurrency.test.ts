import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  bookSeats,
  createDriver,
  dispatch,
  operationsWorld,
  scan,
  setTripStatus,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';

/**
 * Check-ins are contended: the dashboard and two scanners at the door may take the same traveller
 * at the same moment. Exactly one checks them in; the others are told who did.
 */
describe('concurrent check-ins', () => {
  const app = useTestApp();
  let world: OperationsWorld;
  let travellers: BookedTraveller[];
  let secondScanner: string;

  beforeAll(async () => {
    world = await operationsWorld(app, { seats: 12 });
    travellers = [];
    for (const seat of world.trip.seatNumbers.slice(0, 10)) {
      travellers.push(await bookSeats(app, world.trip, [seat]));
    }
    // The second scanner is the station dispatcher's phone (the driver app takes DISPATCHER sessions).
    secondScanner = world.dispatcher.token;
    await setTripStatus(app.db, world.trip.tripId, 'BOARDING');
  });

  it('checks each traveller in exactly once from the dashboard and two scanners at once', async () => {
    for (const traveller of travellers) {
      const [fromDashboard, fromDoor, fromStation] = await Promise.all([
        dispatch(app, world.dispatcher, world.trip.tripId, {
          action: 'CHECK_IN',
          manifest_item_id: traveller.ticketIds[0],
          manifest_item_type: 'JOURNEY_TICKET',
        }),
        scan(app, world.driver.token, world.trip.tripId, traveller.credentials[0]!, { deviceId: 'door' }),
        scan(app, secondScanner, world.trip.tripId, traveller.credentials[0]!, { deviceId: 'station' }),
      ]);
      const winners = [
        fromDashboard.status === 200,
        fromDoor.body.data?.outcome === 'CHECKED_IN',
        fromStation.body.data?.outcome === 'CHECKED_IN',
      ].filter(Boolean);
      expect(winners, `${fromDashboard.text} ${fromDoor.text} ${fromStation.text}`).toHaveLength(1);
      if (fromDashboard.status !== 200) {
        expect(fromDashboard.status).toBe(409);
        expect(fromDashboard.body.errorCode).toBe('ALREADY_CHECKED_IN');
        expect(fromDashboard.body.details.checkedIn.source).toBe('DRIVER_APP');
      }
      for (const scanned of [fromDoor, fromStation]) {
        expect(scanned.status).toBe(200);
        expect(['CHECKED_IN', 'ALREADY_CHECKED_IN']).toContain(scanned.body.data.outcome);
      }
    }
    const events = await app.db.query<{ manifest_item_id: string; count: number }>(
      `select manifest_item_id, count(*)::int as count from trip_operation_events
       where trip_id = $1 and action = 'CHECK_IN' group by manifest_item_id`,
      [world.trip.tripId],
    );
    expect(events).toHaveLength(travellers.length);
    expect(events.every((event) => event.count === 1)).toBe(true);
    const tickets = await app.db.query<{ status: string; attendance: string }>(
      `select status, attendance from journey_tickets where id = any($1::uuid[])`,
      [travellers.map((traveller) => traveller.ticketIds[0])],
    );
    expect(tickets.every((ticket) => ticket.status === 'USED' && ticket.attendance === 'CHECKED_IN')).toBe(
      true,
    );
  });

  it('checks many travellers of one trip in side by side, and a cancel waits for them', async () => {
    const local = await operationsWorld(app, { seats: 16 });
    const party: BookedTraveller[] = [];
    for (const seat of local.trip.seatNumbers.slice(0, 12))
      party.push(await bookSeats(app, local.trip, [seat]));
    await setTripStatus(app.db, local.trip.tripId, 'BOARDING');
    const other = await createDriver(app, local.companyId);
    const answers = await Promise.all([
      ...party.map((traveller, index) =>
        scan(
          app,
          index % 2 ? local.driver.token : local.sessions.OWNER.token,
          local.trip.tripId,
          traveller.credentials[0]!,
        ),
      ),
      dispatch(app, local.dispatcher, local.trip.tripId, { action: 'CANCEL', reason: 'Road closed' }),
      scan(app, other.token, local.trip.tripId, party[0]!.credentials[0]!),
    ]);
    const cancel = answers[party.length]!;
    expect(cancel.status, cancel.text).toBe(200);
    const notAssigned = answers[party.length + 1]!;
    expect(notAssigned.status).toBe(403);
    // Whatever order they ran in, the trip ends cancelled with every ticket cancelled and no seat held.
    const tickets = await app.db.query<{ status: string; attendance: string }>(
      'select status, attendance from journey_tickets where trip_id = $1',
      [local.trip.tripId],
    );
    expect(tickets.every((ticket) => ticket.status === 'CANCELLED' && ticket.attendance === 'PENDING')).toBe(
      true,
    );
    const held = await app.db.query(
      `select 1 from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
      [local.trip.tripId],
    );
    expect(held).toEqual([]);
    for (const answer of answers.slice(0, party.length)) {
      expect(answer.status).toBe(200);
      expect(['CHECKED_IN', 'REFUSED']).toContain(answer.body.data.outcome);
    }
  });
});
