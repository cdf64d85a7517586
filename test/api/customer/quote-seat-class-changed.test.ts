import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { coachLayout } from '../../../domain/layout-templates.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createStop,
  createTrip,
  futureDay,
} from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import {
  confirmJourney,
  holdJourney,
  travellers,
  webTraveller,
  type Caller,
} from '../../support/journeys.js';
import { dashboard, planningWorld } from '../../support/planning.js';

/**
 * README "Journeys, holds and confirmation": a SEAT costs the standard leg fare, or the VIP one when
 * the seat assigned to it is VIP class, and the quote records the class it priced each assigned seat
 * at (assignment_classes). A layout save (or a bus swapped by a re-plan) may change a free seat's
 * class before the hold: the hold then refuses that seat, 409 SEATS_UNAVAILABLE, holding nothing,
 * so no seat is sold at the other class's fare.
 */

/** One traveller over a whole trip on one SEAT with `label` assigned. */
async function quoteSeat(
  app: TestApp,
  caller: Caller,
  trip: { id: string; stopCallIds: string[] },
  label: string,
) {
  const quoted = await app.request('/api/journeys/quote', {
    method: 'POST',
    headers: caller.headers,
    json: {
      party_size: 1,
      legs: [
        {
          trip_id: trip.id,
          board_stop_call_id: trip.stopCallIds[0],
          alight_stop_call_id: trip.stopCallIds.at(-1),
        },
      ],
      resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 1, assignments: [label] }],
      idempotency_key: `quote-${randomUUID()}`,
    },
  });
  expect(quoted.status, quoted.text).toBe(200);
  return quoted.body.data as {
    quote_id: string;
    journey_id: string;
    total_price: number;
    legs: { resources: { assignments: string[]; assignment_classes: string[] }[] }[];
  };
}

/** A trip over two stops (fares 10 000 / 15 000) on a bus of five rows of 2+2 whose first row (seats 1-4) is VIP. */
async function vipRowTrip(app: TestApp) {
  const [a, b] = [await createCity(app.db), await createCity(app.db)];
  const stops = [await createStop(app.db, a.id), await createStop(app.db, b.id)];
  const company = await createCompany(app.db);
  const bus = await createBus(app.db, company.id, { rows: 5, pattern: '2+2', vipRows: [0] });
  const trip = await createTrip(app.db, {
    companyId: company.id,
    busId: bus.id,
    departAt: atDamascus(futureDay(4), '09:00'),
    priceBase: 10_000,
    priceVip: 15_000,
    calls: [
      { stop: stops[0]!, at: 0 },
      { stop: stops[1]!, at: 60 },
    ],
  });
  const owner = await staffSession(app.db, app.config, company.id, 'OWNER');
  /** The owner saves the bus's active layout with these rows VIP (seat ids and labels stay). */
  const saveVipRows = async (vipRows: number[]) => {
    const saved = await dashboard(app, owner, 'PUT', `/buses/${bus.id}/layout`, {
      layoutDocument: coachLayout({ rows: 5, pattern: '2+2', vipRows }),
      saveMode: 'active',
    });
    expect(saved.status, saved.text).toBe(200);
  };
  return { trip, saveVipRows };
}

/** The hold is refused 409 SEATS_UNAVAILABLE naming `label`, and nothing is held: the trip has no allocation, the journey is not HELD. */
async function expectRefusedHold(
  app: TestApp,
  caller: Caller,
  tripId: string,
  quoted: { quote_id: string; journey_id: string },
  label: string,
) {
  const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
  expect([held.status, held.body.errorCode, held.body.details?.seats], held.text).toEqual([
    409,
    'SEATS_UNAVAILABLE',
    [label],
  ]);
  expect(await app.db.query('select 1 from seat_allocations where trip_id = $1', [tripId])).toEqual([]);
  expect(
    await app.db.query(`select 1 from journeys where id = $1 and status = 'HELD'`, [quoted.journey_id]),
  ).toEqual([]);
  const map = await app.request(`/api/trips/${tripId}/seats`, { headers: caller.headers });
  const seat = (map.body.data.seats as { seat_number: string; available: boolean }[]).find(
    (entry) => entry.seat_number === label,
  );
  expect(seat?.available).toBe(true);
}

describe('a seat whose class changed between quote and hold', () => {
  const app = useTestApp();

  it('refuses a VIP-priced seat the active layout now makes standard, holding nothing', async () => {
    const { trip, saveVipRows } = await vipRowTrip(app);
    const caller = await webTraveller(app);
    const quoted = await quoteSeat(app, caller, trip, '1');
    expect([quoted.total_price, quoted.legs[0]!.resources[0]!.assignment_classes]).toEqual([15_000, ['VIP']]);

    await saveVipRows([]);
    await expectRefusedHold(app, caller, trip.id, quoted, '1');
  });

  it('refuses a standard-priced seat the active layout now makes VIP, holding nothing', async () => {
    const { trip, saveVipRows } = await vipRowTrip(app);
    const caller = await webTraveller(app);
    // Seat 5 is in the second row: standard when quoted.
    const quoted = await quoteSeat(app, caller, trip, '5');
    expect([quoted.total_price, quoted.legs[0]!.resources[0]!.assignment_classes]).toEqual([
      10_000,
      ['STANDARD'],
    ]);

    await saveVipRows([0, 1]);
    await expectRefusedHold(app, caller, trip.id, quoted, '5');
  });

  it('holds and sells as quoted when the layout saved since leaves the seat its class', async () => {
    const { trip, saveVipRows } = await vipRowTrip(app);
    const caller = await webTraveller(app);
    const quoted = await quoteSeat(app, caller, trip, '1');
    // The second row turns VIP too; seat 1 stays VIP.
    await saveVipRows([0, 1]);

    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, {
      quote_id: quoted.quote_id,
      hold_batch_id: held.body.data.holdBatchId,
      travellers: travellers(1),
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const [booking] = await app.db.query<{ seat_numbers: string[]; total_price: number }>(
      `select seat_numbers, total_price::int from bookings where journey_id = $1`,
      [quoted.journey_id],
    );
    expect(booking).toEqual({ seat_numbers: ['1'], total_price: 15_000 });
  });

  it('refuses a VIP-priced seat whose trip was re-planned onto a bus where that seat is standard', async () => {
    const world = await planningWorld(app);
    const vipBus = await createBus(app.db, world.companyId, { rows: 5, pattern: '2+2', vipRows: [0] });
    const body = {
      route_id: world.routeId,
      bus_id: vipBus.id,
      driver_id: world.driverId,
      pickup_stop_id: world.originStop.id,
      departure_at: atDamascus(futureDay(6), '08:00').toISOString(),
      price_base: 30_000,
      price_vip: 45_000,
    };
    const planned = await dashboard(app, world.sessions.OWNER, 'POST', '/trips', body);
    expect(planned.status, planned.text).toBe(201);
    const tripId = planned.body.data.id as string;
    const calls = await app.db.query<{ id: string }>(
      'select id from trip_stop_calls where trip_id = $1 order by sequence',
      [tripId],
    );
    const caller = await webTraveller(app);
    const quoted = await quoteSeat(
      app,
      caller,
      { id: tripId, stopCallIds: calls.map((call) => call.id) },
      '1',
    );
    expect(quoted.total_price).toBe(45_000);

    // No seat is held or sold yet, so the company may swap the bus: the planning world's is all standard.
    const replanned = await dashboard(app, world.sessions.OWNER, 'POST', '/trips', {
      ...body,
      trip_id: tripId,
      bus_id: world.bus.id,
    });
    expect(replanned.status, replanned.text).toBe(200);
    await expectRefusedHold(app, caller, tripId, quoted, '1');
  });
});
