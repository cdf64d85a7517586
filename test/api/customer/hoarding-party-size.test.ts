import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCorridor } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { holdJourney, quote, webTraveller, type Caller } from '../../support/journeys.js';

/**
 * README "Abuse limits": one account may hold at most HELD_SEATS_MAX_PER_TRIP (10) seats of a trip,
 * so no hold can ever place a larger party. Journey search, GET /trips and the quote refuse such a
 * party up front with the code the hold would answer, 409 SEAT_HOLD_LIMIT_REACHED, so the traveller
 * learns it before choosing a journey; nothing is stored. With the cap off (0) they are offered.
 */

type Corridor = Awaited<ReturnType<typeof createCorridor>>;

function search(app: TestApp, world: Corridor, passengers: number) {
  return app.request('/api/journeys/search', {
    method: 'POST',
    json: {
      origin_city_id: world.origin.id,
      destination_city_id: world.destination.id,
      departure_date: world.date,
      passengers,
    },
  });
}

function listTrips(app: TestApp, world: Corridor, passengers: number) {
  return app.request(
    `/api/trips?from=${world.origin.id}&to=${world.destination.id}&date=${world.date}&passengers=${passengers}`,
  );
}

/** POST /journeys/quote of the corridor's trip for `partySize`, under `key`. */
function quoteParty(app: TestApp, caller: Caller, world: Corridor, partySize: number, key: string) {
  return app.request('/api/journeys/quote', {
    method: 'POST',
    headers: caller.headers,
    json: {
      party_size: partySize,
      legs: [
        {
          trip_id: world.trip.id,
          board_stop_call_id: world.trip.stopCallIds[0],
          alight_stop_call_id: world.trip.stopCallIds[2],
        },
      ],
      resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: partySize }],
      idempotency_key: key,
    },
  });
}

/** What a quote, a hold or a seat lock would have written on the corridor's trip. */
async function written(app: TestApp, world: Corridor, key: string) {
  const [row] = await app.db.query<{ quotes: number; seats: number }>(
    `select (select count(*)::int from journey_quotes where idempotency_key = $2) as quotes,
            (select count(*)::int from seat_allocations where trip_id = $1) as seats`,
    [world.trip.id, key],
  );
  return row!;
}

const corridorTrip = (world: Corridor) => ({
  companyId: world.company.id,
  tripId: world.trip.id,
  stopCallIds: world.trip.stopCallIds,
  seatCount: 40,
});

describe('a party larger than one account may hold on a trip (HELD_SEATS_MAX_PER_TRIP 10)', () => {
  const app = useTestApp({ SEARCH_RATE_LIMIT_PER_MINUTE: 0 });

  it('is refused by search, GET /trips and the quote with 409 SEAT_HOLD_LIMIT_REACHED, nothing stored', async () => {
    const world = await createCorridor(app.db);
    const caller = await webTraveller(app);
    const key = `quote-${randomUUID()}`;
    const answers = [
      await search(app, world, 11),
      await listTrips(app, world, 11),
      await quoteParty(app, caller, world, 11, key),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(409);
      expect(answer.body).toMatchObject({
        success: false,
        errorCode: 'SEAT_HOLD_LIMIT_REACHED',
        details: { scope: 'TRIP', limit: 10, requested: 11 },
      });
    }
    expect(await written(app, world, key)).toEqual({ quotes: 0, seats: 0 });
  });

  it('is offered, quoted and held at exactly the cap (a party of 10)', async () => {
    const world = await createCorridor(app.db);
    const searched = await search(app, world, 10);
    expect(searched.status, searched.text).toBe(200);
    expect((searched.body.data.journeys as any[]).some((j) => j.legs[0].trip_id === world.trip.id)).toBe(
      true,
    );
    const listed = await listTrips(app, world, 10);
    expect(listed.status, listed.text).toBe(200);
    expect((listed.body.data as any[]).map((trip) => trip.id)).toContain(world.trip.id);

    const caller = await webTraveller(app);
    const quoted = await quote(app, caller, [{ trip: corridorTrip(world), board: 0, alight: 2 }], 10);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
  });

  it('names SEAT_HOLD_LIMIT_REACHED in the search, GET /trips and quote operations', async () => {
    const paths = (await app.request('/api/openapi.json')).body.paths;
    for (const [path, method] of [
      ['/api/journeys/search', 'post'],
      ['/api/trips', 'get'],
      ['/api/journeys/quote', 'post'],
    ] as const) {
      expect(paths[path][method].description as string, path).toContain('409 SEAT_HOLD_LIMIT_REACHED');
      expect(Object.keys(paths[path][method].responses), path).toContain('409');
    }
  });
});

describe('a party of 12 with the held-seat caps off (0)', () => {
  const app = useTestApp({
    SEARCH_RATE_LIMIT_PER_MINUTE: 0,
    HELD_SEATS_MAX_PER_TRIP: 0,
    HELD_SEATS_MAX_TOTAL: 0,
  });

  it('is offered by search and GET /trips, quoted and held', async () => {
    const world = await createCorridor(app.db);
    expect((await search(app, world, 12)).status).toBe(200);
    expect((await listTrips(app, world, 12)).status).toBe(200);
    const caller = await webTraveller(app);
    const quoted = await quote(app, caller, [{ trip: corridorTrip(world), board: 0, alight: 2 }], 12);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
  });
});
