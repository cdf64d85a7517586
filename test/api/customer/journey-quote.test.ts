import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { legFare } from '../../../domain/pricing.js';
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
import { holdJourney, mobileTraveller, tripOf } from '../../support/journeys.js';

const quote = (
  app: TestApp,
  body: Record<string, unknown>,
  init: { token?: string; headers?: Record<string, string> } = {},
) => app.request('/api/journeys/quote', { method: 'POST', json: body, ...init });

const newKey = () => `quote-${randomUUID()}`;

/** Quotes stored under an idempotency key (tests share one database, so never count them all). */
/** A quote body of one traveller on two legs, each from its trip's first stop call to its third. */
const twoLegBody = (...trips: { tripId: string; stopCallIds: string[] }[]) => ({
  party_size: 1,
  legs: trips.map((trip) => ({
    trip_id: trip.tripId,
    board_stop_call_id: trip.stopCallIds[0],
    alight_stop_call_id: trip.stopCallIds[2],
  })),
  resources: trips.map((_, index) => ({
    leg_sequence: index + 1,
    resource_code: 'SEAT',
    quantity: 1,
    assignments: [],
  })),
  idempotency_key: newKey(),
});

async function storedQuotes(app: TestApp, key: string) {
  return app.db.query<{
    id: string;
    journey_id: string;
    owner_user_id: string | null;
    total: string;
    party_size: number;
  }>(
    'select id, journey_id, owner_user_id, total, party_size from journey_quotes where idempotency_key = $1',
    [key],
  );
}

/** The corridor's trip from its first stop to its third (fare share 0 → 6667 basis points). */
async function corridorQuote(app: TestApp, change: Record<string, unknown> = {}) {
  const world = await createCorridor(app.db, { date: futureDay(3) });
  const body = {
    party_size: 2,
    legs: [
      {
        trip_id: world.trip.id,
        board_stop_call_id: world.trip.stopCallIds[0]!,
        alight_stop_call_id: world.trip.stopCallIds[2]!,
      },
    ],
    resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 2, assignments: ['1'] }],
    idempotency_key: newKey(),
    ...change,
  };
  return { world, body };
}

/** A trip over two stops on a bus of five rows of 2+2 whose first row (seats 1-4) is VIP class. */
async function vipRowTrip(app: TestApp) {
  const date = futureDay(4);
  const [a, b] = [await createCity(app.db), await createCity(app.db)];
  const stops = [await createStop(app.db, a.id), await createStop(app.db, b.id)];
  const company = await createCompany(app.db);
  const bus = await createBus(app.db, company.id, { rows: 5, pattern: '2+2', vipRows: [0] });
  return createTrip(app.db, {
    companyId: company.id,
    busId: bus.id,
    departAt: atDamascus(date, '09:00'),
    calls: [
      { stop: stops[0]!, at: 0 },
      { stop: stops[1]!, at: 60 },
    ],
  });
}

describe('POST /journeys/quote', () => {
  const app = useTestApp();

  it('prices the legs from the stop calls, stores the quote and holds no seat', async () => {
    const { world, body } = await corridorQuote(app);
    const before = Math.floor(Date.now() / 1000);
    const response = await quote(app, body);
    expect(response.status).toBe(200);
    const data = response.body.data;
    const fare = legFare(10_000, 0, 6667);
    expect(data).toMatchObject({ party_size: 2, currency: 'SYP', total_price: 2 * fare });
    expect(data.quote_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.journey_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.journey_id).not.toBe(data.quote_id);
    expect(data.expiresAt).toBeGreaterThanOrEqual(before + 15 * 60);
    expect(data.expiresAt).toBeLessThanOrEqual(before + 15 * 60 + 5);
    expect(data.legs).toHaveLength(1);
    expect(data.legs[0]).toMatchObject({
      sequence: 1,
      trip_id: world.trip.id,
      company_id: world.company.id,
      board: {
        stop_call_id: world.trip.stopCallIds[0],
        id: world.trip.stopCallIds[0],
        stop_id: world.originStop.id,
      },
      alight: { stop_call_id: world.trip.stopCallIds[2], stop_id: world.destinationStop.id },
      unit_price: fare,
      quantity: 2,
      subtotal: 2 * fare,
      resources: [
        { resource_code: 'SEAT', quantity: 2, unit_price: fare, subtotal: 2 * fare, assignments: ['1'] },
      ],
      assignments: ['1'],
    });
    const [stored, ...others] = await storedQuotes(app, body.idempotency_key);
    expect(others).toEqual([]);
    expect(stored).toMatchObject({
      id: data.quote_id,
      journey_id: data.journey_id,
      owner_user_id: null,
      total: String(2 * fare),
      party_size: 2,
    });
    expect(await app.db.query('select 1 from seat_allocations where trip_id = $1', [world.trip.id])).toEqual(
      [],
    );
  });

  it('charges the VIP fare for VIP_SEAT and for a seat of VIP class', async () => {
    const trip = await vipRowTrip(app);
    const response = await quote(app, {
      party_size: 3,
      legs: [
        {
          trip_id: trip.id,
          board_stop_call_id: trip.stopCallIds[0],
          alight_stop_call_id: trip.stopCallIds[1],
        },
      ],
      resources: [
        { leg_sequence: 1, resource_code: 'VIP_SEAT', quantity: 1, assignments: ['2'] },
        { leg_sequence: 1, resource_code: 'SEAT', quantity: 2, assignments: ['1', '5'] },
      ],
      idempotency_key: newKey(),
    });
    expect(response.status).toBe(200);
    // Seats 1-4 are the VIP row: seat 1 under SEAT still costs the VIP fare, seat 5 the standard one.
    expect(response.body.data.legs[0].resources.map((r: { subtotal: number }) => r.subtotal)).toEqual([
      15_000,
      15_000 + 10_000,
    ]);
    expect(response.body.data.total_price).toBe(40_000);
  });

  it('quotes a connection of two trips that chain at one stop', async () => {
    const date = futureDay(5);
    const [a, b, c] = [await createCity(app.db), await createCity(app.db), await createCity(app.db)];
    const [aStop, bStop, cStop] = [
      await createStop(app.db, a.id),
      await createStop(app.db, b.id),
      await createStop(app.db, c.id),
    ];
    const trips = [];
    for (const [from, to, time] of [
      [aStop, bStop, '07:00'],
      [bStop, cStop, '08:30'],
    ] as const) {
      const company = await createCompany(app.db);
      const bus = await createBus(app.db, company.id);
      trips.push(
        await createTrip(app.db, {
          companyId: company.id,
          busId: bus.id,
          departAt: atDamascus(date, time),
          calls: [
            { stop: from, at: 0 },
            { stop: to, at: 60 },
          ],
        }),
      );
    }
    const legs = trips.map((trip) => ({
      trip_id: trip.id,
      board_stop_call_id: trip.stopCallIds[0],
      alight_stop_call_id: trip.stopCallIds[1],
    }));
    const resources = [1, 2].map((leg_sequence) => ({
      leg_sequence,
      resource_code: 'SEAT',
      quantity: 1,
      assignments: [],
    }));
    const response = await quote(app, { party_size: 1, legs, resources, idempotency_key: newKey() });
    expect(response.status).toBe(200);
    expect(
      response.body.data.legs.map((leg: { sequence: number; trip_id: string }) => [
        leg.sequence,
        leg.trip_id,
      ]),
    ).toEqual([
      [1, trips[0]!.id],
      [2, trips[1]!.id],
    ]);
    expect(response.body.data.total_price).toBe(20_000);

    const reversed = await quote(app, {
      party_size: 1,
      legs: [legs[1], legs[0]],
      resources,
      idempotency_key: newKey(),
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body.errorCode).toBe('LEGS_NOT_CONNECTED');
  });

  it("answers a traveller's retry with the same key and body with the stored quote, and refuses the key for another body", async () => {
    const { body } = await corridorQuote(app);
    const token = await app.tokenFor({ kind: 'PRODUCTION' });
    const first = await quote(app, body, { token });
    const again = await quote(app, body, { token });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    const changed = await quote(
      app,
      { ...body, resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 2, assignments: ['2'] }] },
      { token },
    );
    expect(changed.status).toBe(409);
    expect(changed.body.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await storedQuotes(app, body.idempotency_key)).toHaveLength(1);
  });

  it("makes one quote of a traveller's concurrent identical requests", async () => {
    const { body } = await corridorQuote(app);
    const token = await app.tokenFor({ kind: 'PRODUCTION' });
    const responses = await Promise.all(Array.from({ length: 6 }, () => quote(app, body, { token })));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(responses.map((r) => r.body.data.quote_id)).size).toBe(1);
    expect(await storedQuotes(app, body.idempotency_key)).toHaveLength(1);
  });

  it('keys idempotency per traveller: a guest and a signed-in traveller may use the same key', async () => {
    const { body } = await corridorQuote(app);
    const token = await app.tokenFor({ kind: 'PRODUCTION' });
    const guest = await quote(app, body);
    const traveller = await quote(app, body, { token });
    expect([guest.status, traveller.status]).toEqual([200, 200]);
    expect(traveller.body.data.quote_id).not.toBe(guest.body.data.quote_id);
    const owners = (await storedQuotes(app, body.idempotency_key)).map((row) => row.owner_user_id);
    expect(owners).toHaveLength(2);
    expect(owners.filter((owner) => owner === null)).toHaveLength(1);
  });

  it("never replays a guest's key: two guests sending the same key and body each get, and hold, their own quote", async () => {
    // A key a client derives from what it quotes (the journey and party): the same for two strangers.
    const { body } = await corridorQuote(app, {
      party_size: 1,
      resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 1, assignments: [] }],
    });
    const guestA = await quote(app, body);
    const guestB = await quote(app, body);
    expect([guestA.status, guestB.status]).toEqual([200, 200]);
    expect(guestB.body.data.quote_id).not.toBe(guestA.body.data.quote_id);
    expect(guestB.body.data.journey_id).not.toBe(guestA.body.data.journey_id);

    // Each guest signs in and holds the quote it was answered with.
    const travellerB = await mobileTraveller(app);
    const travellerA = await mobileTraveller(app);
    const heldB = await holdJourney(app, travellerB, guestB.body.data.journey_id, {
      quote_id: guestB.body.data.quote_id,
    });
    const heldA = await holdJourney(app, travellerA, guestA.body.data.journey_id, {
      quote_id: guestA.body.data.quote_id,
    });
    expect(
      { b: heldB.status, a: heldA.status, aCode: heldA.body?.errorCode },
      'two strangers got one quote; the second hold is refused',
    ).toEqual({ b: 200, a: 200, aCode: undefined });
  });

  it('needs the CSRF header from a cookie-authenticated web traveller, and none from a bearer', async () => {
    const { body } = await corridorQuote(app);
    const web = await app.signIn();
    const withoutHeader = await quote(app, body, { headers: { Cookie: web.cookie } });
    expect(withoutHeader.status).toBe(403);
    expect(await storedQuotes(app, body.idempotency_key)).toEqual([]);
    const withHeader = await quote(app, body, { headers: web.writeHeaders });
    expect(withHeader.status).toBe(200);
    const [stored] = await storedQuotes(app, body.idempotency_key);
    expect(stored!.owner_user_id).toBe(web.userId);
  });

  it('refuses a trip of another inventory scope exactly like a missing one, and writes nothing', async () => {
    const internal = await createCorridor(app.db, { date: futureDay(3), scope: 'INTERNAL' });
    const production = await createCorridor(app.db, { date: futureDay(3) });
    const legOf = (world: typeof internal) => ({
      trip_id: world.trip.id,
      board_stop_call_id: world.trip.stopCallIds[0],
      alight_stop_call_id: world.trip.stopCallIds[1],
    });
    const resources = [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 1, assignments: [] }];
    const cases = [
      { token: undefined, leg: legOf(internal) },
      { token: await app.tokenFor({ kind: 'INTERNAL' }), leg: legOf(production) },
      {
        token: await app.tokenFor({ kind: 'DEMO', companyId: production.company.id }),
        leg: legOf(production),
      },
      { token: undefined, leg: { ...legOf(production), trip_id: randomUUID() } },
    ];
    const answers = [];
    for (const { token, leg } of cases) {
      const key = newKey();
      const response = await quote(
        app,
        { party_size: 1, legs: [leg], resources, idempotency_key: key },
        { token },
      );
      answers.push({
        status: response.status,
        errorCode: response.body.errorCode,
        message: response.body.message,
      });
      expect(await storedQuotes(app, key)).toEqual([]);
    }
    expect(answers).toEqual(
      cases.map(() => ({ status: 404, errorCode: 'TRIP_NOT_FOUND', message: 'No such trip' })),
    );
  });

  describe('refuses what it cannot offer, writing nothing', () => {
    /** The operation's prose in the OpenAPI document: a client reads there what each errorCode means. */
    let contract: Promise<string> | undefined;
    const quoteContract = () =>
      (contract ??= app
        .request('/api/openapi.json')
        .then((document) => document.body.paths['/api/journeys/quote'].post.description as string));
    const refused = async (body: Record<string, unknown>, status: number, errorCode: string) => {
      const response = await quote(app, body);
      expect({ status: response.status, errorCode: response.body.errorCode }).toEqual({ status, errorCode });
      expect(await storedQuotes(app, body.idempotency_key as string)).toEqual([]);
      expect(await quoteContract(), `${errorCode} is named in the OpenAPI operation`).toContain(errorCode);
    };
    type Leg = { trip_id: string; board_stop_call_id: string; alight_stop_call_id: string };
    const withLeg = (body: { legs: Leg[] }, change: Partial<Leg>) => ({
      ...body,
      legs: [{ ...body.legs[0]!, ...change }],
    });

    it('a stop_id where a stop call belongs', async () => {
      const { world, body } = await corridorQuote(app);
      await refused(withLeg(body, { board_stop_call_id: world.originStop.id }), 400, 'STOP_ID_NOT_ACCEPTED');
      await refused(
        withLeg(body, { alight_stop_call_id: world.destinationStop.id }),
        400,
        'STOP_ID_NOT_ACCEPTED',
      );
    });

    it('a stop call of another trip, or legs in the wrong direction', async () => {
      const { body } = await corridorQuote(app);
      const other = await createCorridor(app.db, { date: futureDay(3) });
      await refused(
        withLeg(body, { alight_stop_call_id: other.trip.stopCallIds[2] }),
        400,
        'STOP_CALL_NOT_ON_TRIP',
      );
      await refused(withLeg(body, { board_stop_call_id: randomUUID() }), 400, 'STOP_CALL_NOT_ON_TRIP');
      const leg = body.legs[0]!;
      await refused(
        withLeg(body, {
          board_stop_call_id: leg.alight_stop_call_id,
          alight_stop_call_id: leg.board_stop_call_id,
        }),
        400,
        'INVALID_LEG_DIRECTION',
      );
    });

    it('a leg between two calls of the same fare share (stored before routes refused them)', async () => {
      const { world, body } = await corridorQuote(app);
      const [, call1, call2] = world.trip.stopCallIds;
      await app.db.query(`update trip_stop_calls set fare_share_bp = 5000 where id = any ($1::uuid[])`, [
        [call1, call2],
      ]);
      const leg = { board_stop_call_id: call1!, alight_stop_call_id: call2! };
      await refused(withLeg(body, leg), 400, 'STOP_CALL_NOT_BOOKABLE');
      const response = await quote(app, { ...withLeg(body, leg), idempotency_key: newKey() });
      expect(response.body).toMatchObject({
        message: 'This trip sells no fare between these stop calls',
        details: { leg_sequence: 1 },
      });
      const priced = await quote(app, {
        ...withLeg(body, { alight_stop_call_id: call2! }),
        idempotency_key: newKey(),
      });
      expect(priced.status, priced.text).toBe(200);
      expect(priced.body.data.legs[0].unit_price).toBe(5_000);
    });

    it('a trip that can no longer be booked', async () => {
      const world = await createCorridor(app.db, { date: futureDay(3) });
      await app.db.query(`update trips set status = 'CANCELLED' where id = $1`, [world.trip.id]);
      await refused(
        {
          party_size: 1,
          legs: [
            {
              trip_id: world.trip.id,
              board_stop_call_id: world.trip.stopCallIds[0],
              alight_stop_call_id: world.trip.stopCallIds[1],
            },
          ],
          resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 1, assignments: [] }],
          idempotency_key: newKey(),
        },
        409,
        'TRIP_NOT_BOOKABLE',
      );
    });

    it("two legs whose change the first leg's announced delay makes too short", async () => {
      // The first leg reaches the shared stop at 09:00 as planned, the second leaves it at `departs`.
      const delayedConnection = async (departs: string, delayMinutes: number) => {
        const shared = await createStop(app.db, (await createCity(app.db)).id);
        const day = futureDay(4);
        const first = await tripOf(app.db, { to: shared, departAt: atDamascus(day, '06:00') });
        const second = await tripOf(app.db, { from: shared, departAt: atDamascus(day, departs) });
        await app.db.query(`update trips set status = 'DELAYED', delay_minutes = $2 where id = $1`, [
          first.tripId,
          delayMinutes,
        ]);
        return twoLegBody(first, second);
      };
      // A 60-minute change after a 50-minute delay leaves 10 minutes, under the same-stop minimum of 20.
      await refused(await delayedConnection('10:00', 50), 400, 'LEGS_NOT_CONNECTED');
      // After a 40-minute delay it leaves the minimum, and 390 minutes after a 60-minute delay the longest wait (360).
      for (const [departs, delay] of [
        ['10:00', 40],
        ['15:30', 60],
      ] as const) {
        const response = await quote(app, await delayedConnection(departs, delay));
        expect(response.status, response.text).toBe(200);
      }
    });

    it('a journey that ends in the city where it starts (journey search refuses that route)', async () => {
      // The corridor's trip calls twice in its origin city: a station, then a parking point.
      const { world, body } = await corridorQuote(app);
      await refused(
        withLeg(body, { alight_stop_call_id: world.trip.stopCallIds[1]! }),
        400,
        'SAME_ORIGIN_AND_DESTINATION',
      );
      // Two legs that chain at a stop and come back to the city of the first boarding.
      const home = await createStop(app.db, (await createCity(app.db)).id);
      const shared = await createStop(app.db, (await createCity(app.db)).id);
      const day = futureDay(4);
      const out = await tripOf(app.db, { from: home, to: shared, departAt: atDamascus(day, '06:00') });
      const back = await tripOf(app.db, { from: shared, to: home, departAt: atDamascus(day, '10:00') });
      await refused(twoLegBody(out, back), 400, 'SAME_ORIGIN_AND_DESTINATION');
    });

    it('seats that are not on the bus, taken, or too few', async () => {
      const { world, body } = await corridorQuote(app);
      const seat = (assignments: string[], quantity = 2) => ({
        ...body,
        idempotency_key: newKey(),
        resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity, assignments }],
      });
      await refused(seat(['99']), 400, 'SEAT_NOT_FOUND');
      // Seat "1" is d1-r1-c1; held on the ridden part by someone else.
      await app.db.query(
        `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, expires_at)
         values ($1, 'd1-r1-c1', 1, 3, 'HELD', now() + interval '10 minutes')`,
        [world.trip.id],
      );
      await refused(seat(['1']), 409, 'SEAT_OCCUPIED');
      await app.db.query(
        `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status)
         select $1, 'd1-r' || r || '-c' || c, 0, 3, 'CONFIRMED' from generate_series(2, 10) r, unnest(array[1, 2, 4, 5]) c`,
        [world.trip.id],
      );
      await refused({ ...seat([], 4), party_size: 4 }, 409, 'INSUFFICIENT_SEATS');
    });

    it('more VIP seats than are free once the VIP seats chosen for SEATs are taken off', async () => {
      const trip = await vipRowTrip(app);
      const traveller = await mobileTraveller(app);
      const quoted = await quote(
        app,
        {
          party_size: 5,
          legs: [
            {
              trip_id: trip.id,
              board_stop_call_id: trip.stopCallIds[0],
              alight_stop_call_id: trip.stopCallIds[1],
            },
          ],
          // Seats 1 and 2 are VIP: with them, three VIP_SEATs need five of the four VIP seats.
          resources: [
            { leg_sequence: 1, resource_code: 'SEAT', quantity: 2, assignments: ['1', '2'] },
            { leg_sequence: 1, resource_code: 'VIP_SEAT', quantity: 3, assignments: [] },
          ],
          idempotency_key: newKey(),
        },
        { headers: traveller.headers },
      );
      const held =
        quoted.status === 200
          ? await holdJourney(app, traveller, quoted.body.data.journey_id, {
              quote_id: quoted.body.data.quote_id,
            })
          : undefined;
      expect({
        quote: [quoted.status, quoted.body.errorCode],
        hold: held && [held.status, held.body.errorCode],
      }).toEqual({ quote: [409, 'INSUFFICIENT_SEATS'], hold: undefined });
      expect(quoted.body.details).toMatchObject({ leg_sequence: 1, free_vip_seats: 4 });
    });

    it('VIP seats on a trip without a VIP fare', async () => {
      const world = await createCorridor(app.db, { date: futureDay(3) });
      await app.db.query('update trips set price_vip = null where id = $1', [world.trip.id]);
      await refused(
        {
          party_size: 1,
          legs: [
            {
              trip_id: world.trip.id,
              board_stop_call_id: world.trip.stopCallIds[0],
              alight_stop_call_id: world.trip.stopCallIds[2],
            },
          ],
          resources: [{ leg_sequence: 1, resource_code: 'VIP_SEAT', quantity: 1, assignments: [] }],
          idempotency_key: newKey(),
        },
        400,
        'RESOURCE_NOT_OFFERED',
      );
    });

    it('a VIP seat asked for with a standard-class seat chosen', async () => {
      const trip = await vipRowTrip(app);
      await refused(
        {
          party_size: 1,
          legs: [
            {
              trip_id: trip.id,
              board_stop_call_id: trip.stopCallIds[0],
              alight_stop_call_id: trip.stopCallIds[1],
            },
          ],
          // Seats 1-4 are VIP class; seat 5 is standard.
          resources: [{ leg_sequence: 1, resource_code: 'VIP_SEAT', quantity: 1, assignments: ['5'] }],
          idempotency_key: newKey(),
        },
        400,
        'SEAT_CLASS_MISMATCH',
      );
    });

    it.each([
      [
        'resources that do not add up to the party',
        { resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 1, assignments: [] }] },
        'RESOURCES_DO_NOT_MATCH_PARTY',
      ],
      [
        'more assignments than seats',
        {
          resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 2, assignments: ['1', '2', '3'] }],
        },
        'ASSIGNMENTS_EXCEED_QUANTITY',
      ],
      [
        'a seat assigned twice',
        { resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 2, assignments: ['1', '1'] }] },
        'DUPLICATE_SEAT_ASSIGNMENT',
      ],
      [
        'a resource for a leg that does not exist',
        { resources: [{ leg_sequence: 2, resource_code: 'SEAT', quantity: 2, assignments: [] }] },
        'VALIDATION_FAILED',
      ],
      [
        'an unknown resource code',
        { resources: [{ leg_sequence: 1, resource_code: 'BED', quantity: 2, assignments: [] }] },
        'VALIDATION_FAILED',
      ],
      ['a party of none', { party_size: 0 }, 'VALIDATION_FAILED'],
      ['no legs', { legs: [] }, 'VALIDATION_FAILED'],
      [
        'a malformed trip id',
        {
          legs: [{ trip_id: 'trip-1', board_stop_call_id: randomUUID(), alight_stop_call_id: randomUUID() }],
        },
        'VALIDATION_FAILED',
      ],
      ['an unknown field', { coupon: 'FREE' }, 'VALIDATION_FAILED'],
      ['a short idempotency key', { idempotency_key: 'short' }, 'VALIDATION_FAILED'],
    ])('%s', async (_name, change, errorCode) => {
      const { body } = await corridorQuote(app);
      const request = { ...body, ...change };
      const response = await quote(app, request);
      expect({ status: response.status, errorCode: response.body.errorCode }).toEqual({
        status: 400,
        errorCode,
      });
      expect(await storedQuotes(app, request.idempotency_key)).toEqual([]);
      expect(await quoteContract(), `${errorCode} is named in the OpenAPI operation`).toContain(errorCode);
    });
  });
});
