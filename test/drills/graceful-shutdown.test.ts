import { Agent } from 'node:http';
import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  BLOCK_RENDER_STORE,
  RENDER_STORE,
  downloadTicket,
  holdLock,
  lockWaiters,
  storedRenders,
  ticketsOf,
  type Tickets,
} from './support/blocking.js';
import { workflowIds } from '../../workflows/shared.js';
import { useDrillStack } from './support/stack.js';

/**
 * Drill: SIGTERM, as a deploy or a scale-down sends it. The API refuses new connections at once,
 * lets in-flight requests finish (their kept-alive connections close) and exits 0; past
 * SHUTDOWN_GRACE_MS it cuts what still runs off and exits anyway. The worker lets an in-flight
 * activity finish and exits; one that outlasts the grace does not keep it running.
 */
const GRACE_MS = 5000;

const refusesConnections = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('drill: graceful shutdown on SIGTERM', { timeout: 120_000 }, () => {
  const stack = useDrillStack({ env: { SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
  let tickets: Tickets;
  const apiPort = () => Number(stack.env.PORT);

  it('the API refuses new connections, finishes the in-flight request, closes its connection and exits 0', async () => {
    tickets = await ticketsOf(stack);
    const bookingId = await tickets.newBooking();
    const lock = await holdLock(stack.db, BLOCK_RENDER_STORE);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const inFlight = downloadTicket(stack, tickets, bookingId, agent);
      await lockWaiters(stack.db, RENDER_STORE);
      const api = stack.api;
      api.child.kill('SIGTERM');
      await sleep(300);
      expect(await refusesConnections(apiPort())).toBe(true);
      expect(api.running()).toBe(true);
      await lock.release();
      const answer = await inFlight;
      expect(answer.status, answer.body.toString()).toBe(200);
      expect(answer.headers['content-type']).toBe('application/pdf');
      expect(answer.headers.connection).toBe('close');
      expect(await api.exited).toEqual({ code: 0, signal: null });
      expect(api.lines.some((line) => line.includes('"msg":"api stopped"'))).toBe(true);
    } finally {
      await lock.release();
      agent.destroy();
    }
    await stack.startApi();
  });

  it('a request still running when the grace is over is cut off: the API exits within the grace', async () => {
    const bookingId = await tickets.newBooking();
    const lock = await holdLock(stack.db, BLOCK_RENDER_STORE);
    try {
      const inFlight = downloadTicket(stack, tickets, bookingId).then(
        (answer) => answer.status,
        () => 'cut off',
      );
      await lockWaiters(stack.db, RENDER_STORE);
      const api = stack.api;
      const signalled = Date.now();
      api.child.kill('SIGTERM');
      const exit = await api.exited;
      const tookMs = Date.now() - signalled;
      expect(tookMs).toBeGreaterThanOrEqual(GRACE_MS - 200);
      expect(tookMs).toBeLessThan(GRACE_MS + 4000);
      expect(exit).toEqual({ code: 1, signal: null });
      expect(await inFlight).toBe('cut off');
      expect(api.lines.some((line) => line.includes('requests cut off'))).toBe(true);
    } finally {
      await lock.release();
    }
    await stack.startApi();
  });

  it('a request whose own statement still waits when the grace is over is cut off: the API exits 1 within the grace, not once the statement ends', async () => {
    const api = stack.api;
    const lock = await holdLock(stack.db, 'lock table cities in access exclusive mode');
    try {
      const inFlight = fetch(`${stack.app.baseUrl}/api/cities`).then(
        (answer) => answer.status,
        () => 'cut off',
      );
      await lockWaiters(stack.db, '%cities%');
      const signalled = Date.now();
      api.child.kill('SIGTERM');
      const exit = await Promise.race([api.exited, sleep(GRACE_MS + 4000).then(() => 'still running')]);
      const tookMs = Date.now() - signalled;
      expect(exit, `took ${tookMs} ms`).toEqual({ code: 1, signal: null });
      expect(tookMs).toBeGreaterThanOrEqual(GRACE_MS - 200);
      expect(await inFlight).toBe('cut off');
      expect(api.lines.some((line) => line.includes('"msg":"api stopped"'))).toBe(true);
    } finally {
      await lock.release();
      await api.exited;
    }
    await stack.startApi();
  });

  it('the worker finishes the in-flight PDF render after SIGTERM (a successor already polling), stores it once and exits 0', async () => {
    // A rolling deploy: the next worker polls before the old one is told to stop.
    const workers = [stack.worker!, await stack.startWorker()];
    const bookingId = await tickets.newBooking();
    const lock = await holdLock(stack.db, BLOCK_RENDER_STORE);
    try {
      const inFlight = downloadTicket(stack, tickets, bookingId);
      await lockWaiters(stack.db, RENDER_STORE);
      const [snapshot] = await stack.db.query<{ id: string }>(
        `select id from document_snapshots where booking_id = $1`,
        [bookingId],
      );
      const render = stack.temporal.workflow.getHandle(workflowIds.documentRender(snapshot!.id));
      const runningOn = (await render.describe()).raw.pendingActivities?.[0]?.lastWorkerIdentity ?? '';
      const draining = workers.find((worker) => runningOn.startsWith(`${worker.pid}@`))!;
      expect(draining, runningOn).toBeDefined();
      stack.worker = workers.find((worker) => worker !== draining);
      draining.child.kill('SIGTERM');
      await sleep(1500);
      expect(draining.running()).toBe(true);
      await lock.release();
      const answer = await inFlight;
      expect(answer.status, answer.body.toString()).toBe(200);
      expect(answer.body.subarray(0, 5).toString()).toBe('%PDF-');
      expect(await draining.exited).toEqual({ code: 0, signal: null });
      expect(draining.lines.some((line) => line.includes('"msg":"worker stopped"'))).toBe(true);
      expect(draining.lines.filter((line) => line.includes('PDF browser disconnected'))).toEqual([]);
      const renders = await storedRenders(stack.db, bookingId);
      expect(renders).toHaveLength(1);
      expect(renders[0]!.size).toBe(answer.body.length);
      // Completed by the draining worker's first attempt, not retried elsewhere after a timeout.
      const history = await render.fetchHistory();
      const attempts = (history.events ?? []).flatMap((event) =>
        event.activityTaskStartedEventAttributes ? [event.activityTaskStartedEventAttributes] : [],
      );
      expect(attempts.map((attempt) => [attempt.attempt, attempt.identity])).toEqual([[1, runningOn]]);
    } finally {
      await lock.release();
    }
  });

  it('an activity that outlasts the grace does not keep the worker running', async () => {
    const bookingId = await tickets.newBooking();
    const lock = await holdLock(stack.db, BLOCK_RENDER_STORE);
    const abort = new AbortController();
    try {
      void fetch(`${stack.app.baseUrl}/api/bookings/${bookingId}/document?type=ticket&locale=en`, {
        headers: { Authorization: `Bearer ${tickets.traveller.token}` },
        signal: abort.signal,
      }).catch(() => undefined);
      await lockWaiters(stack.db, RENDER_STORE);
      const worker = stack.worker!;
      const signalled = Date.now();
      worker.child.kill('SIGTERM');
      const exit = await worker.exited;
      // The grace, then at most the few seconds worker.run() waits for activities that ignore cancellation.
      expect(Date.now() - signalled).toBeLessThan(GRACE_MS + 12_000);
      expect(exit).toEqual({ code: 1, signal: null });
      expect(
        worker.lines.some((line) => line.includes('"msg":"worker stopped, cutting off what still runs"')),
      ).toBe(true);
    } finally {
      abort.abort();
      await lock.release();
    }
  });
});
