import {
  isGrpcCancelledError,
  isGrpcDeadlineError,
  TimeoutFailure,
  WorkflowFailedError,
  type Client,
} from '@temporalio/client';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import { loadSnapshotSubject, readRender, type StoredRender } from '../../db/queries/document-snapshots.js';
import type { Database } from '../../db/orm.js';
import {
  DOCUMENT_RENDER_WORKFLOW,
  type DocumentRenderInput,
  type DocumentRenderResult,
  renderSearchAttributes,
} from '../../workflows/document-render.contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { Refusal, unavailableFor } from '../http/errors.js';
import { unavailableKind } from '../http/unavailable.js';

export interface RenderContext {
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>;
  db: Database;
  logger: Logger;
  temporal: Client;
}

export type RenderedDocument = StoredRender;

/**
 * How long a request waits for the render it started or joined: under the 25 s the API waits for a
 * workflow elsewhere (workflow-updates.ts UPDATE_DEADLINE_MS), leaving room for the snapshot before
 * it and the access log after it. A render that has not finished by then (no worker polls, or all
 * are busy) is left running, and the request answers 503 with Retry-After: the retry finds the bytes
 * stored, or joins the same workflow (`document-render/{snapshotId}`, USE_EXISTING) and waits again.
 */
const RENDER_WAIT_MS = 20_000;

/**
 * The stored bytes of a snapshot, rendering it first when it has none. Rendering runs as the
 * workflow `document-render/{snapshotId}` (a second caller joins the running one), whose activity
 * stores bytes and checksum in one transaction; the answer is always read back from the store, so
 * no byte leaves without its recorded checksum. A dependency that does not answer (Temporal or
 * PostgreSQL: unavailableKind, or a 503 refusal) is thrown on, for the error writer's 503
 * SERVICE_UNAVAILABLE with Retry-After; so is a render not finished within RENDER_WAIT_MS (it has not
 * failed, it has not run yet: 503 SERVICE_UNAVAILABLE with Retry-After, the workflow left running).
 * Any other failure (the render failed for good) is 500 DOCUMENT_RENDER_FAILED.
 */
export async function renderedDocument(
  context: RenderContext,
  snapshotId: string,
): Promise<RenderedDocument> {
  try {
    const stored = await readRender(context.db, snapshotId);
    if (stored) return stored;
    await runRenderWorkflow(context, snapshotId);
    const rendered = await readRender(context.db, snapshotId);
    if (rendered) return rendered;
    throw new Error(`render of snapshot ${snapshotId} finished but nothing is stored`);
  } catch (error) {
    if (renderUnavailable(error)) throw error;
    if (renderNotDone(error)) {
      context.logger.warn(
        { snapshotId, waitedMs: RENDER_WAIT_MS },
        'document render not done in time; answering 503',
      );
      throw unavailableFor('SERVICE_UNAVAILABLE', 'The document is still being rendered; try again shortly');
    }
    context.logger.error({ err: error, snapshotId }, 'document render failed');
    throw new Refusal(500, 'DOCUMENT_RENDER_FAILED', 'The document could not be produced; try again later');
  }
}

/**
 * Whether a failure of renderedDocument is a dependency that does not answer now, or a render not
 * finished in time (both a 503 to retry), not a render that failed.
 */
export function renderUnavailable(error: unknown): boolean {
  return (error instanceof Refusal && error.status === 503) || unavailableKind(error) !== null;
}

/**
 * The render did not finish while the request waited (the gRPC deadline of RENDER_WAIT_MS), or its
 * workflow ran out of time with its render never done (no worker ran it for its whole execution
 * timeout; a render that failed fails the workflow with the activity's failure instead).
 *
 * The wait's end comes as DEADLINE_EXCEEDED or, now and then, CANCELLED ("Call cancelled"): the
 * server answers the result's long poll empty within its last second, the client polls again until
 * the deadline, and a poll the deadline cuts in flight may be reported either way (2026-12-07: 163
 * CANCELLED among 4,000 polls given under 5 ms). Nothing else cancels these calls.
 */
export function renderNotDone(error: unknown): boolean {
  if (isGrpcDeadlineError(error) || isGrpcCancelledError(error)) return true;
  return error instanceof WorkflowFailedError && error.cause instanceof TimeoutFailure;
}

/**
 * Starts (or joins) the snapshot's render and waits for it. Operators find it under the snapshot's
 * company and booking (renderSearchAttributes), its kind and locale in the memo.
 */
async function runRenderWorkflow(context: RenderContext, snapshotId: string): Promise<DocumentRenderResult> {
  const snapshot = await loadSnapshotSubject(context.db, snapshotId);
  if (!snapshot) throw new Error(`no document snapshot ${snapshotId}`);
  const input: DocumentRenderInput = { snapshotId };
  return context.temporal.withDeadline(Date.now() + RENDER_WAIT_MS, () =>
    context.temporal.workflow.execute<(input: DocumentRenderInput) => Promise<DocumentRenderResult>>(
      DOCUMENT_RENDER_WORKFLOW,
      {
        workflowId: workflowIds.documentRender(snapshotId),
        taskQueue: context.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowExecutionTimeout: '2 minutes',
        typedSearchAttributes: renderSearchAttributes(snapshot),
        memo: { kind: snapshot.kind, locale: snapshot.locale },
      },
    ),
  );
}
