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
import { useTestApp, type TestApp } from '../../support/harness.js';
import { bookJourney, quote, webTraveller, type TripFixture } from '../../support/journeys.js';

/**
 * README: a leg's fare is the trip fare times the share of the route ridden, the fare up to each stop
 * call rounded and a leg the difference, so the stretches of one trip sold separately add up to its
 * fare (review 445: rounded each on its own, 35 000 SYP over shares 0/3333/6667/10000 sold as three
 * stretches cost 11 666 + 11 669 + 11 666 = 35 001).
 */
const BASE = 35_000;
const VIP = 45_000;

/** A trip over four stops, each in its own city (fare shares 0, 3333, 6667, 10000), its last row VIP class. */
async function fourStopTrip(app: TestApp) {
  const date = futureDay(5);
  const stops = [];
  for (let index = 0; index < 4; index++) stops.push(await createStop(app.db, (await createCity(app.db)).id));
  const company = await createCompany(app.db);
  const bus = await createBus(app.db, company.id, { rows: 10, pattern: '2+2', vipRows: [9] });
  const trip = await createTrip(app.db, {
    companyId: company.id,
    busId: bus.id,
    departAt: atDamascus(date, '08:00'),
    priceBase: BASE,
    priceVip: VIP,
    calls: stops.map((stop, index) => ({ stop, at: index * 60 })),
  });
  const fixture: TripFixture = {
    companyId: company.id,
    tripId: trip.id,
    stopCallIds: trip.stopCallIds,
    seatCount: bus.seatCount,
  };
  return { date, stops, fixture };
}

const STRETCHES = [
  [0, 1],
  [1, 2],
  [2, 3],
] as const;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('the stretches of one trip add up to its fare', () => {
  const app = useTestApp({ SEARCH_RATE_LIMIT_PER_MINUTE: 0 });

  it('search prices A→B + B→C + C→D, base and VIP, as A→D', async () => {
    const { date, stops } = await fourStopTrip(app);
    const searchLeg = async (board: number, alight: number) => {
      const response = await app.request('/api/journeys/search', {
        method: 'POST',
        json: {
          origin_stop_id: stops[board]!.id,
          destination_stop_id: stops[alight]!.id,
          departure_date: date,
          passengers: 1,
        },
      });
      expect(response.status, response.text).toBe(200);
      const [journey, ...others] = response.body.data.journeys as {
        total_price: number;
        legs: { price: number; price_vip: number | null }[];
      }[];
      expect(others).toEqual([]);
      return {
        total: journey!.total_price,
        base: journey!.legs[0]!.price,
        vip: journey!.legs[0]!.price_vip!,
      };
    };
    const whole = await searchLeg(0, 3);
    const parts = [];
    for (const [board, alight] of STRETCHES) parts.push(await searchLeg(board, alight));
    expect(whole).toEqual({ total: BASE, base: BASE, vip: VIP });
    expect({
      total: sum(parts.map((part) => part.total)),
      base: sum(parts.map((part) => part.base)),
      vip: sum(parts.map((part) => part.vip)),
    }).toEqual(whole);
  });

  it('quotes and books A→B, B→C and C→D for what A→D costs', async () => {
    const { fixture } = await fourStopTrip(app);
    const caller = await webTraveller(app);
    const whole = await quote(app, caller, [{ trip: fixture, board: 0, alight: 3 }]);
    expect(whole.total_price).toBe(BASE);
    const quoted = [];
    for (const [board, alight] of STRETCHES) {
      quoted.push((await quote(app, caller, [{ trip: fixture, board, alight }])).total_price);
    }
    expect({ quoted: sum(quoted) }).toEqual({ quoted: BASE });
    const journeyIds = [];
    for (const [board, alight] of STRETCHES) {
      journeyIds.push((await bookJourney(app, caller, [{ trip: fixture, board, alight }])).journeyId);
    }
    const bookings = await app.db.query<{ total_price: number }>(
      'select total_price::int from bookings where journey_id = any ($1::uuid[])',
      [journeyIds],
    );
    expect(bookings).toHaveLength(3);
    expect({ charged: sum(bookings.map((booking) => booking.total_price)) }).toEqual({ charged: BASE });
  });
});
