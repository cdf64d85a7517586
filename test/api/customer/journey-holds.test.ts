import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.js';
import { createLogger } from '../../../config/logger.js';
import { connectTemporalClient } from '../../../config/temporal.js';
import { initDatabase } from '../../../db/orm.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import {
  bookJourney,
  confirmJourney,
  confirmOrder,
  connection,
  holdJourney,
  holdOrder,
  journeyFacts,
  mobileTraveller,
  quote,
  setConfirmation,
  travellers,
  tripOf,
  webTraveller,
  workflowExists,
  type Caller,
} from '../../support/journeys.js';
import { announceDelay } from '../../support/operations.js';

/** What a refused request must leave behind for a journey: nothing at all. */
async function expectNothingWritten(app: TestApp, journeyId: string) {
  const [row] = await app.db.query<{ journeys: number; allocations: number; batches: number }>(
    `select (select count(*)::int from journeys where id = $1) as journeys,
            (select count(*)::int from seat_allocations where owner_id = $1) as allocations,
            (select count(*)::int from hold_batches where scope_id = $1) as batches`,
    [journeyId],
  );
  expect(row).toEqual({ journeys: 0, allocations: 0, batches: 0 });
  expect(await workflowExists(app, journeyId)).toBe(false);
}

async function heldJourney(
  app: TestApp,
  caller: Caller,
  partySize = 1,
  tripOptions: Parameters<typeof tripOf>[1] = {},
) {
  const trip = await tripOf(app.db, tripOptions);
  const quoted = await quote(app, caller, [{ trip }], partySize);
  const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
  expect(held.status, held.text).toBe(200);
  return { trip, quoted, held, holdBatchId: held.body.data.holdBatchId as string };
}

/** Their quotes' time runs out now. */
async function expireQuotes(app: TestApp, quoteIds: string[]) {
  await app.db.query(
    `update journey_quotes set expires_at = now() - interval '1 second' where id = any($1::uuid[])`,
    [quoteIds],
  );
}

/** The hold's time ran out a second ago; nothing has written it EXPIRED yet. */
async function expireHoldNow(app: TestApp, holdBatchId: string) {
  await app.db.query(`update hold_batches set expires_at = now() - interval '1 second' where id = $1`, [
    holdBatchId,
  ]);
  await app.db.query(
    `update seat_allocations set expires_at = now() - interval '1 second' where hold_batch_id = $1`,
    [holdBatchId],
  );
}

/** Each leg's trip and times as a confirmation projection (journey or order) shows them. */
const legTimes = (projection: any) =>
  projection.legs.map((leg: any) => ({
    trip_id: leg.trip_id,
    departure_at: leg.board.departure_at,
    delay_minutes: leg.delay_minutes,
    expected_departure_at: leg.board.expected_departure_at,
  }));

/** A leg of trip `tripId` boarding at `departureAt` (ISO, the plan), `delay` minutes late as the company announced. */
const legAt = (tripId: string, departureAt: string, delay: number) => ({
  trip_id: tripId,
  departure_at: departureAt,
  delay_minutes: delay,
  expected_departure_at: new Date(new Date(departureAt).getTime() + delay * 60_000).toISOString(),
});

/** The planned departures (ISO) of the stop calls, in the order given. */
async function plannedDepartures(app: TestApp, callIds: string[]): Promise<string[]> {
  const rows = await app.db.query<{ id: string; departure_at: string }>(
    `select id, departure_at from trip_stop_calls where id = any($1::uuid[])`,
    [callIds],
  );
  return callIds.map((id) => new Date(rows.find((row) => row.id === id)!.departure_at).toISOString());
}

const confirmBody = (quoted: { quote_id: string }, holdBatchId: string, partySize = 1) => ({
  quote_id: quoted.quote_id,
  hold_batch_id: holdBatchId,
  travellers: travellers(partySize),
  idempotency_key: `confirm-${randomUUID()}`,
});

describe('POST /journeys/{bookingId}/hold', () => {
  const app = useTestApp();

  it('holds the lowest free seats of each leg for HOLD_MINUTES in one transaction, with no workflow yet', async () => {
    const caller = await mobileTraveller(app);
    const before = Math.floor(Date.now() / 1000);
    const { quoted, held } = await heldJourney(app, caller, 2);
    const data = held.body.data;
    expect(data.bookingId).toBe(quoted.journey_id);
    expect(data.confirmation.status).toBe('HELD');
    expect(data.booking.status).toBe('HELD');
    expect(data.legs[0].seat_numbers).toEqual(['1', '2']);
    expect(data.expiresAt).toBeGreaterThanOrEqual(before + 10 * 60 - 5);
    expect(data.expiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 10 * 60 + 5);
    expect(data.hold).toMatchObject({ holdBatchId: data.holdBatchId, status: 'ACTIVE' });
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.journey!.status).toBe('HELD');
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['HELD', 'HELD']);
    // Issue 18: the hold is a transaction; the process starts only when a company must decide.
    expect(await workflowExists(app, quoted.journey_id)).toBe(false);
  });

  it('holds the seats assigned in the quote', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip, assignments: ['7', '12'] }], 2);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    expect(held.body.data.legs[0].seat_numbers).toEqual(['7', '12']);
  });

  it('refuses a second hold while one is active, but answers a retry with the same idempotency key alike', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip }]);
    const body = { quote_id: quoted.quote_id, idempotency_key: `hold-${randomUUID()}` };
    const first = await holdJourney(app, caller, quoted.journey_id, body);
    const retry = await holdJourney(app, caller, quoted.journey_id, body);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data.holdBatchId).toBe(first.body.data.holdBatchId);
    const other = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(other.status).toBe(409);
    expect(other.body.errorCode).toBe('HOLD_ALREADY_ACTIVE');
    expect((await journeyFacts(app.db, quoted.journey_id)).allocations).toHaveLength(1);
  });

  it('answers a retry with the same key with the same hold while it lasts, even after its quote expired', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip }]);
    const body = { quote_id: quoted.quote_id, idempotency_key: `hold-${randomUUID()}` };
    const first = await holdJourney(app, caller, quoted.journey_id, body);
    expect(first.status, first.text).toBe(200);

    // The quote (15 minutes) runs out while the hold (10 minutes from when it was placed) lasts.
    await expireQuotes(app, [quoted.quote_id]);
    expect(first.body.data.expiresAt * 1000).toBeGreaterThan(Date.now() + 60_000);

    const retry = await holdJourney(app, caller, quoted.journey_id, body);
    expect(
      { status: retry.status, errorCode: retry.body.errorCode, holdBatchId: retry.body.data?.holdBatchId },
      retry.text,
    ).toEqual({ status: 200, errorCode: undefined, holdBatchId: first.body.data.holdBatchId });
    const other = await holdJourney(app, caller, quoted.journey_id, {
      ...body,
      idempotency_key: `hold-${randomUUID()}`,
    });
    expect(other.status).toBe(409);
    expect(other.body.errorCode).toBe('QUOTE_EXPIRED');
    expect((await journeyFacts(app.db, quoted.journey_id)).allocations).toHaveLength(1);
  });

  it('refuses a retry with the key of a released hold (409 HOLD_CLOSED) or of a lapsed one (409 HOLD_EXPIRED), writing nothing', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip }]);
    const body = { quote_id: quoted.quote_id, idempotency_key: `hold-${randomUUID()}` };
    const first = await holdJourney(app, caller, quoted.journey_id, body);
    expect(first.status, first.text).toBe(200);
    const holdBatchId = first.body.data.holdBatchId as string;
    const released = await app.request(`/api/journeys/${quoted.journey_id}/holds/${holdBatchId}`, {
      method: 'DELETE',
      headers: caller.headers,
    });
    expect(released.status, released.text).toBe(200);

    // Not a 200 naming the dead batch with a future expiresAt while nothing is held.
    const retry = await holdJourney(app, caller, quoted.journey_id, body);
    expect({ status: retry.status, errorCode: retry.body.errorCode }, retry.text).toEqual({
      status: 409,
      errorCode: 'HOLD_CLOSED',
    });
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.journey!.status).toBe('RELEASED');
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED']);

    // Another key holds again; once that hold lapses (not yet written EXPIRED), its key cannot revive it.
    const lapsedRetry = async () => {
      const again = { ...body, idempotency_key: `hold-${randomUUID()}` };
      const reheld = await holdJourney(app, caller, quoted.journey_id, again);
      expect(reheld.status, reheld.text).toBe(200);
      await expireHoldNow(app, reheld.body.data.holdBatchId);
      const lapsed = await holdJourney(app, caller, quoted.journey_id, again);
      const [batch] = await app.db.query<{ status: string }>(
        `select status from hold_batches where id = $1`,
        [reheld.body.data.holdBatchId],
      );
      return { status: lapsed.status, errorCode: lapsed.body.errorCode, batch: batch!.status };
    };
    // The tests' shared worker writes lapsed holds EXPIRED (worker/hold-sweeper.ts, every 5 s): a
    // sweep between the lapse and the read leaves nothing to judge the retry by, so the round is
    // played again. A retry that wrote EXPIRED itself would do so every round.
    let outcome = await lapsedRetry();
    for (let round = 1; round < 3 && outcome.batch === 'EXPIRED'; round += 1) outcome = await lapsedRetry();
    expect(outcome).toEqual({ status: 409, errorCode: 'HOLD_EXPIRED', batch: 'ACTIVE' });
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
  });

  it('lets the first signed-in traveller claim a guest quote; nobody else may hold it', async () => {
    const trip = await tripOf(app.db);
    const quoted = await quote(app, null, [{ trip }]);
    const owner = await webTraveller(app);
    const held = await holdJourney(app, owner, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    const stranger = await mobileTraveller(app);
    const refused = await holdJourney(app, stranger, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(refused.status).toBe(404);
    expect(refused.body.errorCode).toBe('QUOTE_NOT_FOUND');
  });

  it('a refused hold of a guest quote writes nothing and claims nothing: another account may still hold it', async () => {
    const trip = await tripOf(app.db);
    const guestQuote = await quote(app, null, [{ trip, assignments: ['5'] }]);
    const rival = await mobileTraveller(app);
    const rivalQuote = await quote(app, rival, [{ trip, assignments: ['5'] }]);
    const rivalHold = await holdJourney(app, rival, rivalQuote.journey_id, { quote_id: rivalQuote.quote_id });
    expect(rivalHold.status, rivalHold.text).toBe(200);

    // The guest signs in as A and tries to hold: seat 5 is taken.
    const accountA = await webTraveller(app);
    const refused = await holdJourney(app, accountA, guestQuote.journey_id, {
      quote_id: guestQuote.quote_id,
    });
    expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({
      status: 409,
      errorCode: 'SEATS_UNAVAILABLE',
    });
    await expectNothingWritten(app, guestQuote.journey_id);

    // Seat 5 comes free; on the same device the guest signs in as B: the quote is B's to hold.
    const released = await app.request(
      `/api/journeys/${rivalQuote.journey_id}/holds/${rivalHold.body.data.holdBatchId}`,
      { method: 'DELETE', headers: rival.headers },
    );
    expect(released.status, released.text).toBe(200);
    const accountB = await webTraveller(app);
    const held = await holdJourney(app, accountB, guestQuote.journey_id, { quote_id: guestQuote.quote_id });
    expect(held.status, held.text).toBe(200);
  });

  it("a refused hold of the traveller's own quote keeps the quote: it may be held once the seat is free", async () => {
    const trip = await tripOf(app.db);
    const traveller = await mobileTraveller(app);
    const rival = await mobileTraveller(app);
    const own = await quote(app, traveller, [{ trip, assignments: ['5'] }]);
    const rivalQuote = await quote(app, rival, [{ trip, assignments: ['5'] }]);
    const rivalHold = await holdJourney(app, rival, rivalQuote.journey_id, { quote_id: rivalQuote.quote_id });
    expect(rivalHold.status, rivalHold.text).toBe(200);

    const refused = await holdJourney(app, traveller, own.journey_id, { quote_id: own.quote_id });
    expect(refused.body.errorCode).toBe('SEATS_UNAVAILABLE');
    await expectNothingWritten(app, own.journey_id);
    // Refused again (the draft is written and undone again), then held once seat 5 is free.
    const again = await holdJourney(app, traveller, own.journey_id, { quote_id: own.quote_id });
    expect(again.body.errorCode).toBe('SEATS_UNAVAILABLE');
    const released = await app.request(
      `/api/journeys/${rivalQuote.journey_id}/holds/${rivalHold.body.data.holdBatchId}`,
      { method: 'DELETE', headers: rival.headers },
    );
    expect(released.status, released.text).toBe(200);
    const held = await holdJourney(app, traveller, own.journey_id, { quote_id: own.quote_id });
    expect(held.status, held.text).toBe(200);
  });

  it('answers a trip of another inventory scope with 404 TRIP_NOT_FOUND: no hold, no process', async () => {
    const trip = await tripOf(app.db);
    const guestQuote = await quote(app, null, [{ trip }]);
    const internal = await mobileTraveller(app, { kind: 'INTERNAL' });
    const refused = await holdJourney(app, internal, guestQuote.journey_id, {
      quote_id: guestQuote.quote_id,
    });
    expect(refused.status).toBe(404);
    expect(refused.body.errorCode).toBe('TRIP_NOT_FOUND');
    await expectNothingWritten(app, guestQuote.journey_id);

    const caller = await mobileTraveller(app);
    const ownQuote = await quote(app, caller, [{ trip }]);
    await app.db.query(`update companies set published = false where id = $1`, [trip.companyId]);
    const unpublished = await holdJourney(app, caller, ownQuote.journey_id, { quote_id: ownQuote.quote_id });
    expect(unpublished.status).toBe(404);
    expect(unpublished.body.errorCode).toBe('TRIP_NOT_FOUND');
    await expectNothingWritten(app, ownQuote.journey_id);
  });

  it('refuses bad input with a 4xx and an errorCode, holding nothing and starting no process', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip }]);
    const other = await quote(app, caller, [{ trip }]);
    const web = await app.signIn();
    const cases: {
      path?: string;
      body: unknown;
      headers?: Record<string, string>;
      status: number;
      errorCode: string;
    }[] = [
      {
        path: '/api/journeys/not-a-uuid/hold',
        body: { quote_id: quoted.quote_id },
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      { body: {}, status: 400, errorCode: 'VALIDATION_FAILED' },
      { body: { quote_id: 'nope' }, status: 400, errorCode: 'VALIDATION_FAILED' },
      { body: { quote_id: quoted.quote_id, seats: ['1'] }, status: 400, errorCode: 'VALIDATION_FAILED' },
      {
        body: { quote_id: quoted.quote_id, idempotency_key: 'short' },
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      { body: { quote_id: other.quote_id }, status: 404, errorCode: 'QUOTE_NOT_FOUND' },
      { body: { quote_id: randomUUID() }, status: 404, errorCode: 'QUOTE_NOT_FOUND' },
      { body: { quote_id: quoted.quote_id }, headers: {}, status: 401, errorCode: 'AUTH_REQUIRED' },
      {
        body: { quote_id: quoted.quote_id },
        headers: { Cookie: web.cookie },
        status: 403,
        errorCode: 'CSRF_TOKEN_INVALID',
      },
    ];
    for (const testCase of cases) {
      const response = await app.request(testCase.path ?? `/api/journeys/${quoted.journey_id}/hold`, {
        method: 'POST',
        headers: testCase.headers ?? caller.headers,
        json: testCase.body,
      });
      expect(
        { status: response.status, errorCode: response.body?.errorCode },
        JSON.stringify(testCase.body),
      ).toEqual({
        status: testCase.status,
        errorCode: testCase.errorCode,
      });
    }
    await expectNothingWritten(app, quoted.journey_id);

    await app.db.query(`update journey_quotes set expires_at = now() - interval '1 second' where id = $1`, [
      quoted.quote_id,
    ]);
    const expired = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(expired.status).toBe(409);
    expect(expired.body.errorCode).toBe('QUOTE_EXPIRED');
    await expectNothingWritten(app, quoted.journey_id);
  });

  it('refuses with 409 SEATS_UNAVAILABLE when a chosen seat was taken after the quote', async () => {
    const trip = await tripOf(app.db);
    const first = await mobileTraveller(app);
    const second = await mobileTraveller(app);
    const firstQuote = await quote(app, first, [{ trip, assignments: ['5'] }]);
    const secondQuote = await quote(app, second, [{ trip, assignments: ['5'] }]);
    expect(
      (await holdJourney(app, first, firstQuote.journey_id, { quote_id: firstQuote.quote_id })).status,
    ).toBe(200);
    const refused = await holdJourney(app, second, secondQuote.journey_id, {
      quote_id: secondQuote.quote_id,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('SEATS_UNAVAILABLE');
    expect(refused.body.details).toMatchObject({ seats: ['5'], trip_id: trip.tripId });
    expect((await journeyFacts(app.db, secondQuote.journey_id)).allocations).toEqual([]);
  });
});

describe('DELETE /journeys/{bookingId}/holds/{holdBatchId}', () => {
  const app = useTestApp();

  it('releases the seats at once; a second release is 409 and the journey may be held again', async () => {
    const caller = await webTraveller(app);
    const { quoted, holdBatchId } = await heldJourney(app, caller, 2);
    const path = `/api/journeys/${quoted.journey_id}/holds/${holdBatchId}`;
    const released = await app.request(path, { method: 'DELETE', headers: caller.headers });
    expect(released.status, released.text).toBe(200);
    expect(released.body.data).toEqual({ holdBatchId, status: 'RELEASED' });
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.journey!.status).toBe('RELEASED');
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED', 'RELEASED']);

    const again = await app.request(path, { method: 'DELETE', headers: caller.headers });
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('HOLD_CLOSED');

    const reheld = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(reheld.status, reheld.text).toBe(200);
    expect(reheld.body.data.holdBatchId).not.toBe(holdBatchId);
  });

  it('refuses a hold whose time ran out 409 HOLD_CLOSED and writes it EXPIRED, not RELEASED', async () => {
    const caller = await webTraveller(app);
    const { quoted, holdBatchId } = await heldJourney(app, caller, 2);
    // The hold's ten minutes pass, and no read or sweep has written it EXPIRED yet.
    await app.db.query(`update hold_batches set expires_at = now() - interval '1 second' where id = $1`, [
      holdBatchId,
    ]);
    await app.db.query(
      `update seat_allocations set expires_at = now() - interval '1 second' where hold_batch_id = $1`,
      [holdBatchId],
    );
    const path = `/api/journeys/${quoted.journey_id}/holds/${holdBatchId}`;
    const released = await app.request(path, { method: 'DELETE', headers: caller.headers });
    expect({ status: released.status, errorCode: released.body.errorCode }, released.text).toEqual({
      status: 409,
      errorCode: 'HOLD_CLOSED',
    });
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.journey!.status).toBe('EXPIRED');
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['EXPIRED', 'EXPIRED']);
    const [batch] = await app.db.query<{ status: string }>(`select status from hold_batches where id = $1`, [
      holdBatchId,
    ]);
    expect(batch!.status).toBe('EXPIRED');
  });

  it('answers 404 for a batch of another journey, a stranger, or an unknown batch; 400 for a malformed id', async () => {
    const caller = await mobileTraveller(app);
    const mine = await heldJourney(app, caller);
    const theirs = await heldJourney(app, await mobileTraveller(app));
    const stranger = await mobileTraveller(app);
    const attempts = [
      {
        caller,
        path: `/api/journeys/${mine.quoted.journey_id}/holds/${theirs.holdBatchId}`,
        status: 404,
        errorCode: 'HOLD_NOT_FOUND',
      },
      {
        caller,
        path: `/api/journeys/${mine.quoted.journey_id}/holds/${randomUUID()}`,
        status: 404,
        errorCode: 'HOLD_NOT_FOUND',
      },
      {
        caller: stranger,
        path: `/api/journeys/${mine.quoted.journey_id}/holds/${mine.holdBatchId}`,
        status: 404,
        errorCode: 'JOURNEY_NOT_FOUND',
      },
      {
        caller,
        path: `/api/journeys/${mine.quoted.journey_id}/holds/xyz`,
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
    ];
    for (const attempt of attempts) {
      const response = await app.request(attempt.path, { method: 'DELETE', headers: attempt.caller.headers });
      expect({ status: response.status, errorCode: response.body?.errorCode }).toEqual({
        status: attempt.status,
        errorCode: attempt.errorCode,
      });
    }
    expect((await journeyFacts(app.db, mine.quoted.journey_id)).allocations.map((a) => a.status)).toEqual([
      'HELD',
    ]);
    expect((await journeyFacts(app.db, theirs.quoted.journey_id)).allocations.map((a) => a.status)).toEqual([
      'HELD',
    ]);
  });
});

describe('POST /journeys/{bookingId}/confirm', () => {
  const app = useTestApp();

  it('AUTO_CONFIRM: CONFIRMED, every ticket signed and boarding_authorized, seats and booking rows confirmed', async () => {
    const caller = await webTraveller(app);
    const { quoted, holdBatchId, trip } = await heldJourney(app, caller, 2);
    await setConfirmation(app.db, trip.companyId, { mode: 'AUTO_CONFIRM' });
    const confirmed = await confirmJourney(
      app,
      caller,
      quoted.journey_id,
      confirmBody(quoted, holdBatchId, 2),
    );
    expect(confirmed.status, confirmed.text).toBe(200);
    const data = confirmed.body.data;
    expect(data.confirmation).toMatchObject({ status: 'CONFIRMED', deadline: null });
    expect(data.booking.status).toBe('CONFIRMED');
    expect(data.failure_reason).toBeNull();
    expect(data.tickets).toHaveLength(2);
    for (const ticket of data.tickets) {
      expect(ticket).toMatchObject({ status: 'VALID', boarding_authorized: true, trip_id: trip.tripId });
      expect(ticket.payload).toMatchObject({ ticketId: ticket.id, tripId: trip.tripId });
      expect(ticket.signature).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(ticket.key_id).toBeTruthy();
    }
    expect(
      data.tickets.map((ticket: { traveller_name: string; seat_number: string }) => [
        ticket.traveller_name,
        ticket.seat_number,
      ]),
    ).toEqual([
      ['Traveller 1', '1'],
      ['Traveller 2', '2'],
    ]);
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['CONFIRMED', 'CONFIRMED']);
    expect(facts.bookings.map((booking) => booking.status)).toEqual(['CONFIRMED']);
    const [batch] = await app.db.query<{ status: string }>(`select status from hold_batches where id = $1`, [
      holdBatchId,
    ]);
    expect(batch!.status).toBe('CONSUMED');
  });

  it('MANUAL_CONFIRM for the channel: REQUESTED with a deadline, inventory held, tickets pending without payload', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId, trip } = await heldJourney(app, caller, 2);
    await setConfirmation(app.db, trip.companyId, {
      mode: 'MANUAL_CONFIRM',
      window: 30,
      channels: ['CUSTOMER_MOBILE'],
    });
    const before = Date.now();
    const confirmed = await confirmJourney(
      app,
      caller,
      quoted.journey_id,
      confirmBody(quoted, holdBatchId, 2),
    );
    expect(confirmed.status, confirmed.text).toBe(200);
    const data = confirmed.body.data;
    expect(data.confirmation.status).toBe('REQUESTED');
    const deadline = Date.parse(data.confirmation.deadline);
    expect(deadline).toBeGreaterThanOrEqual(before + 30 * 60_000 - 5000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 5000);
    expect(data.confirmation.requests).toEqual([
      { company_id: trip.companyId, status: 'PENDING', deadline: data.confirmation.deadline },
    ]);
    expect(data.booking.status).toBe('PENDING_CONFIRMATION');
    for (const ticket of data.tickets) {
      expect(ticket).toMatchObject({
        status: 'PENDING_CONFIRMATION',
        payload: null,
        signature: null,
        boarding_authorized: false,
      });
    }
    const allocations = await app.db.query<{ status: string; expires_at: string }>(
      `select status, expires_at from seat_allocations where owner_id = $1`,
      [quoted.journey_id],
    );
    for (const allocation of allocations) {
      expect(allocation.status).toBe('HELD');
      expect(new Date(allocation.expires_at).getTime()).toBeGreaterThanOrEqual(deadline - 1000);
    }
    expect((await journeyFacts(app.db, quoted.journey_id)).bookings.map((booking) => booking.status)).toEqual(
      ['PENDING_CONFIRMATION'],
    );
  });

  it('a decision deadline is no later than the journey’s first departure', async () => {
    const caller = await mobileTraveller(app);
    const departAt = new Date(Math.ceil((Date.now() + 10 * 60_000) / 1000) * 1000);
    const { quoted, holdBatchId, trip } = await heldJourney(app, caller, 1, { departAt });
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 30 });
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, confirmBody(quoted, holdBatchId));
    expect(confirmed.status, confirmed.text).toBe(200);
    const { confirmation } = confirmed.body.data;
    expect(confirmation.status).toBe('REQUESTED');
    expect(Date.parse(confirmation.deadline)).toBe(departAt.getTime());
    expect(confirmation.requests).toEqual([
      { company_id: trip.companyId, status: 'PENDING', deadline: confirmation.deadline },
    ]);
  });

  it('a channel the manual company did not list confirms automatically', async () => {
    const caller = await webTraveller(app);
    const { quoted, holdBatchId, trip } = await heldJourney(app, caller);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', channels: ['CUSTOMER_MOBILE'] });
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, confirmBody(quoted, holdBatchId));
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
  });

  it('is idempotent: the same key and body answer the same; the same key with another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId, trip } = await heldJourney(app, caller);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const body = confirmBody(quoted, holdBatchId);
    const first = await confirmJourney(app, caller, quoted.journey_id, body);
    const retry = await confirmJourney(app, caller, quoted.journey_id, body);
    expect(first.status, first.text).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    const reused = await confirmJourney(app, caller, quoted.journey_id, {
      ...body,
      travellers: [{ name: 'Someone Else' }],
    });
    expect(reused.status).toBe(409);
    expect(reused.body.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    const fresh = await confirmJourney(app, caller, quoted.journey_id, {
      ...body,
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expect(fresh.status).toBe(409);
    expect(fresh.body.errorCode).toBe('ALREADY_CONFIRMED');
    expect((await journeyFacts(app.db, quoted.journey_id)).tickets).toHaveLength(1);
  });

  it('two identical confirms at once act once', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId } = await heldJourney(app, caller);
    const body = confirmBody(quoted, holdBatchId);
    const [a, b] = await Promise.all([
      confirmJourney(app, caller, quoted.journey_id, body),
      confirmJourney(app, caller, quoted.journey_id, body),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.data.tickets.map((ticket: { id: string }) => ticket.id)).toEqual(
      b.body.data.tickets.map((ticket: { id: string }) => ticket.id),
    );
    expect((await journeyFacts(app.db, quoted.journey_id)).tickets).toHaveLength(1);
  });

  it('refuses bad input before anything is written', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId } = await heldJourney(app, caller, 2);
    const theirs = await heldJourney(app, await mobileTraveller(app));
    const good = confirmBody(quoted, holdBatchId, 2);
    const cases: { body: Record<string, unknown>; status: number; errorCode: string }[] = [
      {
        body: { ...good, travellers: travellers(1) },
        status: 400,
        errorCode: 'TRAVELLERS_DO_NOT_MATCH_PARTY',
      },
      {
        body: { ...good, travellers: [{ name: '' }, { name: 'B' }] },
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      {
        body: { ...good, travellers: [{ name: 'A', phone: '0944' }, { name: 'B' }] },
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      {
        // A second trunk 0 after +963: no number sign-in reads.
        body: { ...good, travellers: [{ name: 'A', phone: '+96300944123456' }, { name: 'B' }] },
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      { body: { ...good, idempotency_key: undefined }, status: 400, errorCode: 'VALIDATION_FAILED' },
      { body: { ...good, hold_batch_id: 'batch' }, status: 400, errorCode: 'VALIDATION_FAILED' },
      { body: { ...good, status: 'CONFIRMED' }, status: 400, errorCode: 'VALIDATION_FAILED' },
      { body: { ...good, quote_id: theirs.quoted.quote_id }, status: 404, errorCode: 'QUOTE_NOT_FOUND' },
      { body: { ...good, hold_batch_id: theirs.holdBatchId }, status: 404, errorCode: 'HOLD_NOT_FOUND' },
      { body: { ...good, hold_batch_id: randomUUID() }, status: 404, errorCode: 'HOLD_NOT_FOUND' },
    ];
    for (const testCase of cases) {
      const response = await confirmJourney(app, caller, quoted.journey_id, testCase.body);
      expect(
        { status: response.status, errorCode: response.body?.errorCode },
        JSON.stringify(testCase.body),
      ).toEqual({
        status: testCase.status,
        errorCode: testCase.errorCode,
      });
    }
    const stranger = await confirmJourney(app, await mobileTraveller(app), quoted.journey_id, good);
    expect(stranger.status).toBe(404);
    expect(stranger.body.errorCode).toBe('JOURNEY_NOT_FOUND');
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.journey!.status).toBe('HELD');
    expect(facts.tickets).toEqual([]);
    expect(facts.bookings).toEqual([]);
    const [records] = await app.db.query<{ count: number }>(
      `select count(*)::int as count from idempotency_records where scope = $1`,
      [`confirm:${caller.userId}`],
    );
    expect(records!.count).toBe(0);
  });

  it("keeps each traveller's phone in the E.164 form sign-in stores: on the booking, the tickets and the company's manifest", async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId, trip } = await heldJourney(app, caller, 2);
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, {
      ...confirmBody(quoted, holdBatchId, 2),
      // The Syrian trunk 0 after +963 is dropped, as sign-in drops it.
      travellers: [
        { name: 'Sami Haddad', phone: '+9630944123456' },
        { name: 'Lina Khoury', phone: '+963955111222' },
      ],
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const [booking] = await app.db.query(`select passenger_phone from bookings where journey_id = $1`, [
      quoted.journey_id,
    ]);
    expect(booking).toEqual({ passenger_phone: '+963944123456' });
    const tickets = await app.db.query<{ traveller_phone: string }>(
      `select traveller_phone from journey_tickets where journey_id = $1 order by seat_number`,
      [quoted.journey_id],
    );
    expect(tickets.map((ticket) => ticket.traveller_phone)).toEqual(['+963944123456', '+963955111222']);

    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    const room = await app.request(`/dashboard/api/trips/${trip.tripId}/dispatch`, {
      headers: { Cookie: dispatcher.cookie },
    });
    expect(room.status, room.text).toBe(200);
    expect(room.body.data.manifest.map((item: { phone: string | null }) => item.phone).sort()).toEqual([
      '+963944123456',
      '+963955111222',
    ]);
  });

  it('refuses a released hold with 409 HOLD_CLOSED', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId } = await heldJourney(app, caller);
    await app.request(`/api/journeys/${quoted.journey_id}/holds/${holdBatchId}`, {
      method: 'DELETE',
      headers: caller.headers,
    });
    const refused = await confirmJourney(app, caller, quoted.journey_id, confirmBody(quoted, holdBatchId));
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('HOLD_CLOSED');
  });

  it('refuses with 409 TRIP_NOT_BOOKABLE once the boarding call has departed during the hold', async () => {
    const caller = await mobileTraveller(app);
    const departAt = new Date(Date.now() + 8_000);
    const { quoted, holdBatchId } = await heldJourney(app, caller, 1, { departAt });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, departAt.getTime() - Date.now()) + 1_000));
    const refused = await confirmJourney(app, caller, quoted.journey_id, confirmBody(quoted, holdBatchId));
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.errorCode).toBe('TRIP_NOT_BOOKABLE');
  }, 60_000);

  it('refuses with 409 TRIP_NOT_BOOKABLE once the trip was DEPARTED (dispatch) during the hold', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId, trip } = await heldJourney(app, caller);
    // What the operations room's DEPART leaves on the trip row (holds are not touched by it).
    await app.db.query(`update trips set status = 'DEPARTED' where id = $1`, [trip.tripId]);
    const refused = await confirmJourney(app, caller, quoted.journey_id, confirmBody(quoted, holdBatchId));
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.errorCode).toBe('TRIP_NOT_BOOKABLE');
  });
});

describe('GET /journeys/{bookingId}', () => {
  const app = useTestApp();

  it('shows the projection to its owner only, never cached', async () => {
    const caller = await webTraveller(app);
    const { quoted } = await heldJourney(app, caller);
    const mine = await app.request(`/api/journeys/${quoted.journey_id}`, { headers: caller.headers });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('cache-control')).toBe('private, no-store');
    expect(mine.body.data).toMatchObject({ bookingId: quoted.journey_id, confirmation: { status: 'HELD' } });
    const stranger = await app.request(`/api/journeys/${quoted.journey_id}`, {
      headers: (await mobileTraveller(app)).headers,
    });
    expect(stranger.status).toBe(404);
    expect(stranger.body.errorCode).toBe('JOURNEY_NOT_FOUND');
    const guest = await app.request(`/api/journeys/${quoted.journey_id}`);
    expect(guest.status).toBe(401);
    const malformed = await app.request(`/api/journeys/123`, { headers: caller.headers });
    expect(malformed.status).toBe(400);
  });

  it("shows on each leg the delay its company announced and the departure announced from the leg's boarding stop", async () => {
    const caller = await mobileTraveller(app);
    const { first, second } = await connection(app.db);
    // The first leg boards at its trip's middle stop, the second at its trip's first.
    const { journeyId, confirmed } = await bookJourney(app, caller, [
      { trip: first, board: 1 },
      { trip: second },
    ]);
    const [firstBoard, secondBoard] = await plannedDepartures(app, [
      first.stopCallIds[1]!,
      second.stopCallIds[0]!,
    ]);
    const shown = async () => {
      const read = await app.request(`/api/journeys/${journeyId}`, { headers: caller.headers });
      expect(read.status, read.text).toBe(200);
      return legTimes(read.body.data);
    };
    const onTime = [legAt(first.tripId, firstBoard!, 0), legAt(second.tripId, secondBoard!, 0)];
    expect(legTimes(confirmed.body.data)).toEqual(onTime);
    expect(await shown()).toEqual(onTime);

    const dispatcher = await staffSession(app.db, app.config, first.companyId, 'DISPATCHER');
    // A delay the operations room refuses (no delay_minutes) announces nothing; then 90 minutes.
    await announceDelay(app, dispatcher, first.tripId, 90, async () => {
      expect(await shown()).toEqual(onTime);
    });
    // Only the delayed trip's leg runs late; its planned departure_at stays the plan.
    expect(await shown()).toEqual([
      legAt(first.tripId, firstBoard!, 90),
      legAt(second.tripId, secondBoard!, 0),
    ]);
  });
});

/** What an order id has left behind: its row, the journeys bound to it and its hold batches. */
async function orderLeft(app: TestApp, orderId: string) {
  const [left] = await app.db.query<{ orders: number; bound: number; batches: number }>(
    `select (select count(*)::int from journey_orders where id = $1) as orders,
            (select count(*)::int from journeys where order_id = $1) as bound,
            (select count(*)::int from hold_batches where scope_id = $1) as batches`,
    [orderId],
  );
  return left;
}

describe('journey orders', () => {
  const app = useTestApp();

  it('holds and confirms journeys of two companies as one order, with one hold batch', async () => {
    const caller = await mobileTraveller(app);
    const { first, second } = await connection(app.db);
    const a = await quote(app, caller, [{ trip: first }], 1);
    const b = await quote(app, caller, [{ trip: second }], 2);
    const orderId = randomUUID();
    const held = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect(held.status, held.text).toBe(200);
    expect(held.body.data.orderId).toBe(orderId);
    const batches = await app.db.query<{ id: string }>(`select id from hold_batches where scope_id = $1`, [
      orderId,
    ]);
    expect(batches.map((batch) => batch.id)).toEqual([held.body.data.holdBatchId]);
    const [seats] = await app.db.query<{ count: number }>(
      `select count(*)::int as count from seat_allocations where hold_batch_id = $1`,
      [held.body.data.holdBatchId],
    );
    expect(seats!.count).toBe(3);

    const member = await app.request(`/api/journeys/${a.journey_id}`, { headers: caller.headers });
    expect(member.body.data.hold).toMatchObject({
      holdBatchId: held.body.data.holdBatchId,
      status: 'ACTIVE',
    });

    const onItsOwn = await holdJourney(app, caller, a.journey_id, { quote_id: a.quote_id });
    expect(onItsOwn.status).toBe(409);
    expect(onItsOwn.body.errorCode).toBe('JOURNEY_IN_ORDER');

    const stranger = await mobileTraveller(app);
    const foreign = await app.request(`/api/journey-orders/${orderId}`, { headers: stranger.headers });
    expect(foreign.status).toBe(404);
    expect(foreign.body.errorCode).toBe('ORDER_NOT_FOUND');

    const confirmed = await confirmOrder(app, caller, orderId, held.body.data.holdBatchId, [
      { journeyId: a.journey_id, partySize: 1 },
      { journeyId: b.journey_id, partySize: 2 },
    ]);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    expect(confirmed.body.data.tickets).toHaveLength(3);
    expect(confirmed.body.data.journeys.map((journey: { status: string }) => journey.status)).toEqual([
      'CONFIRMED',
      'CONFIRMED',
    ]);
    const read = await app.request(`/api/journey-orders/${orderId}`, { headers: caller.headers });
    expect(
      read.body.data.tickets.every((ticket: { boarding_authorized: boolean }) => ticket.boarding_authorized),
    ).toBe(true);
  });

  it('shows on each leg of the order the delay its company announced and the departure announced from its boarding stop', async () => {
    const caller = await mobileTraveller(app);
    const { first, second } = await connection(app.db);
    const a = await quote(app, caller, [{ trip: first, board: 1 }], 1);
    const b = await quote(app, caller, [{ trip: second }], 1);
    const orderId = randomUUID();
    const held = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmOrder(app, caller, orderId, held.body.data.holdBatchId, [
      { journeyId: a.journey_id, partySize: 1 },
      { journeyId: b.journey_id, partySize: 1 },
    ]);
    expect(confirmed.status, confirmed.text).toBe(200);
    const [firstBoard, secondBoard] = await plannedDepartures(app, [
      first.stopCallIds[1]!,
      second.stopCallIds[0]!,
    ]);
    const legOf = (tripId: string, delay: number) =>
      legAt(tripId, tripId === first.tripId ? firstBoard! : secondBoard!, delay);
    // The order's legs come by journey id: a's leg runs on the first trip, b's on the second.
    const expected = (firstDelay: number) =>
      [
        { journeyId: a.journey_id, leg: legOf(first.tripId, firstDelay) },
        { journeyId: b.journey_id, leg: legOf(second.tripId, 0) },
      ]
        .sort((x, y) => (x.journeyId < y.journeyId ? -1 : 1))
        .map(({ leg }) => leg);
    const shown = async () => {
      const order = await app.request(`/api/journey-orders/${orderId}`, { headers: caller.headers });
      expect(order.status, order.text).toBe(200);
      const journey = await app.request(`/api/journeys/${a.journey_id}`, { headers: caller.headers });
      return { order: legTimes(order.body.data), journey: legTimes(journey.body.data) };
    };
    expect(legTimes(confirmed.body.data)).toEqual(expected(0));
    expect(await shown()).toEqual({ order: expected(0), journey: [legOf(first.tripId, 0)] });

    const dispatcher = await staffSession(app.db, app.config, first.companyId, 'DISPATCHER');
    await announceDelay(app, dispatcher, first.tripId, 90, async () => {
      expect(await shown()).toEqual({ order: expected(0), journey: [legOf(first.tripId, 0)] });
    });
    expect(await shown()).toEqual({ order: expected(90), journey: [legOf(first.tripId, 90)] });
  });

  it('binds the order id to its first traveller and refuses bad order input without writing', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const a = await quote(app, caller, [{ trip }]);
    const b = await quote(app, caller, [{ trip }]);
    const orderId = randomUUID();
    const path = `/api/journey-orders/${orderId}/hold`;
    const bad = [
      { json: { journey_ids: [a.journey_id] }, status: 400, errorCode: 'VALIDATION_FAILED' },
      { json: { journey_ids: [a.journey_id, a.journey_id] }, status: 400, errorCode: 'DUPLICATE_JOURNEY' },
      { json: { journey_ids: [a.journey_id, 'x'] }, status: 400, errorCode: 'VALIDATION_FAILED' },
      { json: { journey_ids: [a.journey_id, randomUUID()] }, status: 404, errorCode: 'QUOTE_NOT_FOUND' },
    ];
    for (const attempt of bad) {
      const response = await app.request(path, {
        method: 'POST',
        headers: caller.headers,
        json: attempt.json,
      });
      expect({ status: response.status, errorCode: response.body?.errorCode }).toEqual({
        status: attempt.status,
        errorCode: attempt.errorCode,
      });
    }
    const [orders] = await app.db.query<{ count: number }>(
      `select count(*)::int as count from journey_orders where id = $1`,
      [orderId],
    );
    expect(orders!.count).toBe(0);
    expect(await workflowExists(app, orderId, 'ORDER')).toBe(false);

    const held = await app.request(path, {
      method: 'POST',
      headers: caller.headers,
      json: { journey_ids: [a.journey_id, b.journey_id] },
    });
    expect(held.status, held.text).toBe(200);
    const stranger = await mobileTraveller(app);
    const theirs = [await quote(app, stranger, [{ trip }]), await quote(app, stranger, [{ trip }])];
    const taken = await app.request(path, {
      method: 'POST',
      headers: stranger.headers,
      json: { journey_ids: theirs.map((q) => q.journey_id) },
    });
    expect(taken.status).toBe(404);
    expect(taken.body.errorCode).toBe('ORDER_NOT_FOUND');
  });

  it('answers another set of journeys with 409 ORDER_JOURNEYS_MISMATCH on the hold and on the confirm alike, changing nothing', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const [a, b, c, d] = [
      await quote(app, caller, [{ trip }]),
      await quote(app, caller, [{ trip }]),
      await quote(app, caller, [{ trip }]),
      await quote(app, caller, [{ trip }]),
    ];
    const orderId = randomUUID();
    const held = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id, c.journey_id]);
    expect(held.status, held.text).toBe(200);
    const holdBatchId = held.body.data.holdBatchId as string;
    const orderFacts = async () =>
      Promise.all([a, b, c, d].map((quoted) => journeyFacts(app.db, quoted.journey_id)));
    const before = await orderFacts();

    const one = (quoted: { journey_id: string }) => ({ journeyId: quoted.journey_id, partySize: 1 });
    const rehold = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id, d.journey_id]);
    const confirms = [
      // A journey not of the order in the place of one of its own.
      await confirmOrder(app, caller, orderId, holdBatchId, [one(a), one(b), one(d)]),
      // One of the order's journeys left out.
      await confirmOrder(app, caller, orderId, holdBatchId, [one(a), one(b)]),
    ];
    expect([rehold, ...confirms].map((response) => [response.status, response.body.errorCode])).toEqual([
      [409, 'ORDER_JOURNEYS_MISMATCH'],
      [409, 'ORDER_JOURNEYS_MISMATCH'],
      [409, 'ORDER_JOURNEYS_MISMATCH'],
    ]);
    expect(await orderFacts()).toEqual(before);
    const contract = (await app.request('/api/openapi.json')).body.paths[
      '/api/journey-orders/{orderId}/confirm'
    ].post.description as string;
    expect(contract).toContain('409 ORDER_JOURNEYS_MISMATCH');

    // The order's own set still confirms with the same hold.
    const confirmed = await confirmOrder(app, caller, orderId, holdBatchId, [one(a), one(b), one(c)]);
    expect(confirmed.status, confirmed.text).toBe(200);
  });

  it('answers a retry with the same key with the same hold while it lasts, even after its quotes expired', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const a = await quote(app, caller, [{ trip }]);
    const b = await quote(app, caller, [{ trip }]);
    const orderId = randomUUID();
    const hold = (idempotencyKey: string) =>
      app.request(`/api/journey-orders/${orderId}/hold`, {
        method: 'POST',
        headers: caller.headers,
        json: { journey_ids: [a.journey_id, b.journey_id], idempotency_key: idempotencyKey },
      });
    const key = `hold-${randomUUID()}`;
    const first = await hold(key);
    expect(first.status, first.text).toBe(200);

    await expireQuotes(app, [a.quote_id, b.quote_id]);
    expect(first.body.data.expiresAt * 1000).toBeGreaterThan(Date.now() + 60_000);

    const retry = await hold(key);
    expect(
      { status: retry.status, errorCode: retry.body.errorCode, holdBatchId: retry.body.data?.holdBatchId },
      retry.text,
    ).toEqual({ status: 200, errorCode: undefined, holdBatchId: first.body.data.holdBatchId });
    const other = await hold(`hold-${randomUUID()}`);
    expect(other.status).toBe(409);
    expect(other.body.errorCode).toBe('QUOTE_EXPIRED');
    const batches = await app.db.query<{ id: string }>(`select id from hold_batches where scope_id = $1`, [
      orderId,
    ]);
    expect(batches.map((batch) => batch.id)).toEqual([first.body.data.holdBatchId]);
  });
  it('a refused first order hold binds nothing: its journeys may still be held alone, and the order id stays unused', async () => {
    const trip = await tripOf(app.db);
    const caller = await mobileTraveller(app);
    const rival = await mobileTraveller(app);
    const a = await quote(app, caller, [{ trip, assignments: ['1'] }]);
    const b = await quote(app, caller, [{ trip, assignments: ['5'] }]);
    const rivalQuote = await quote(app, rival, [{ trip, assignments: ['5'] }]);
    const rivalHold = await holdJourney(app, rival, rivalQuote.journey_id, { quote_id: rivalQuote.quote_id });
    expect(rivalHold.status, rivalHold.text).toBe(200);

    const orderId = randomUUID();
    const refused = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({
      status: 409,
      errorCode: 'SEATS_UNAVAILABLE',
    });
    const left = await orderLeft(app, orderId);
    expect(left).toEqual({ orders: 0, bound: 0, batches: 0 });

    const alone = await holdJourney(app, caller, a.journey_id, { quote_id: a.quote_id });
    expect(alone.status, alone.text).toBe(200);
    // The same order id may still be used, with other journeys.
    const c = await quote(app, caller, [{ trip, assignments: ['9'] }]);
    const other = await holdOrder(app, caller, orderId, [b.journey_id, c.journey_id]);
    expect(other.status, other.text).toBe(409);
    expect(other.body.errorCode).toBe('SEATS_UNAVAILABLE');
    const released = await app.request(
      `/api/journeys/${rivalQuote.journey_id}/holds/${rivalHold.body.data.holdBatchId}`,
      { method: 'DELETE', headers: rival.headers },
    );
    expect(released.status, released.text).toBe(200);
    const held = await holdOrder(app, caller, orderId, [b.journey_id, c.journey_id]);
    expect(held.status, held.text).toBe(200);
  });

  it('a first order hold that fails (a database error, 500) binds nothing either: its journeys may be held alone', async () => {
    const trip = await tripOf(app.db);
    const caller = await mobileTraveller(app);
    const a = await quote(app, caller, [{ trip, assignments: ['1'] }]);
    const b = await quote(app, caller, [{ trip, assignments: ['5'] }]);
    const orderId = randomUUID();
    // The order's hold batch cannot be written, once: the draft has committed its binding by then.
    const name = `fail_hold_${orderId.slice(0, 8)}`;
    await app.db.query(`create function ${name}() returns trigger language plpgsql as $$
      begin
        if new.scope_id = '${orderId}'::uuid then raise exception 'hold batches unavailable'; end if;
        return new;
      end $$`);
    await app.db.query(
      `create trigger ${name} before insert on hold_batches for each row execute function ${name}()`,
    );
    try {
      const failed = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
      expect([failed.status, failed.body.errorCode]).toEqual([500, 'INTERNAL_ERROR']);
    } finally {
      await app.db.query(`drop trigger ${name} on hold_batches`);
      await app.db.query(`drop function ${name}()`);
    }
    const left = await orderLeft(app, orderId);
    expect(left).toEqual({ orders: 0, bound: 0, batches: 0 });
    const alone = await holdJourney(app, caller, a.journey_id, { quote_id: a.quote_id });
    expect(alone.status, alone.text).toBe(200);
  });

  it('a refused first order hold of guest quotes writes none of their journeys: another account may hold them', async () => {
    const trip = await tripOf(app.db);
    const a = await quote(app, null, [{ trip, assignments: ['1'] }]);
    const b = await quote(app, null, [{ trip, assignments: ['5'] }]);
    const rival = await mobileTraveller(app);
    const rivalQuote = await quote(app, rival, [{ trip, assignments: ['5'] }]);
    const rivalHold = await holdJourney(app, rival, rivalQuote.journey_id, { quote_id: rivalQuote.quote_id });
    expect(rivalHold.status, rivalHold.text).toBe(200);

    const accountA = await mobileTraveller(app);
    const refused = await holdOrder(app, accountA, randomUUID(), [a.journey_id, b.journey_id]);
    expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({
      status: 409,
      errorCode: 'SEATS_UNAVAILABLE',
    });
    await expectNothingWritten(app, a.journey_id);
    await expectNothingWritten(app, b.journey_id);

    const accountB = await mobileTraveller(app);
    const alone = await holdJourney(app, accountB, a.journey_id, { quote_id: a.quote_id });
    expect(alone.status, alone.text).toBe(200);
  });

  it('a refused hold of an order held before keeps its journeys: they stay fixed by the first hold', async () => {
    const trip = await tripOf(app.db);
    const caller = await mobileTraveller(app);
    const rival = await mobileTraveller(app);
    const a = await quote(app, caller, [{ trip, assignments: ['1'] }]);
    const b = await quote(app, caller, [{ trip, assignments: ['5'] }]);
    const orderId = randomUUID();
    const held = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect(held.status, held.text).toBe(200);
    const released = await app.request(`/api/journey-orders/${orderId}/holds/${held.body.data.holdBatchId}`, {
      method: 'DELETE',
      headers: caller.headers,
    });
    expect(released.status, released.text).toBe(200);
    const rivalQuote = await quote(app, rival, [{ trip, assignments: ['5'] }]);
    const rivalHold = await holdJourney(app, rival, rivalQuote.journey_id, { quote_id: rivalQuote.quote_id });
    expect(rivalHold.status, rivalHold.text).toBe(200);

    const refused = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('SEATS_UNAVAILABLE');
    const [bound] = await app.db.query<{ n: number }>(
      `select count(*)::int as n from journeys where order_id = $1`,
      [orderId],
    );
    expect(bound!.n).toBe(2);
    const alone = await holdJourney(app, caller, a.journey_id, { quote_id: a.quote_id });
    expect(alone.status).toBe(409);
    expect(alone.body.errorCode).toBe('JOURNEY_IN_ORDER');
  });

  it('a journey whose own hold lapsed (not yet written EXPIRED) may join an order; one still held may not', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const a = await quote(app, caller, [{ trip }]);
    const b = await quote(app, caller, [{ trip }]);
    const alone = await holdJourney(app, caller, a.journey_id, { quote_id: a.quote_id });
    expect(alone.status, alone.text).toBe(200);

    const stillHeld = await holdOrder(app, caller, randomUUID(), [a.journey_id, b.journey_id]);
    expect({ status: stillHeld.status, errorCode: stillHeld.body.errorCode }).toEqual({
      status: 409,
      errorCode: 'JOURNEY_NOT_HOLDABLE',
    });

    await expireHoldNow(app, alone.body.data.holdBatchId);
    const orderId = randomUUID();
    const order = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect(order.status, order.text).toBe(200);
    const [lapsed] = await app.db.query<{ status: string }>(`select status from hold_batches where id = $1`, [
      alone.body.data.holdBatchId,
    ]);
    expect(lapsed!.status).toBe('EXPIRED');
    const facts = await journeyFacts(app.db, a.journey_id);
    expect(facts.journey!.status).toBe('HELD');
    expect(facts.allocations.map((allocation) => allocation.status).sort()).toEqual(['EXPIRED', 'HELD']);
  });
});

describe('restarting the API between hold and confirm', () => {
  const app = useTestApp();

  /** A second, independent API process stand-in: its own pool, Temporal client and server. */
  async function startApi() {
    const db = await initDatabase(app.config);
    const { client, connection: temporalConnection } = await connectTemporalClient(app.config);
    const server = await new Promise<Server>((resolve) => {
      const listening = createApp({
        config: app.config,
        db,
        logger: createLogger(app.config, 'api'),
        temporal: client,
      }).listen(0, '127.0.0.1', () => resolve(listening));
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      request: (
        path: string,
        init: { method?: string; headers?: Record<string, string>; json?: unknown } = {},
      ) =>
        fetch(baseUrl + path, {
          method: init.method ?? 'GET',
          headers: { 'Content-Type': 'application/json', ...init.headers },
          body: init.json === undefined ? undefined : JSON.stringify(init.json),
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as { data: Record<string, any> },
        })),
      async close() {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await temporalConnection.close();
        await db.close();
      },
    };
  }

  it('a hold made through one API process is confirmed through a new one', async () => {
    const caller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip }]);
    const before = await startApi();
    const held = await before.request(`/api/journeys/${quoted.journey_id}/hold`, {
      method: 'POST',
      headers: caller.headers,
      json: { quote_id: quoted.quote_id },
    });
    expect(held.status).toBe(200);
    await before.close();

    const after = await startApi();
    const confirmed = await after.request(`/api/journeys/${quoted.journey_id}/confirm`, {
      method: 'POST',
      headers: caller.headers,
      json: confirmBody(quoted, held.body.data.holdBatchId),
    });
    await after.close();
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
  });
});
