import { describe, expect, it } from 'vitest';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createStop,
  createTrip,
  futureDay,
} from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { holdJourney, mobileTraveller, quote, setConfirmation } from '../../support/journeys.js';

/**
 * README "Abuse limits": held seats count "one seat per trip it is held on, however many of its
 * stretches": seat 1 held A → B and again B → C is one seat of the trip, as one hold A → C is.
 */
describe('held seats per trip, over several stretches', () => {
  const app = useTestApp();

  async function threeStopTrip() {
    const company = await createCompany(app.db);
    await setConfirmation(app.db, company.id, { mode: 'AUTO_CONFIRM' });
    const bus = await createBus(app.db, company.id, { rows: 3, pattern: '2+2' });
    const stops = [];
    for (let i = 0; i < 3; i++) stops.push(await createStop(app.db, (await createCity(app.db)).id));
    const trip = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(futureDay(3), '08:00'),
      calls: stops.map((stop, i) => ({ stop, at: i * 60, dwell: i === 1 ? 5 : 0 })),
    });
    return { companyId: company.id, tripId: trip.id, stopCallIds: trip.stopCallIds, seatCount: 12 };
  }

  it('six seats held A → B and the same six B → C are six seats of the trip, under the cap of 10', async () => {
    const trip = await threeStopTrip();
    const traveller = await mobileTraveller(app);
    const seats = ['1', '2', '3', '4', '5', '6'];
    const holdOver = async (board: number, alight: number, assignments: string[]) => {
      const quoted = await quote(app, traveller, [{ trip, board, alight, assignments }], assignments.length);
      return holdJourney(app, traveller, quoted.journey_id, { quote_id: quoted.quote_id });
    };

    expect((await holdOver(0, 1, seats)).status).toBe(200);
    const second = await holdOver(1, 2, seats);
    expect([second.status, second.body.errorCode]).toEqual([200, undefined]);

    // The cap still counts seats: five more seats B → C make 11 of the trip, refused and not written.
    const past = await holdOver(1, 2, ['7', '8', '9', '10', '11']);
    expect([past.status, past.body.errorCode, past.body.details]).toEqual([
      409,
      'SEAT_HOLD_LIMIT_REACHED',
      expect.objectContaining({ scope: 'TRIP', limit: 10, held: 6, requested: 5 }),
    ]);
    const [held] = await app.db.query<{ seats: number; allocations: number }>(
      `select count(distinct seat_id)::int as seats, count(*)::int as allocations from seat_allocations
       where trip_id = $1 and status = 'HELD'`,
      [trip.tripId],
    );
    expect(held).toEqual({ seats: 6, allocations: 12 });
  });
});
