import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { BrowserPool } from '../../activities/documents/browser-pool.js';
import { renderNotDone } from '../../api/temporal/document-render-client.js';
import { createActivities } from '../../activities/index.js';
import { createLogger } from '../../config/logger.js';
import { connectionOptions } from '../../config/temporal.js';
import { DOCUMENT_RENDER_WORKFLOW } from '../../workflows/document-render.contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { useTestApp, type TestApp } from '../support/harness.js';
import {
  bookingOfCompany,
  bookJourney,
  mobileTraveller,
  setConfirmation,
  tripOf,
} from '../support/journeys.js';

/**
 * A PDF asked for while no worker renders: the API runs on a task queue nobody polls (every worker
 * stopped), so the document-render workflow starts but nothing runs it. The render has not failed,
 * it has not run: the traveller is told to come back (503 with Retry-After), the workflow is left
 * waiting, and a retry once a worker is back gets the PDF that one render produced.
 */
describe('a document asked for while no worker renders', () => {
  const taskQueue = `nobody-polls-${randomUUID()}`;
  const app = useTestApp({ TEMPORAL_TASK_QUEUE: taskQueue });

  /** The traveller's confirmed booking, and what its ticket request left in the document store. */
  async function confirmedBooking() {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'AUTO_CONFIRM' });
    const traveller = await mobileTraveller(app);
    const { journeyId, confirmed } = await bookJourney(app, traveller, [{ trip }]);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    return { traveller, bookingId: await bookingOfCompany(app.db, journeyId, trip.companyId) };
  }

  const storedFor = (bookingId: string) =>
    app.db.query<{ snapshot_id: string; rendered: boolean; views: number }>(
      `select s.id as snapshot_id, exists (select 1 from document_renders r where r.snapshot_id = s.id) as rendered,
              (select count(*)::int from document_access_log l where l.snapshot_id = s.id) as views
       from document_snapshots s where s.booking_id = $1 and s.kind = 'TICKET'`,
      [bookingId],
    );

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After within the API’s wait, and the retry gets the one render', async () => {
    const { traveller, bookingId } = await confirmedBooking();
    const path = `/api/bookings/${bookingId}/document?type=ticket&locale=en`;

    const started = Date.now();
    const pending = await app.request(path, { headers: traveller.headers });
    const waited = Date.now() - started;
    expect([pending.status, pending.body?.errorCode], `${pending.text} after ${waited} ms`).toEqual([
      503,
      'SERVICE_UNAVAILABLE',
    ]);
    expect(waited).toBeLessThan(25_000);
    expect(pending.headers.get('Retry-After')).toBe('5');
    expect(pending.body.details).toEqual({ retryAfterSeconds: 5 });
    expect(pending.headers.get('Content-Type')).not.toContain('application/pdf');

    // Nothing rendered, nothing logged as seen; the render is left waiting for a worker.
    const [snapshot] = await storedFor(bookingId);
    expect(snapshot).toEqual({ snapshot_id: expect.any(String), rendered: false, views: 0 });
    const handle = app.temporal.workflow.getHandle(workflowIds.documentRender(snapshot!.snapshot_id));
    const waiting = await handle.describe();
    expect(waiting.status.name).toBe('RUNNING');

    // A worker is back: the retry gets the PDF of the render the first request started, not a second one.
    const retry = await withRenderWorker(app, taskQueue, () =>
      app.request(path, { headers: traveller.headers }),
    );
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('Content-Type')).toContain('application/pdf');
    const done = await handle.describe();
    expect({ runId: done.runId, status: done.status.name }).toEqual({
      runId: waiting.runId,
      status: 'COMPLETED',
    });
    expect(await storedFor(bookingId)).toEqual([
      { snapshot_id: snapshot!.snapshot_id, rendered: true, views: 1 },
    ]);
  }, 90_000);

  it('reads the wait’s end as a render not done however the last poll is cut, never as a failed render', async () => {
    // The request's wait ends while the client polls for the result: Temporal answers a long poll
    // empty within its last second, so the client polls again until the deadline cuts a poll in
    // flight. Cut at every moment of a few milliseconds, each end must read as "not done" (503),
    // not as a render that failed (500 DOCUMENT_RENDER_FAILED).
    const handle = await app.temporal.workflow.start(DOCUMENT_RENDER_WORKFLOW, {
      workflowId: workflowIds.documentRender(randomUUID()),
      taskQueue,
      args: [{ snapshotId: randomUUID() }],
    });
    const misread: string[] = [];
    try {
      for (let round = 0; round < 40; round++) {
        await Promise.all(
          Array.from({ length: 20 }, async (_, i) => {
            const waitMs = 0.5 + (i % 10) * 0.5;
            const ended = await app.temporal
              .withDeadline(Date.now() + waitMs, () => handle.result())
              .then(
                () => new Error('the render finished, though no worker polls'),
                (error: unknown) => error,
              );
            if (!renderNotDone(ended))
              misread.push(`${(ended as Error).message} / ${String((ended as Error).cause)}`);
          }),
        );
      }
    } finally {
      await handle.terminate('test over');
    }
    expect(misread).toEqual([]);
  }, 60_000);
});

/**
 * Runs `body` while a worker with the real activities (its own browser) serves `taskQueue`: the
 * render workflows waiting there run.
 */
async function withRenderWorker<T>(app: TestApp, taskQueue: string, body: () => Promise<T>): Promise<T> {
  const logger = createLogger(app.config, 'render-worker');
  const connection = await NativeConnection.connect(connectionOptions(app.config));
  const browserPool = new BrowserPool({
    executablePath: app.config.PDF_CHROMIUM_PATH,
    size: 1,
    logger,
  });
  try {
    const worker = await Worker.create({
      connection,
      namespace: app.config.TEMPORAL_NAMESPACE,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({ config: app.config, db: app.db, logger, browserPool }),
    });
    return await worker.runUntil(body);
  } finally {
    await browserPool.close();
    await connection.close();
  }
}
