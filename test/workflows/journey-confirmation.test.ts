import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { loadConfig } from '../../config/index.js';
import { createLogger } from '../../config/logger.js';
import { connectionOptions } from '../../config/temporal.js';
import { initDatabase, type Database } from '../../db/orm.js';
import { expireDecisions, recordDecision, settleDecisionDeadline } from '../../db/writes/journeys/index.js';
import { workflowIds } from '../../workflows/shared.js';
import { useTestApp, type TestApp } from '../support/harness.js';
import {
  bookJourney,
  confirmJourney,
  confirmOrder,
  connection,
  eventually,
  holdJourney,
  holdOrder,
  journeyFacts,
  mobileTraveller,
  quote,
  setConfirmation,
  travellers,
  tripOf,
  type LegChoice,
  waitUntil,
} from '../support/journeys.js';
import { createStaffMember, staffLogin } from '../support/staff.js';
import { signedInAdmin } from '../api/admin/helpers.js';

/** A company user who may decide requests, signed in to the dashboard. */
async function dispatcherOf(app: TestApp, companyId: string) {
  const member = await createStaffMember(app.db, companyId, 'DISPATCHER');
  const staff = await staffLogin(app, { email: member.email, password: member.password });
  expect(staff.response.status, staff.response.text).toBe(200);
  return staff;
}

async function bookingOf(app: TestApp, journeyId: string, companyId: string): Promise<string> {
  const [row] = await app.db.query<{ id: string }>(
    `select id from bookings where journey_id = $1 and company_id = $2`,
    [journeyId, companyId],
  );
  return row!.id;
}

async function decide(app: TestApp, companyId: string, journeyId: string, decision: 'APPROVE' | 'REJECT') {
  const staff = await dispatcherOf(app, companyId);
  return app.request(`/dashboard/api/bookings/${await bookingOf(app, journeyId, companyId)}/status`, {
    method: 'PATCH',
    headers: staff.writeHeaders,
    json: { decision },
  });
}

const journeyOf = (app: TestApp, journeyId: string) => journeyFacts(app.db, journeyId);

async function requestsOf(db: Database, journeyId: string) {
  return db.query<{ company_id: string; status: string }>(
    `select company_id, status from confirmation_requests where scope_id = $1 order by company_id`,
    [journeyId],
  );
}

/** What a company's dashboard shows of its booking of the journey: the booking's status and its request's. */
async function dashboardView(app: TestApp, journeyId: string, companyId: string) {
  const staff = await dispatcherOf(app, companyId);
  const read = await app.request(`/dashboard/api/bookings/${await bookingOf(app, journeyId, companyId)}`, {
    headers: { Cookie: staff.cookie },
  });
  expect(read.status, read.text).toBe(200);
  return { status: read.body.data.status, confirmation: read.body.data.confirmation?.status };
}

/** The companies' request statuses as the traveller reads them (GET /journeys/{id} confirmation.requests). */
async function travellerRequests(
  app: TestApp,
  caller: { headers: Record<string, string> },
  journeyId: string,
) {
  const read = await app.request(`/api/journeys/${journeyId}`, { headers: caller.headers });
  expect(read.status, read.text).toBe(200);
  const requests = read.body.data.confirmation.requests as { company_id: string; status: string }[];
  return Object.fromEntries(requests.map((request) => [request.company_id, request.status]));
}

/** A journey over a connection of two companies deciding by hand, the first within 15 minutes, the second 30. */
async function twoWindowsJourney(app: TestApp) {
  const { first, second } = await connection(app.db);
  await setConfirmation(app.db, first.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
  await setConfirmation(app.db, second.companyId, { mode: 'MANUAL_CONFIRM', window: 30 });
  const caller = await mobileTraveller(app);
  const booked = await bookJourney(app, caller, [{ trip: first }, { trip: second }]);
  expect(booked.confirmed.body.data.confirmation.status).toBe('REQUESTED');
  return { ...booked, caller, first, second };
}

/** A journey over a connection of two companies (one traveller), confirmed from the mobile app. */
async function connectionJourney(
  app: TestApp,
  modes: ['AUTO_CONFIRM' | 'MANUAL_CONFIRM', 'AUTO_CONFIRM' | 'MANUAL_CONFIRM'],
) {
  const { first, second } = await connection(app.db);
  await setConfirmation(app.db, first.companyId, { mode: modes[0] });
  await setConfirmation(app.db, second.companyId, { mode: modes[1] });
  const caller = await mobileTraveller(app);
  const legs: LegChoice[] = [{ trip: first }, { trip: second }];
  const booked = await bookJourney(app, caller, legs);
  return { ...booked, caller, first, second };
}

describe('journey confirmation: company decisions', () => {
  const app = useTestApp();

  it('two companies, both manual: REQUESTED until both approve, then CONFIRMED with signed tickets', async () => {
    const { journeyId, confirmed, first, second, caller } = await connectionJourney(app, [
      'MANUAL_CONFIRM',
      'MANUAL_CONFIRM',
    ]);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    expect(confirmed.body.data.confirmation.requests).toHaveLength(2);
    expect(confirmed.body.data.legs.map((leg: { company: { id: string } }) => leg.company.id)).toEqual([
      first.companyId,
      second.companyId,
    ]);

    const firstApproval = await decide(app, first.companyId, journeyId, 'APPROVE');
    expect(firstApproval.status, firstApproval.text).toBe(200);
    expect(firstApproval.body.data.outcome).toBe('REQUESTED');
    expect(
      (await journeyOf(app, journeyId)).tickets.every(
        (ticket) => !ticket.boarding_authorized && ticket.signature === null,
      ),
    ).toBe(true);

    const secondApproval = await decide(app, second.companyId, journeyId, 'APPROVE');
    expect(secondApproval.status, secondApproval.text).toBe(200);
    expect(secondApproval.body.data.outcome).toBe('CONFIRMED');
    const facts = await journeyOf(app, journeyId);
    expect(facts.journey!.status).toBe('CONFIRMED');
    expect(facts.tickets).toHaveLength(2);
    expect(
      facts.tickets.every(
        (ticket) => ticket.status === 'VALID' && ticket.boarding_authorized && ticket.signature,
      ),
    ).toBe(true);
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['CONFIRMED', 'CONFIRMED']);
    expect(facts.bookings.map((booking) => booking.status)).toEqual(['CONFIRMED', 'CONFIRMED']);
    const read = await app.request(`/api/journeys/${journeyId}`, { headers: caller.headers });
    expect(read.body.data.confirmation).toMatchObject({ status: 'CONFIRMED', deadline: null });
  });

  it('one manual company of two: its approval confirms the journey', async () => {
    const { journeyId, confirmed, first } = await connectionJourney(app, ['MANUAL_CONFIRM', 'AUTO_CONFIRM']);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    expect(confirmed.body.data.confirmation.requests).toEqual([
      expect.objectContaining({ company_id: first.companyId, status: 'PENDING' }),
    ]);
    const approved = await decide(app, first.companyId, journeyId, 'APPROVE');
    expect(approved.body.data.outcome).toBe('CONFIRMED');
    expect((await journeyOf(app, journeyId)).tickets.every((ticket) => ticket.status === 'VALID')).toBe(true);
  });

  it('a rejection releases everything: every seat, every ticket, every request, with failure_reason COMPANY_REJECTED', async () => {
    const { journeyId, first, second, caller } = await connectionJourney(app, [
      'MANUAL_CONFIRM',
      'MANUAL_CONFIRM',
    ]);
    const rejected = await decide(app, second.companyId, journeyId, 'REJECT');
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body.data).toMatchObject({
      outcome: 'CANCELLED',
      failure_reason: 'COMPANY_REJECTED',
      booking: { status: 'CANCELLED' },
    });
    const facts = await journeyOf(app, journeyId);
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'COMPANY_REJECTED' });
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED', 'RELEASED']);
    expect(
      facts.tickets.every((ticket) => ticket.status === 'CANCELLED' && !ticket.boarding_authorized),
    ).toBe(true);
    expect(facts.bookings.map((booking) => booking.status)).toEqual(['CANCELLED', 'CANCELLED']);
    expect((await requestsOf(app.db, journeyId)).map((request) => request.status).sort()).toEqual([
      'CANCELLED',
      'REJECTED',
    ]);
    const late = await decide(app, first.companyId, journeyId, 'APPROVE');
    expect(late.status).toBe(409);
    expect(late.body.errorCode).toBe('JOURNEY_CONFIRMATION_STATE_CONFLICT');
    const read = await app.request(`/api/journeys/${journeyId}`, { headers: caller.headers });
    expect(read.body.data).toMatchObject({
      confirmation: { status: 'CANCELLED' },
      failure_reason: 'COMPANY_REJECTED',
    });
  });

  it("a rejection after another company's deadline passed, before that deadline was released, is refused: the journey ends at that deadline", async () => {
    const { journeyId, caller, first, second } = await twoWindowsJourney(app);
    const rejecter = await dispatcherOf(app, second.companyId);
    const bookingB = await bookingOf(app, journeyId, second.companyId);
    // A transaction in flight holds the journey's lock, so neither the journey's process nor a sweep
    // nor the decision's own release (which does not wait) releases the first company's deadline,
    // which passes meanwhile; the rejection waits behind it and then finds the journey closed.
    let unlock!: () => void;
    const locked = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    let holder!: (pid: number) => void;
    const holding = new Promise<number>((resolve) => {
      holder = resolve;
    });
    const inFlight = app.db.transaction(async (client) => {
      await client.query(`select id from journeys where id = $1 for update`, [journeyId]);
      const { rows } = await client.query<{ pid: number }>(`select pg_backend_pid() as pid`);
      holder(rows[0]!.pid);
      await locked;
    });
    const pid = await holding;
    await app.db.query(
      `update confirmation_requests set deadline = now() - interval '1 second' where scope_id = $1 and company_id = $2`,
      [journeyId, first.companyId],
    );
    const rejecting = app.request(`/dashboard/api/bookings/${bookingB}/status`, {
      method: 'PATCH',
      headers: rejecter.writeHeaders,
      json: { decision: 'REJECT' },
    });
    await waitUntil(
      () =>
        app.db.query(`select pid from pg_stat_activity where pg_blocking_pids(pid) && array[$1]::int[]`, [
          pid,
        ]),
      (rows) => rows.length > 0,
      10_000,
      'the REJECT to wait on the held lock',
    );
    unlock();
    await inFlight;
    const rejected = await rejecting;
    expect([rejected.status, rejected.body.errorCode]).toEqual([409, 'JOURNEY_CONFIRMATION_STATE_CONFLICT']);

    // The traveller's read releases the journey if nothing has yet: closed at the first deadline.
    expect(await travellerRequests(app, caller, journeyId)).toEqual({
      [first.companyId]: 'EXPIRED',
      [second.companyId]: 'CANCELLED',
    });
    expect((await journeyOf(app, journeyId)).journey).toEqual({
      status: 'CANCELLED',
      failure_reason: 'DECISION_DEADLINE_PASSED',
    });
    expect(await dashboardView(app, journeyId, first.companyId)).toEqual({
      status: 'CANCELLED',
      confirmation: 'EXPIRED',
    });
  });

  it("an older run's deadline release expires the request whose deadline its timer kept and cancels the one still open", async () => {
    const { journeyId, caller, first, second } = await twoWindowsJourney(app);
    // Runs started by older code call expireCompanyDecisions when their timer reaches the earliest
    // pending deadline (the first company's), which the database's clock may not have reached quite yet.
    expect(await expireDecisions(app.db, { scope: { kind: 'JOURNEY', id: journeyId } })).toEqual({
      status: 'CANCELLED',
    });
    expect((await journeyOf(app, journeyId)).journey).toEqual({
      status: 'CANCELLED',
      failure_reason: 'DECISION_DEADLINE_PASSED',
    });
    expect(await travellerRequests(app, caller, journeyId)).toEqual({
      [first.companyId]: 'EXPIRED',
      [second.companyId]: 'CANCELLED',
    });
  });

  it('operators find the process in Temporal by CompanyId and BookingId', async () => {
    const { journeyId, first, second } = await connectionJourney(app, ['MANUAL_CONFIRM', 'AUTO_CONFIRM']);
    const found = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const execution of app.temporal.workflow.list({
          query: `CompanyId = '${second.companyId}' AND BookingId = '${journeyId}'`,
        })) {
          ids.push(execution.workflowId);
        }
        return ids;
      },
      (ids) => ids.length > 0,
    );
    expect(found).toEqual([workflowIds.journeyConfirmation(journeyId)]);
    const described = await app.temporal.workflow
      .getHandle(workflowIds.journeyConfirmation(journeyId))
      .describe();
    // BookingId: the journey's id and its booking rows' (the ids the dashboard and webhooks name).
    const bookingIds = [
      await bookingOf(app, journeyId, first.companyId),
      await bookingOf(app, journeyId, second.companyId),
    ];
    expect(described.searchAttributes).toMatchObject({
      CompanyId: [first.companyId, second.companyId].sort(),
      ProcessStatus: ['REQUESTED'],
    });
    expect([...(described.searchAttributes.BookingId as string[])].sort()).toEqual(
      [journeyId, ...bookingIds].sort(),
    );
    expect(described.memo).toMatchObject({ scopeKind: 'JOURNEY' });
  });
});

describe('journey confirmation: the decision deadline (TIME_SCALE shortens the 15-minute window in tests)', () => {
  // 15 minutes × 0.004 = 3.6 s; the hold (120 minutes) lasts 28.8 s.
  const app = useTestApp({ TIME_SCALE: 0.004, HOLD_MINUTES: 120 });

  it('a passing deadline cancels the scope, releases the seats and sets failure_reason', async () => {
    const { journeyId, confirmed, caller } = await connectionJourney(app, ['AUTO_CONFIRM', 'MANUAL_CONFIRM']);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    const facts = await eventually(
      () => journeyOf(app, journeyId),
      (value) => value.journey!.status !== 'REQUESTED',
    );
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED', 'RELEASED']);
    expect((await requestsOf(app.db, journeyId)).map((request) => request.status)).toEqual(['EXPIRED']);
    const read = await app.request(`/api/journeys/${journeyId}`, { headers: caller.headers });
    expect(read.body.data).toMatchObject({
      confirmation: { status: 'CANCELLED' },
      failure_reason: 'DECISION_DEADLINE_PASSED',
    });
    const result = await app.temporal.workflow.getHandle(workflowIds.journeyConfirmation(journeyId)).result();
    expect(result).toMatchObject({ phase: 'CANCELLED' });
  });

  it("one company's passing deadline ends another's still-open request CANCELLED, not EXPIRED: only the first missed its deadline", async () => {
    // The first company's window: 3.6 s; the second's: 7.2 s.
    const { journeyId, caller, first, second } = await twoWindowsJourney(app);
    const facts = await eventually(
      () => journeyOf(app, journeyId),
      (value) => value.journey!.status !== 'REQUESTED',
      30_000,
    );
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    const [secondWindow] = await app.db.query<{ open: boolean }>(
      `select r.deadline > j.closed_at as open from confirmation_requests r join journeys j on j.id = r.scope_id
       where r.scope_id = $1 and r.company_id = $2`,
      [journeyId, second.companyId],
    );
    expect(secondWindow!.open).toBe(true);

    expect(await travellerRequests(app, caller, journeyId)).toEqual({
      [first.companyId]: 'EXPIRED',
      [second.companyId]: 'CANCELLED',
    });
    expect(await dashboardView(app, journeyId, first.companyId)).toEqual({
      status: 'CANCELLED',
      confirmation: 'EXPIRED',
    });
    expect(await dashboardView(app, journeyId, second.companyId)).toEqual({
      status: 'CANCELLED',
      confirmation: 'CANCELLED',
    });
    // Each company's webhooks: its booking cancelled, once, as for a rejection.
    const events = await app.db.query<{ company_id: string; event: string }>(
      `select b.company_id, e.event from outbox_events e join bookings b on b.id = e.booking_id
       where b.journey_id = $1 and e.event <> 'booking.created' order by e.id`,
      [journeyId],
    );
    expect(events.filter((row) => row.company_id === first.companyId).map((row) => row.event)).toEqual([
      'booking.cancelled',
    ]);
    expect(events.filter((row) => row.company_id === second.companyId).map((row) => row.event)).toEqual([
      'booking.cancelled',
    ]);

    const { browser } = await signedInAdmin(app, { role: 'ANALYST' });
    const decisionsOf = async (companyId: string) => {
      const analytics = await browser.get(`/analytics?companyId=${companyId}`);
      expect(analytics.status, analytics.text).toBe(200);
      return analytics.body.data.manualDecisions;
    };
    expect(await decisionsOf(first.companyId)).toMatchObject({ expired: 1, cancelled: 0, missedDeadline: 1 });
    expect(await decisionsOf(second.companyId)).toMatchObject({
      expired: 0,
      cancelled: 1,
      missedDeadline: 0,
    });
  });

  it('an approval whose signal never reached the process stands: at the deadline the database says CONFIRMED', async () => {
    const { journeyId, second } = await connectionJourney(app, ['AUTO_CONFIRM', 'MANUAL_CONFIRM']);
    const scope = { kind: 'JOURNEY' as const, id: journeyId };
    const [request] = await app.db.query<{ id: string }>(
      `select id from confirmation_requests where scope_id = $1`,
      [journeyId],
    );
    // The decision's transaction alone, as when the API could not reach Temporal after it committed.
    const decided = await recordDecision(app.db, {
      scope,
      companyId: second.companyId,
      decision: 'APPROVE',
      actorId: randomUUID(),
      decisionKey: `${request!.id}:${second.companyId}:APPROVE`,
    });
    expect(decided.outcome).toBe('CONFIRMED');
    const result = await app.temporal.workflow.getHandle(workflowIds.journeyConfirmation(journeyId)).result();
    expect(result).toMatchObject({ phase: 'CONFIRMED', pendingCompanies: [] });
    const facts = await journeyOf(app, journeyId);
    expect(facts.journey).toEqual({ status: 'CONFIRMED', failure_reason: null });
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['CONFIRMED', 'CONFIRMED']);
    expect((await requestsOf(app.db, journeyId)).map((row) => row.status)).toEqual(['APPROVED']);
  });

  it('settling a deadline that has not passed changes nothing and answers the decisions still awaited', async () => {
    const { journeyId, second } = await connectionJourney(app, ['AUTO_CONFIRM', 'MANUAL_CONFIRM']);
    const before = await journeyOf(app, journeyId);
    const settled = await settleDecisionDeadline(app.db, { scope: { kind: 'JOURNEY', id: journeyId } });
    expect(settled.status).toBe('REQUESTED');
    expect(settled.awaiting.map((awaited) => awaited.companyId)).toEqual([second.companyId]);
    expect(settled.awaiting[0]!.remainingMilliseconds).toBeGreaterThan(0);
    expect(await journeyOf(app, journeyId)).toEqual(before);
    expect((await requestsOf(app.db, journeyId)).map((row) => row.status)).toEqual(['PENDING']);
  });

  it("an order's deadline is kept when the order's id is a journey's id whose process still runs", async () => {
    // Order ids are chosen by the client; processes are named by scope kind and id, so the order's
    // confirm starts its own process instead of finding the journey's (USE_EXISTING) and losing its deadline.
    const caller = await mobileTraveller(app);
    const slow = await tripOf(app.db);
    await setConfirmation(app.db, slow.companyId, { mode: 'MANUAL_CONFIRM', window: 60 });
    const journey = await bookJourney(app, caller, [{ trip: slow }]);
    expect(journey.confirmed.body.data.confirmation.status).toBe('REQUESTED');
    const fast = await tripOf(app.db);
    await setConfirmation(app.db, fast.companyId, { mode: 'MANUAL_CONFIRM' });
    const [quoted, other] = [
      await quote(app, caller, [{ trip: fast }]),
      await quote(app, caller, [{ trip: fast }]),
    ];
    const held = await holdOrder(app, caller, journey.journeyId, [quoted.journey_id, other.journey_id]);
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmOrder(
      app,
      caller,
      journey.journeyId,
      held.body.data.holdBatchId as string,
      [
        { journeyId: quoted.journey_id, partySize: 1 },
        { journeyId: other.journey_id, partySize: 1 },
      ],
    );
    expect(confirmed.status, confirmed.text).toBe(200);
    // The order's window (15 minutes × 0.004 = 3.6 s) passes while the journey's (14.4 s) runs.
    const facts = await eventually(
      () => journeyOf(app, quoted.journey_id),
      (value) => value.journey!.status !== 'REQUESTED',
      10_000,
    );
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    expect((await journeyOf(app, journey.journeyId)).journey!.status).toBe('REQUESTED');
  });
});

describe('journey confirmation: hold expiry', () => {
  // 10 minutes × 0.004 = 2.4 s.
  const app = useTestApp({ TIME_SCALE: 0.004, HOLD_MINUTES: 10 });

  it('an unconfirmed hold expires on its own: seats freed, journey EXPIRED, confirm refused', async () => {
    const trip = await tripOf(app.db);
    const caller = await mobileTraveller(app);
    const quoted = await quote(app, caller, [{ trip }]);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    const facts = await eventually(
      () => journeyOf(app, quoted.journey_id),
      (value) => value.journey!.status !== 'HELD',
    );
    expect(facts.journey!.status).toBe('EXPIRED');
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['EXPIRED']);
    const refused = await confirmJourney(app, caller, quoted.journey_id, {
      quote_id: quoted.quote_id,
      hold_batch_id: held.body.data.holdBatchId,
      travellers: travellers(1),
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('HOLD_CLOSED');
  });
});

describe('journey confirmation: the worker stops while a request is REQUESTED', () => {
  const taskQueue = `journeys-${randomUUID()}`;
  const app = useTestApp({ TEMPORAL_TASK_QUEUE: taskQueue, TIME_SCALE: 0.004, HOLD_MINUTES: 120 });
  const config = loadConfig();
  let db: Database;
  let connectionToTemporal: NativeConnection;
  let running: { worker: Worker; done: Promise<void> } | undefined;

  async function startWorker() {
    const worker = await Worker.create({
      connection: connectionToTemporal,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({ config, db, logger: createLogger(config, 'test-worker') }),
    });
    running = { worker, done: worker.run() };
  }

  async function stopWorker() {
    running!.worker.shutdown();
    await running!.done;
    running = undefined;
  }

  beforeAll(async () => {
    db = await initDatabase(config);
    connectionToTemporal = await NativeConnection.connect(connectionOptions(config));
    await startWorker();
  });

  afterAll(async () => {
    if (running) await stopWorker();
    await connectionToTemporal?.close();
    await db?.close();
  });

  it('enforces the deadline once the worker is back, and nothing is lost meanwhile', async () => {
    const { journeyId, confirmed } = await connectionJourney(app, ['MANUAL_CONFIRM', 'AUTO_CONFIRM']);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    await stopWorker();

    const deadline = Date.parse(confirmed.body.data.confirmation.deadline);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1500));
    // Its own process cannot act. The tests' shared worker may meanwhile sweep it with other tests'
    // overdue scopes (releaseOverdueDecisions): then it is released whole, never half.
    const whileDown = await journeyOf(app, journeyId);
    const requestsWhileDown = (await requestsOf(app.db, journeyId)).map((request) => request.status);
    const seatsWhileDown = whileDown.allocations.map((allocation) => allocation.status);
    expect([
      { status: 'REQUESTED', seats: ['HELD', 'HELD'], requests: ['PENDING'] },
      { status: 'CANCELLED', seats: ['RELEASED', 'RELEASED'], requests: ['EXPIRED'] },
    ]).toContainEqual({
      status: whileDown.journey!.status,
      seats: seatsWhileDown,
      requests: requestsWhileDown,
    });
    const described = await app.temporal.workflow
      .getHandle(workflowIds.journeyConfirmation(journeyId))
      .describe();
    expect(described.status.name).toBe('RUNNING');

    await startWorker();
    const facts = await eventually(
      () => journeyOf(app, journeyId),
      (value) => value.journey!.status !== 'REQUESTED',
      30_000,
    );
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED', 'RELEASED']);
    expect(facts.tickets.map((ticket) => ticket.status)).toEqual(['CANCELLED', 'CANCELLED']);
  });
});
