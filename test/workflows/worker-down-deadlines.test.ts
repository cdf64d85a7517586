import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/orm.js';
import { recordDecision, releaseOverdueDecisions } from '../../db/writes/journeys/index.js';
import { atDamascus, createCity, createStop, futureDay } from '../support/factories.js';
import { useTestApp, type TestApp } from '../support/harness.js';
import { cancelledEvents, staffSession } from '../support/journey-rows.js';
import {
  bookingOfCompany,
  bookJourney,
  journeyFacts,
  mobileTraveller,
  setConfirmation,
  tripOf,
} from '../support/journeys.js';
import { advance, assignDriver, createDriver, dispatch, dispatchView } from '../support/operations.js';
import { usePrivateDatabase } from '../support/private-database.js';

/**
 * Decision deadlines that pass while no worker runs (SPEC "Journey confirmation": REQUESTED --decision
 * deadline passes--> cancelled scope, resources released; judged by the database, not a workflow's
 * clock). This file runs on a database of its own with a task queue nobody polls: no workflow runs and
 * no worker sweeps (worker/hold-sweeper.ts), as when every worker is stopped for hours. Time passing is
 * modelled by moving every time the confirm wrote for the journey (its requests' deadlines, the
 * journey's deadline, its seats' hold) back by the same interval.
 */
const database = usePrivateDatabase('workerdown');
const app = useTestApp({ DATABASE_URL: database.url, TEMPORAL_TASK_QUEUE: `nobody-polls-${randomUUID()}` });

/** `interval` passes for the journey: what the confirm dated from its now() is that much older. */
async function timePasses(db: Database, journeyId: string, interval: string): Promise<void> {
  await db.query(
    `update confirmation_requests set deadline = deadline - $2::interval where scope_kind = 'JOURNEY' and scope_id = $1`,
    [journeyId, interval],
  );
  await db.query(
    `update journeys set confirmation_deadline = confirmation_deadline - $2::interval where id = $1`,
    [journeyId, interval],
  );
  await db.query(
    `update seat_allocations set expires_at = expires_at - $2::interval
     where owner_kind = 'JOURNEY' and owner_id = $1 and expires_at is not null`,
    [journeyId, interval],
  );
}

/** Two companies' trips meeting at a shared stop, the first with one row of seats (4). */
async function smallConnection(db: Database) {
  const shared = await createStop(db, (await createCity(db)).id);
  const day = futureDay(4);
  const first = await tripOf(db, { rows: 1, to: shared, departAt: atDamascus(day, '06:00') });
  const second = await tripOf(db, { rows: 1, from: shared, departAt: atDamascus(day, '10:00') });
  return { first, second };
}

/** Another traveller's quote of every seat of the trip, whole: the answer as sent. */
async function quoteAllSeats(app: TestApp, trip: Awaited<ReturnType<typeof tripOf>>) {
  const other = await mobileTraveller(app);
  return app.request('/api/journeys/quote', {
    method: 'POST',
    headers: other.headers,
    json: {
      party_size: trip.seatCount,
      legs: [
        {
          trip_id: trip.tripId,
          board_stop_call_id: trip.stopCallIds[0],
          alight_stop_call_id: trip.stopCallIds[2],
        },
      ],
      resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: trip.seatCount, assignments: [] }],
      idempotency_key: `quote-${randomUUID()}`,
    },
  });
}

async function requestsOf(db: Database, journeyId: string) {
  const rows = await db.query<{ company_id: string; status: string }>(
    `select company_id, status from confirmation_requests where scope_id = $1`,
    [journeyId],
  );
  return Object.fromEntries(rows.map((row) => [row.company_id, row.status]));
}

/**
 * A connection of two manual companies: the first decides within 15 minutes, the second within 60
 * (smallConnection).
 */
async function connectionOfTwoWindows() {
  const { first, second } = await smallConnection(app.db);
  await setConfirmation(app.db, first.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
  await setConfirmation(app.db, second.companyId, { mode: 'MANUAL_CONFIRM', window: 60 });
  return { first, second };
}

/** What the journey ends as when its deadline releases it: the first request EXPIRED, the second CANCELLED. */
async function expectReleasedAtTheFirstDeadline(journeyId: string, companies: [string, string]) {
  const facts = await journeyFacts(app.db, journeyId);
  expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
  expect(new Set(facts.allocations.map((allocation) => allocation.status))).toEqual(new Set(['RELEASED']));
  expect(await requestsOf(app.db, journeyId)).toEqual({
    [companies[0]]: 'EXPIRED',
    [companies[1]]: 'CANCELLED',
  });
  expect(await cancelledEvents(app.db, journeyId)).toBe(2);
}

async function decide(app: TestApp, companyId: string, journeyId: string, decision: 'APPROVE' | 'REJECT') {
  const staff = await staffSession(app.db, app.config, companyId, 'DISPATCHER');
  return app.request(
    `/dashboard/api/bookings/${await bookingOfCompany(app.db, journeyId, companyId)}/status`,
    {
      method: 'PATCH',
      headers: staff.writeHeaders,
      json: decision === 'APPROVE' ? { decision } : { decision, reason: 'full' },
    },
  );
}

describe('a journey request whose decision deadline passed while no worker runs', () => {
  it('does not keep its trip from departing: the DEPART releases the journey (seats freed, booking cancelled)', async () => {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
    const { confirmed, journeyId } = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    await timePasses(app.db, journeyId, '1 hour');

    const driver = await createDriver(app, trip.companyId);
    await assignDriver(app.db, trip.tripId, driver.staffUserId);
    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    await advance(app, dispatcher, trip.tripId, 'START_BOARDING');
    // Nobody read the journey or tried to decide it since: the request is still written PENDING.
    expect(await requestsOf(app.db, journeyId)).toEqual({ [trip.companyId]: 'PENDING' });

    const departed = await dispatch(app, dispatcher, trip.tripId, { action: 'DEPART' });
    expect(departed.status, departed.text).toBe(200);

    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED']);
    expect(facts.bookings.map((booking) => booking.status)).toEqual(['CANCELLED']);
    expect(await requestsOf(app.db, journeyId)).toEqual({ [trip.companyId]: 'EXPIRED' });
    expect(await cancelledEvents(app.db, journeyId)).toBe(1);
    // Released once: the worker's sweep, when it is back, finds nothing left to do.
    await releaseOverdueDecisions(app.db);
    expect(await cancelledEvents(app.db, journeyId)).toBe(1);
  });

  it('released late, expires the request whose window ran out first and cancels the one whose window was still open then', async () => {
    const { first, second } = await connectionOfTwoWindows();
    const { confirmed, journeyId } = await bookJourney(app, await mobileTraveller(app), [
      { trip: first },
      { trip: second },
    ]);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    // Two hours pass: both windows ran out, the second 45 minutes after the scope closed at the first.
    await timePasses(app.db, journeyId, '2 hours');

    // What the worker's sweep runs when it is back (the scope's own process settles the same way).
    await releaseOverdueDecisions(app.db);

    expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
      status: 'CANCELLED',
      failure_reason: 'DECISION_DEADLINE_PASSED',
    });
    expect(await requestsOf(app.db, journeyId)).toEqual({
      [first.companyId]: 'EXPIRED',
      [second.companyId]: 'CANCELLED',
    });
  });

  it('frees its seats to other travellers and reads CANCELLED, though no worker released it', async () => {
    const { first, second } = await connectionOfTwoWindows();
    const traveller = await mobileTraveller(app);
    const { journeyId } = await bookJourney(
      app,
      traveller,
      [{ trip: first }, { trip: second }],
      first.seatCount,
    );
    const beforeDeadline = await quoteAllSeats(app, first);
    expect([beforeDeadline.status, beforeDeadline.body.errorCode]).toEqual([409, 'INSUFFICIENT_SEATS']);
    // 30 minutes: the first company's 15-minute window ran out (the second's is still open).
    await timePasses(app.db, journeyId, '30 minutes');

    const quoted = await quoteAllSeats(app, first);
    expect(quoted.status, quoted.text).toBe(200);
    const read = await app.request(`/api/journeys/${journeyId}`, { headers: traveller.headers });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.confirmation.status).toBe('CANCELLED');
    await expectReleasedAtTheFirstDeadline(journeyId, [first.companyId, second.companyId]);
    // Released once: the worker's sweep, when it is back, finds nothing left to do.
    await releaseOverdueDecisions(app.db);
    expect(await cancelledEvents(app.db, journeyId)).toBe(2);
  });

  it("leaves the trip's manifest once its seats are sold again, though no worker released it", async () => {
    const trip = await tripOf(app.db, { rows: 1 });
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
    const asked = await bookJourney(app, await mobileTraveller(app), [{ trip }], trip.seatCount);
    await timePasses(app.db, asked.journeyId, '30 minutes');
    // The seats are free from the deadline: another traveller buys them all (the company now automatic).
    await setConfirmation(app.db, trip.companyId, { mode: 'AUTO_CONFIRM' });
    await bookJourney(app, await mobileTraveller(app), [{ trip }], trip.seatCount);

    const staff = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    const view = await dispatchView(app, staff, trip.tripId);
    expect(view.status, view.text).toBe(200);
    const listed = (view.body.data.manifest as { journey_id: string; ticket_status: string }[]).map(
      (item) => [
        item.journey_id === asked.journeyId ? 'the closed request' : 'the buyer',
        item.ticket_status,
      ],
    );
    expect(listed).toEqual(Array(trip.seatCount).fill(['the buyer', 'VALID']));
    expect(view.body.data.counters).toMatchObject({ total: trip.seatCount, awaiting_confirmation: 0 });
  });

  it("keeps its seats held while a company that approved leaves another company's window open", async () => {
    const { first, second } = await connectionOfTwoWindows();
    const traveller = await mobileTraveller(app);
    const { journeyId } = await bookJourney(
      app,
      traveller,
      [{ trip: first }, { trip: second }],
      first.seatCount,
    );
    const approved = await decide(app, first.companyId, journeyId, 'APPROVE');
    expect(approved.status, approved.text).toBe(200);
    // Past the first company's window, within the second's: the journey still waits for the second.
    await timePasses(app.db, journeyId, '30 minutes');

    const quoted = await quoteAllSeats(app, first);
    expect([quoted.status, quoted.body.errorCode]).toEqual([409, 'INSUFFICIENT_SEATS']);
    const read = await app.request(`/api/journeys/${journeyId}`, { headers: traveller.headers });
    expect(read.body.data.confirmation.status).toBe('REQUESTED');
    const facts = await journeyFacts(app.db, journeyId);
    expect(new Set(facts.allocations.map((allocation) => allocation.status))).toEqual(new Set(['HELD']));
  });

  it('refuses a decision after its own window ran out, and releases the journey as its deadline would', async () => {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
    const { journeyId } = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
    await timePasses(app.db, journeyId, '1 hour');

    const approve = await decide(app, trip.companyId, journeyId, 'APPROVE');
    const reject = await decide(app, trip.companyId, journeyId, 'REJECT');
    expect([approve.status, approve.body.errorCode]).toEqual([409, 'JOURNEY_CONFIRMATION_STATE_CONFLICT']);
    expect([reject.status, reject.body.errorCode]).toEqual([409, 'JOURNEY_CONFIRMATION_STATE_CONFLICT']);

    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED']);
    expect(await requestsOf(app.db, journeyId)).toEqual({ [trip.companyId]: 'EXPIRED' });
    expect(await cancelledEvents(app.db, journeyId)).toBe(1);
  });
});

describe("a decision of a company whose window is still open, after another company's window ran out (no worker)", () => {
  /** The first company's 15-minute window ran out 15 minutes ago; the second's 60 minutes still run. */
  async function closedAtTheFirstDeadline() {
    const { first, second } = await connectionOfTwoWindows();
    const traveller = await mobileTraveller(app);
    const { confirmed, journeyId } = await bookJourney(
      app,
      traveller,
      [{ trip: first }, { trip: second }],
      first.seatCount,
    );
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    return { first, second, traveller, journeyId };
  }

  it('is refused 409 for an approval: the journey ends DECISION_DEADLINE_PASSED, its request CANCELLED', async () => {
    const { first, second, traveller, journeyId } = await closedAtTheFirstDeadline();
    await timePasses(app.db, journeyId, '30 minutes');

    const approved = await decide(app, second.companyId, journeyId, 'APPROVE');

    expect([approved.status, approved.body.errorCode]).toEqual([409, 'JOURNEY_CONFIRMATION_STATE_CONFLICT']);
    await expectReleasedAtTheFirstDeadline(journeyId, [first.companyId, second.companyId]);
    const read = await app.request(`/api/journeys/${journeyId}`, { headers: traveller.headers });
    expect(read.body.data.confirmation.status).toBe('CANCELLED');
  });

  it('is refused 409 for a rejection: the missed deadline does not become COMPANY_REJECTED', async () => {
    const { first, second, journeyId } = await closedAtTheFirstDeadline();
    await timePasses(app.db, journeyId, '30 minutes');

    const rejected = await decide(app, second.companyId, journeyId, 'REJECT');

    expect([rejected.status, rejected.body.errorCode]).toEqual([409, 'JOURNEY_CONFIRMATION_STATE_CONFLICT']);
    await expectReleasedAtTheFirstDeadline(journeyId, [first.companyId, second.companyId]);
  });

  it('is refused by the decision itself when nothing released the journey first, which it leaves as it was', async () => {
    const { first, second, journeyId } = await closedAtTheFirstDeadline();
    await timePasses(app.db, journeyId, '30 minutes');
    const staff = await staffSession(app.db, app.config, second.companyId, 'DISPATCHER');

    // The transaction alone, as the decide Update of a run started before decisions were the API's.
    const approving = recordDecision(app.db, {
      scope: { kind: 'JOURNEY', id: journeyId },
      companyId: second.companyId,
      decision: 'APPROVE',
      actorId: staff.staffUserId,
    });

    await expect(approving).rejects.toMatchObject({
      status: 409,
      code: 'JOURNEY_CONFIRMATION_STATE_CONFLICT',
    });
    expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
      status: 'REQUESTED',
      failure_reason: null,
    });
    expect(await requestsOf(app.db, journeyId)).toEqual({
      [first.companyId]: 'PENDING',
      [second.companyId]: 'PENDING',
    });
  });

  it('answers a repeat of an approval made before the first window ran out as the journey stands', async () => {
    const { first, second, journeyId } = await closedAtTheFirstDeadline();
    const approved = await decide(app, second.companyId, journeyId, 'APPROVE');
    expect([approved.status, approved.body.data.outcome]).toEqual([200, 'REQUESTED']);
    await timePasses(app.db, journeyId, '30 minutes');

    const repeated = await decide(app, second.companyId, journeyId, 'APPROVE');

    expect([repeated.status, repeated.body.data?.outcome], repeated.text).toEqual([200, 'CANCELLED']);
    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    expect(await requestsOf(app.db, journeyId)).toEqual({
      [first.companyId]: 'EXPIRED',
      [second.companyId]: 'APPROVED',
    });
  });
});

describe("a trip whose journey request closed at another company's deadline, in its operations room (no worker)", () => {
  it('is not blocked by REQUESTS_PENDING: the view offers the DEPART that releases the journey', async () => {
    const { first, second } = await smallConnection(app.db);
    // The trip's own company has the long window; the connecting company the short one.
    await setConfirmation(app.db, first.companyId, { mode: 'MANUAL_CONFIRM', window: 60 });
    await setConfirmation(app.db, second.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
    const { journeyId } = await bookJourney(app, await mobileTraveller(app), [
      { trip: first },
      { trip: second },
    ]);
    const driver = await createDriver(app, first.companyId);
    await assignDriver(app.db, first.tripId, driver.staffUserId);
    const dispatcher = await staffSession(app.db, app.config, first.companyId, 'DISPATCHER');
    await advance(app, dispatcher, first.tripId, 'START_BOARDING');
    const waiting = await dispatchView(app, dispatcher, first.tripId);
    expect(waiting.body.data.readiness).toMatchObject({
      ready: false,
      blockers: [{ code: 'REQUESTS_PENDING', count: 1 }],
    });
    expect(waiting.body.data.allowed_actions).not.toContain('DEPART');
    // 30 minutes: the connecting company's window ran out, so the journey closed then.
    await timePasses(app.db, journeyId, '30 minutes');

    const view = await dispatchView(app, dispatcher, first.tripId);

    expect(view.status, view.text).toBe(200);
    expect(view.body.data.readiness).toMatchObject({ ready: true, blockers: [] });
    expect(view.body.data.allowed_actions).toContain('DEPART');
    const departed = await dispatch(app, dispatcher, first.tripId, { action: 'DEPART' });
    expect(departed.status, departed.text).toBe(200);
    expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
      status: 'CANCELLED',
      failure_reason: 'DECISION_DEADLINE_PASSED',
    });
    expect(await requestsOf(app.db, journeyId)).toEqual({
      [first.companyId]: 'CANCELLED',
      [second.companyId]: 'EXPIRED',
    });
  });
});
