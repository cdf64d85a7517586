import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { saveBusLayout } from '../../../db/writes/catalogue.js';
import { coachLayout } from '../../../domain/layout-templates.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createCorridor,
  createStop,
  createTrip,
  futureDay,
} from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  confirmJourney,
  holdJourney,
  travellers,
  webTraveller,
  type Caller,
} from '../../support/journeys.js';

/** One traveller on a trip from its first stop call to its last, as one VIP_SEAT. */
const vipQuoteBody = (trip: { id: string; stopCallIds: string[] }) => ({
  party_size: 1,
  legs: [
    {
      trip_id: trip.id,
      board_stop_call_id: trip.stopCallIds[0],
      alight_stop_call_id: trip.stopCallIds.at(-1),
    },
  ],
  resources: [{ leg_sequence: 1, resource_code: 'VIP_SEAT', quantity: 1, assignments: [] }],
  idempotency_key: `quote-${randomUUID()}`,
});

const quote = (app: TestApp, caller: Caller, body: Record<string, unknown>) =>
  app.request('/api/journeys/quote', { method: 'POST', headers: caller.headers, json: body });

/** A trip over two stops (VIP fare 15 000) on a bus of five rows of 2+2 whose first row (seats 1-4) is VIP class. */
async function vipRowTrip(app: TestApp) {
  const [a, b] = [await createCity(app.db), await createCity(app.db)];
  const stops = [await createStop(app.db, a.id), await createStop(app.db, b.id)];
  const company = await createCompany(app.db);
  const bus = await createBus(app.db, company.id, { rows: 5, pattern: '2+2', vipRows: [0] });
  const trip = await createTrip(app.db, {
    companyId: company.id,
    busId: bus.id,
    departAt: atDamascus(futureDay(4), '09:00'),
    calls: [
      { stop: stops[0]!, at: 0 },
      { stop: stops[1]!, at: 60 },
    ],
  });
  return { bus, trip };
}

describe('a VIP_SEAT on a bus whose layout has no VIP seat', () => {
  const app = useTestApp();

  it('is refused at the quote like a trip without a VIP fare, and nothing is stored', async () => {
    // The corridor's bus is a plain 2+2 coach; its trip still has a VIP fare (15 000).
    const corridor = await createCorridor(app.db);
    const caller = await webTraveller(app);
    const body = vipQuoteBody({ id: corridor.trip.id, stopCallIds: corridor.trip.stopCallIds });
    const refused = await quote(app, caller, body);
    expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({
      status: 400,
      errorCode: 'RESOURCE_NOT_OFFERED',
    });
    expect(
      await app.db.query('select 1 from journey_quotes where idempotency_key = $1', [body.idempotency_key]),
    ).toEqual([]);
    expect(
      await app.db.query('select 1 from seat_allocations where trip_id = $1', [corridor.trip.id]),
    ).toEqual([]);
  });

  it('is still quoted at the VIP fare on a bus with VIP seats and seated on a VIP seat', async () => {
    const { trip } = await vipRowTrip(app);
    const caller = await webTraveller(app);
    const quoted = await quote(app, caller, vipQuoteBody(trip));
    expect(quoted.status, quoted.text).toBe(200);
    expect(quoted.body.data.total_price).toBe(15_000);
    const { quote_id, journey_id } = quoted.body.data;
    const held = await holdJourney(app, caller, journey_id, { quote_id });
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmJourney(app, caller, journey_id, {
      quote_id,
      hold_batch_id: held.body.data.holdBatchId,
      travellers: travellers(1),
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const [booking] = await app.db.query<{ seat_numbers: string[]; total_price: number }>(
      `select seat_numbers, total_price::int from bookings where journey_id = $1`,
      [journey_id],
    );
    // Seat 1 is the lowest VIP-class seat; the seat map prices it as the booking was charged.
    expect(booking).toEqual({ seat_numbers: ['1'], total_price: 15_000 });
    const map = await app.request(`/api/trips/${trip.id}/seats`, { headers: caller.headers });
    const seat = (map.body.data.seats as { seat_number: string; seat_class: string; price: number }[]).find(
      (entry) => entry.seat_number === '1',
    );
    expect(seat).toMatchObject({ seat_class: 'VIP', price: 15_000 });
  });

  it('is refused at the hold when the layout lost its VIP seats after the quote, and nothing is held', async () => {
    const { bus, trip } = await vipRowTrip(app);
    const caller = await webTraveller(app);
    const quoted = await quote(app, caller, vipQuoteBody(trip));
    expect(quoted.status, quoted.text).toBe(200);
    // The company replaces the layout with an all-standard one before the traveller holds.
    await app.db.transaction((client) =>
      saveBusLayout(client, {
        busId: bus.id,
        document: coachLayout({ rows: 5, pattern: '2+2' }),
        saveMode: 'active',
      }),
    );
    const held = await holdJourney(app, caller, quoted.body.data.journey_id, {
      quote_id: quoted.body.data.quote_id,
    });
    expect({ status: held.status, errorCode: held.body.errorCode }).toEqual({
      status: 409,
      errorCode: 'SEATS_UNAVAILABLE',
    });
    expect(await app.db.query('select 1 from seat_allocations where trip_id = $1', [trip.id])).toEqual([]);
  });

  it('is offered by no search or trip read: price_vip is null there, and shown again once the bus has VIP seats', async () => {
    // The corridor's bus is a plain 2+2 coach; its trip still has a VIP fare (15 000).
    const corridor = await createCorridor(app.db);
    const caller = await webTraveller(app);
    const vipFares = async () => {
      const journeys = await app.request('/api/journeys/search', {
        method: 'POST',
        headers: caller.headers,
        json: {
          origin_stop_id: corridor.originStop.id,
          destination_stop_id: corridor.destinationStop.id,
          departure_date: corridor.date,
          passengers: 1,
        },
      });
      const listed = await app.request(
        `/api/trips?from=${corridor.origin.id}&to=${corridor.destination.id}&date=${corridor.date}`,
        { headers: caller.headers },
      );
      const detail = await app.request(`/api/trips/${corridor.trip.id}`, { headers: caller.headers });
      expect([journeys.status, listed.status, detail.status]).toEqual([200, 200, 200]);
      const leg = (journeys.body.data.journeys as { legs: { trip_id: string; price_vip: number | null }[] }[])
        .flatMap((journey) => journey.legs)
        .find((entry) => entry.trip_id === corridor.trip.id);
      const trip = (listed.body.data as { id: string; price_vip: number | null }[]).find(
        (entry) => entry.id === corridor.trip.id,
      );
      return { search: leg?.price_vip, listing: trip?.price_vip, detail: detail.body.data.price_vip };
    };
    expect(await vipFares()).toEqual({ search: null, listing: null, detail: null });

    // The company gives the bus a VIP row: the trip's VIP fare is sold, so it is shown again.
    await app.db.transaction((client) =>
      saveBusLayout(client, {
        busId: corridor.bus.id,
        document: coachLayout({ rows: 10, pattern: '2+2', vipRows: [0] }),
        saveMode: 'active',
      }),
    );
    const shown = await vipFares();
    expect(shown.detail).toBe(15_000);
    expect(shown.listing).toBe(15_000);
    expect(shown.search).toBeGreaterThan(0);
  });
});
