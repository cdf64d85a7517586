import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../../db/orm.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  confirmJourney,
  connection,
  holdForConfirm,
  holdJourney,
  journeyFacts,
  mobileTraveller,
  quote,
  webTraveller,
  type Caller,
  type TripFixture,
} from '../../support/journeys.js';

/**
 * README "Search and catalogue": a connection's change is measured from the first leg's expected
 * arrival, its planned arrival plus the delay its company announced. A delay announced after the
 * quote that leaves no change time stops the sale where it stands: the hold and the confirm judge the
 * connection again, as search and a new quote do, and refuse it with 409 LEGS_NO_LONGER_CONNECTED,
 * writing nothing. The connection fixture's first bus arrives at 09:00 and the second leaves the same
 * stop at 10:00; a change at the same stop needs 20 minutes (TRANSFER_MIN_SAME_STOP_MINUTES).
 */

/** What MARK_DELAYED leaves on the trip row. */
async function announceDelay(db: Database, trip: TripFixture, minutes: number) {
  await db.query(`update trips set status = 'DELAYED', delay_minutes = $2 where id = $1`, [
    trip.tripId,
    minutes,
  ]);
}

/** Everything a hold or a confirm would write for the journey, and the seats taken on both buses. */
async function sold(app: TestApp, journeyId: string, trips: TripFixture[]) {
  const [batches] = await app.db.query<{ n: number; active: number }>(
    `select count(*)::int as n, count(*) filter (where status = 'ACTIVE')::int as active
     from hold_batches where scope_kind = 'JOURNEY' and scope_id = $1`,
    [journeyId],
  );
  const seats = await app.db.query<{ trip_id: string; status: string }>(
    `select trip_id, status from seat_allocations where trip_id = any($1::uuid[]) order by trip_id, status`,
    [trips.map((trip) => trip.tripId)],
  );
  return { ...(await journeyFacts(app.db, journeyId)), batches, seats };
}

/** A new quote of the same two legs, as a traveller would try once search no longer shows them. */
function requote(app: TestApp, caller: Caller, legs: TripFixture[]) {
  return app.request('/api/journeys/quote', {
    method: 'POST',
    headers: caller.headers,
    json: {
      party_size: 1,
      legs: legs.map((trip) => ({
        trip_id: trip.tripId,
        board_stop_call_id: trip.stopCallIds[0],
        alight_stop_call_id: trip.stopCallIds[trip.stopCallIds.length - 1],
      })),
      resources: legs.map((_trip, index) => ({
        leg_sequence: index + 1,
        resource_code: 'SEAT',
        quantity: 1,
      })),
      idempotency_key: `quote-${randomUUID()}`,
    },
  });
}

describe('a connection whose first leg is delayed after the quote', () => {
  const app = useTestApp({ SEARCH_RATE_LIMIT_PER_MINUTE: 0 });

  it('is not held once the delay leaves no change time: 409 LEGS_NO_LONGER_CONNECTED, nothing held', async () => {
    const { first, second } = await connection(app.db);
    const caller = await webTraveller(app);
    const quoted = await quote(app, caller, [{ trip: first }, { trip: second }]);

    // Arriving at 11:00 now, an hour after the second bus leaves.
    await announceDelay(app.db, first, 120);
    const again = await requote(app, caller, [first, second]);
    expect([again.status, again.body.errorCode]).toEqual([400, 'LEGS_NOT_CONNECTED']);

    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(409);
    expect(held.body).toMatchObject({
      success: false,
      errorCode: 'LEGS_NO_LONGER_CONNECTED',
      details: {
        journey_id: quoted.journey_id,
        leg_sequence: 2,
        expected_arrival_at: new Date(
          Date.parse((await arrivalOf(app.db, first)).arrival_at) + 120 * 60_000,
        ).toISOString(),
      },
    });
    const facts = await sold(app, quoted.journey_id, [first, second]);
    expect({
      journey: facts.journey?.status,
      batches: facts.batches,
      seats: facts.seats,
      tickets: facts.tickets,
      bookings: facts.bookings,
    }).toEqual({ journey: undefined, batches: { n: 0, active: 0 }, seats: [], tickets: [], bookings: [] });
  });

  it('is not held when the delay only cuts the change below its minimum (arriving 15 minutes before the second bus leaves)', async () => {
    const { first, second } = await connection(app.db);
    const caller = await mobileTraveller(app);
    const quoted = await quote(app, caller, [{ trip: first }, { trip: second }]);
    await announceDelay(app.db, first, 45);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect([held.status, held.body.errorCode]).toEqual([409, 'LEGS_NO_LONGER_CONNECTED']);
    expect((await sold(app, quoted.journey_id, [first, second])).seats).toEqual([]);
  });

  it('held before the delay, is not confirmed: 409 LEGS_NO_LONGER_CONNECTED, the hold left as it was until it ends', async () => {
    const { first, second } = await connection(app.db);
    const caller = await webTraveller(app);
    const { confirmBody, journeyId } = await holdForConfirm(app, caller, [{ trip: first }, { trip: second }]);
    const before = await sold(app, journeyId, [first, second]);
    expect(before.journey?.status).toBe('HELD');

    await announceDelay(app.db, first, 120);
    const refused = await confirmJourney(app, caller, journeyId, confirmBody);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({
      errorCode: 'LEGS_NO_LONGER_CONNECTED',
      details: { journey_id: journeyId, leg_sequence: 2 },
    });
    expect(await sold(app, journeyId, [first, second])).toEqual(before);

    // The same request again is answered the same (its key keeps the refusal), and still sells nothing.
    const retried = await confirmJourney(app, caller, journeyId, confirmBody);
    expect([retried.status, retried.body.errorCode]).toEqual([409, 'LEGS_NO_LONGER_CONNECTED']);
    expect(await sold(app, journeyId, [first, second])).toEqual(before);
  });

  it('is still held and confirmed while the delay leaves the change time (arriving 30 minutes before)', async () => {
    const { first, second } = await connection(app.db);
    const caller = await mobileTraveller(app);
    const quoted = await quote(app, caller, [{ trip: first }, { trip: second }]);
    await announceDelay(app.db, first, 30);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    await announceDelay(app.db, first, 40);
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, {
      quote_id: quoted.quote_id,
      hold_batch_id: held.body.data.holdBatchId,
      travellers: [{ name: 'Traveller 1' }],
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
  });

  it('names LEGS_NO_LONGER_CONNECTED in the hold and confirm operations of journeys and orders', async () => {
    const paths = (await app.request('/api/openapi.json')).body.paths;
    for (const path of [
      '/api/journeys/{bookingId}/hold',
      '/api/journeys/{bookingId}/confirm',
      '/api/journey-orders/{orderId}/hold',
      '/api/journey-orders/{orderId}/confirm',
    ]) {
      expect(paths[path].post.description as string, path).toContain('409 LEGS_NO_LONGER_CONNECTED');
    }
  });
});

async function arrivalOf(db: Database, trip: TripFixture) {
  const [call] = await db.query<{ arrival_at: string }>(
    `select arrival_at from trip_stop_calls where id = $1`,
    [trip.stopCallIds[trip.stopCallIds.length - 1]],
  );
  return { arrival_at: new Date(call!.arrival_at).toISOString() };
}
