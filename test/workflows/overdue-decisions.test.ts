import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { overdueDecisionSweep } from '../../activities/journeys.js';
import { createLogger } from '../../config/logger.js';
import type { Database } from '../../db/orm.js';
import { releaseOverdueDecisions } from '../../db/writes/journeys/index.js';
import { workflowIds } from '../../workflows/shared.js';
import { useTestApp, type TestApp } from '../support/harness.js';
import {
  bookJourney,
  confirmOrder,
  connection,
  eventually,
  holdOrder,
  journeyFacts,
  mobileTraveller,
  quote,
  setConfirmation,
  tripOf,
  waitUntil,
} from '../support/journeys.js';

/**
 * When decision deadlines bunch, each scope's own process is woken one after another; every
 * release also releases the scopes already overdue (db/writes/journeys/deadline.ts
 * `releaseOverdueDecisions`, kicked by the settleDecisionDeadline activity), so none waits for its
 * turn in the worker's queue.
 */

/** A journey REQUESTED from a company that decides by hand. */
async function requestedJourney(app: TestApp): Promise<string> {
  const trip = await tripOf(app.db);
  await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
  const { journeyId, confirmed } = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
  expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
  return journeyId;
}

/** Moves the scope's decision deadline a second into the past, as if its window had run out. */
async function makeOverdue(db: Database, journeyId: string): Promise<void> {
  await db.query(
    `update confirmation_requests set deadline = now() - interval '1 second' where scope_id = $1`,
    [journeyId],
  );
  await db.query(`update journeys set confirmation_deadline = now() - interval '1 second' where id = $1`, [
    journeyId,
  ]);
}

/**
 * Sweeps until no decision of these scopes is still PENDING (failing after 5 s). The tests' shared worker
 * sweeps too (worker/hold-sweeper.ts, every HOLD_SWEEP_SECONDS): while its release holds a scope's
 * lock, a sweep passes over that scope (nowait) and returns before the release has committed; the
 * next sweep finds it settled.
 */
async function sweepUntilSettled(db: Database, scopeIds: string[]): Promise<void> {
  await waitUntil(
    async () => {
      await releaseOverdueDecisions(db);
      const [row] = await db.query<{ pending: number }>(
        `select count(*)::int as pending from confirmation_requests
         where scope_id = any($1::uuid[]) and status = 'PENDING'`,
        [scopeIds],
      );
      return row!.pending;
    },
    (pending) => pending === 0,
    5_000,
    'no decision of these scopes left PENDING',
  );
}

async function stateOf(db: Database, journeyId: string) {
  const facts = await journeyFacts(db, journeyId);
  const requests = await db.query<{ status: string }>(
    `select status from confirmation_requests where scope_id = $1`,
    [journeyId],
  );
  const events = await db.query<{ event: string }>(
    `select event from outbox_events where booking_id = any($1::uuid[]) order by id`,
    [facts.bookings.map((booking) => booking.id)],
  );
  return {
    journey: facts.journey,
    seats: facts.allocations.map((allocation) => allocation.status),
    tickets: facts.tickets.map((ticket) => ticket.status),
    bookings: facts.bookings.map((booking) => booking.status),
    requests: requests.map((request) => request.status),
    cancelledEvents: events.filter((row) => row.event === 'booking.cancelled').length,
  };
}

const RELEASED_AT_DEADLINE = {
  journey: { status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' },
  seats: ['RELEASED'],
  tickets: ['CANCELLED'],
  bookings: ['CANCELLED'],
  requests: ['EXPIRED'],
  cancelledEvents: 1,
};

describe('overdue decision deadlines, released by a sweep', () => {
  // The decision window stays 15 minutes: the scopes' own processes do not wake during these tests.
  const app = useTestApp();

  it('releases every REQUESTED scope whose deadline has passed, as its own release would, and no other', async () => {
    const [first, second, notDue] = [
      await requestedJourney(app),
      await requestedJourney(app),
      await requestedJourney(app),
    ];
    await makeOverdue(app.db, first);
    await makeOverdue(app.db, second);
    const untouched = await stateOf(app.db, notDue);

    // The tests' shared worker sweeps overdue scopes too (worker/hold-sweeper.ts): it may release them first.
    await sweepUntilSettled(app.db, [first, second]);

    expect(await stateOf(app.db, first)).toEqual(RELEASED_AT_DEADLINE);
    expect(await stateOf(app.db, second)).toEqual(RELEASED_AT_DEADLINE);
    expect(await stateOf(app.db, notDue)).toEqual(untouched);
    expect(untouched.journey!.status).toBe('REQUESTED');
    // Released once: a second sweep finds nothing more to do for them.
    await releaseOverdueDecisions(app.db);
    expect((await stateOf(app.db, first)).cancelledEvents).toBe(1);
  });

  it('passes over a scope another transaction holds without waiting for it; a later sweep releases it', async () => {
    const journeyId = await requestedJourney(app);
    await makeOverdue(app.db, journeyId);
    let unlock!: () => void;
    const locked = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    // A decision's transaction, say, holding the scope lock until the sweep has run.
    const other = app.db.transaction(async (client) => {
      await client.query(`select id from journeys where id = $1 for update`, [journeyId]);
      holding();
      await locked;
    });
    await held;
    // Were the sweep to wait for the lock, this would never return: the lock is released after it.
    await releaseOverdueDecisions(app.db);
    expect((await stateOf(app.db, journeyId)).journey!.status).toBe('REQUESTED');
    unlock();
    await other;

    await sweepUntilSettled(app.db, [journeyId]);
    expect(await stateOf(app.db, journeyId)).toEqual(RELEASED_AT_DEADLINE);
  });

  it('releases an overdue order whole: the order and every journey in it', async () => {
    const caller = await mobileTraveller(app);
    const { first, second } = await connection(app.db);
    await setConfirmation(app.db, second.companyId, { mode: 'MANUAL_CONFIRM' });
    const a = await quote(app, caller, [{ trip: first }], 1);
    const b = await quote(app, caller, [{ trip: second }], 2);
    const orderId = randomUUID();
    const held = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmOrder(app, caller, orderId, held.body.data.holdBatchId, [
      { journeyId: a.journey_id, partySize: 1 },
      { journeyId: b.journey_id, partySize: 2 },
    ]);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    await app.db.query(
      `update confirmation_requests set deadline = now() - interval '1 second' where scope_id = $1`,
      [orderId],
    );

    await sweepUntilSettled(app.db, [orderId]);

    const [order] = await app.db.query<{ status: string; failure_reason: string | null }>(
      `select status, failure_reason from journey_orders where id = $1`,
      [orderId],
    );
    expect(order).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    for (const journeyId of [a.journey_id, b.journey_id]) {
      const facts = await journeyFacts(app.db, journeyId);
      expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
      expect(new Set(facts.allocations.map((allocation) => allocation.status))).toEqual(
        new Set(['RELEASED']),
      );
    }
  });

  it("one worker's sweep at a time: kicks while it runs join it, and each kick answers once it has ended", async () => {
    const sweep = overdueDecisionSweep(app.db, createLogger(app.config, 'test'));
    const journeyId = await requestedJourney(app);
    await makeOverdue(app.db, journeyId);
    const first = sweep.kick();
    expect(sweep.kick()).toBe(first);
    await first;
    const state = await eventually(
      () => stateOf(app.db, journeyId),
      (value) => value.journey!.status !== 'REQUESTED',
    );
    expect(state).toEqual(RELEASED_AT_DEADLINE);
  });
});

describe('overdue decision deadlines, swept by a deadline release', () => {
  // 15 minutes × 0.004 = 3.6 s: the scopes' own processes wake during the test.
  const app = useTestApp({ TIME_SCALE: 0.004, HOLD_MINUTES: 120 });

  it('a deadline release sweeps another overdue scope, whose own process, when it wakes, finds it released', async () => {
    const activities = createActivities({
      config: app.config,
      db: app.db,
      logger: createLogger(app.config, 'test'),
    });
    const settledOne = await requestedJourney(app);
    const overdue = await requestedJourney(app);
    await makeOverdue(app.db, overdue);

    // The first scope's deadline has not passed: its release answers REQUESTED, and sweeps all the same.
    const settled = await activities.settleDecisionDeadline({ scope: { kind: 'JOURNEY', id: settledOne } });
    expect(settled.status).toBe('REQUESTED');
    const swept = await eventually(
      () => stateOf(app.db, overdue),
      (value) => value.journey!.status !== 'REQUESTED',
      2_000,
    );
    expect(swept).toEqual(RELEASED_AT_DEADLINE);

    const result = await app.temporal.workflow.getHandle(workflowIds.journeyConfirmation(overdue)).result();
    expect(result).toMatchObject({ phase: 'CANCELLED', pendingCompanies: [] });
    expect(await stateOf(app.db, overdue)).toEqual(RELEASED_AT_DEADLINE);
  });

  it('a process settling its deadline and sweeps racing it release the scope once: one outcome, one booking.cancelled', async () => {
    const activities = createActivities({
      config: app.config,
      db: app.db,
      logger: createLogger(app.config, 'test'),
    });
    const journeyId = await requestedJourney(app);
    await makeOverdue(app.db, journeyId);

    const [settled] = await Promise.all([
      activities.settleDecisionDeadline({ scope: { kind: 'JOURNEY', id: journeyId } }),
      releaseOverdueDecisions(app.db),
      releaseOverdueDecisions(app.db),
    ]);

    expect(settled.status).toBe('CANCELLED');
    expect(await stateOf(app.db, journeyId)).toEqual(RELEASED_AT_DEADLINE);
    const result = await app.temporal.workflow.getHandle(workflowIds.journeyConfirmation(journeyId)).result();
    expect(result).toMatchObject({ phase: 'CANCELLED', pendingCompanies: [] });
    expect(await stateOf(app.db, journeyId)).toEqual(RELEASED_AT_DEADLINE);
  });
});

describe('overdue decision deadlines of a scope whose process an operator ended', () => {
  // 15 minutes × 0.004 = 3.6 s. The release comes from the tests' shared worker, whose periodic
  // sweep (worker/hold-sweeper.ts, every HOLD_SWEEP_SECONDS: 5) no deadline release has to kick.
  const app = useTestApp({ TIME_SCALE: 0.004, HOLD_MINUTES: 120 });

  for (const action of ['terminate', 'cancel'] as const) {
    it(`after an operator's ${action} of its process, the scope is still released at its deadline by the worker's sweep`, async () => {
      const journeyId = await requestedJourney(app);
      const handle = app.temporal.workflow.getHandle(workflowIds.journeyConfirmation(journeyId));
      if (action === 'terminate') await handle.terminate('operator');
      else await handle.cancel();
      expect((await stateOf(app.db, journeyId)).journey!.status).toBe('REQUESTED');

      const state = await eventually(
        () => stateOf(app.db, journeyId),
        (value) => value.journey!.status !== 'REQUESTED',
        20_000,
      );
      expect(state).toEqual(RELEASED_AT_DEADLINE);
      expect((await handle.describe()).status.name).toBe(action === 'terminate' ? 'TERMINATED' : 'CANCELLED');
    }, 30_000);
  }
});
