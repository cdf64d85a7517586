import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  DOCUMENT_RENDER_WORKFLOW,
  SNAPSHOT_NOT_FOUND,
  type DocumentRenderInput,
} from '../../../workflows/document-render.contract.js';
import type { documentRender } from '../../../workflows/document-render.js';
import { workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import { replayRecordedHistory, useWorkflowEnvironment } from '../../support/workflow-env.js';

/** The document-render workflow with a stubbed render activity (no PostgreSQL, no Chromium). */
type RenderStep = Pick<Activities, 'renderDocumentSnapshot'>;

describe('documentRender workflow (stubbed activity)', () => {
  const temporal = useWorkflowEnvironment();

  const render = (taskQueue: string, input: DocumentRenderInput) =>
    temporal.client.workflow.execute<typeof documentRender>(DOCUMENT_RENDER_WORKFLOW, {
      workflowId: workflowIds.documentRender(input.snapshotId),
      taskQueue,
      args: [input],
    });

  /** The failure type of the activity a failed render ended with. */
  const failureOf = async (rendering: Promise<unknown>) => {
    const error: unknown = await rendering.then(
      () => new Error('the render succeeded'),
      (failure: unknown) => failure,
    );
    if (!(error instanceof WorkflowFailedError) || !(error.cause instanceof ActivityFailure)) throw error;
    const cause = error.cause.cause;
    return cause instanceof ApplicationFailure ? cause.type : undefined;
  };

  it("returns the activity's result: the stored bytes' checksum and size", async () => {
    const inputs: DocumentRenderInput[] = [];
    const step: RenderStep = {
      async renderDocumentSnapshot(input) {
        inputs.push(input);
        return { sha256: 'f'.repeat(64), size: 1234 };
      },
    };
    await temporal.withWorker(step, async (taskQueue) => {
      const snapshotId = randomUUID();
      expect(await render(taskQueue, { snapshotId })).toEqual({ sha256: 'f'.repeat(64), size: 1234 });
      expect(inputs).toEqual([{ snapshotId }]);
    });
  });

  it('a missing snapshot (SNAPSHOT_NOT_FOUND) is not retried: one attempt, the render fails', async () => {
    let attempts = 0;
    const step: RenderStep = {
      async renderDocumentSnapshot({ snapshotId }) {
        attempts += 1;
        throw ApplicationFailure.nonRetryable(`no document snapshot ${snapshotId}`, SNAPSHOT_NOT_FOUND);
      },
    };
    await temporal.withWorker(step, async (taskQueue) => {
      expect(await failureOf(render(taskQueue, { snapshotId: randomUUID() }))).toBe(SNAPSHOT_NOT_FOUND);
      expect(attempts).toBe(1);
    });
  });

  it('any other failure (a crashed browser) is retried, three attempts in all', async () => {
    let attempts = 0;
    const step: RenderStep = {
      async renderDocumentSnapshot() {
        attempts += 1;
        throw ApplicationFailure.retryable('the browser went away', 'BrowserCrashed');
      },
    };
    await temporal.withWorker(step, async (taskQueue) => {
      expect(await failureOf(render(taskQueue, { snapshotId: randomUUID() }))).toBe('BrowserCrashed');
      expect(attempts).toBe(3);
    });
  });

  it('shows operators DONE as its ProcessStatus once the bytes are stored, FAILED when the render failed', async () => {
    let fail = false;
    const step: RenderStep = {
      async renderDocumentSnapshot({ snapshotId }) {
        if (fail)
          throw ApplicationFailure.nonRetryable(`no document snapshot ${snapshotId}`, SNAPSHOT_NOT_FOUND);
        return { sha256: 'f'.repeat(64), size: 1234 };
      },
    };
    await temporal.withWorker(step, async (taskQueue) => {
      const rendered = randomUUID();
      await render(taskQueue, { snapshotId: rendered });
      const done = await temporal.client.workflow.getHandle(workflowIds.documentRender(rendered)).describe();
      expect(done.searchAttributes).toMatchObject({ ProcessStatus: ['DONE'] });

      fail = true;
      const missing = randomUUID();
      expect(await failureOf(render(taskQueue, { snapshotId: missing }))).toBe(SNAPSHOT_NOT_FOUND);
      const failed = await temporal.client.workflow.getHandle(workflowIds.documentRender(missing)).describe();
      expect(failed.searchAttributes).toMatchObject({ ProcessStatus: ['FAILED'] });
    });
  });

  it('renders recorded before it showed its ProcessStatus replay as they were recorded', async () => {
    // Recorded (binary protobuf, as the client fetched it) from the code before the phase was shown:
    // one render that stored its bytes, one whose snapshot did not exist.
    for (const outcome of ['rendered', 'failed']) {
      await expect(
        replayRecordedHistory(
          new URL(`./histories/document-render-before-process-status-${outcome}.pb`, import.meta.url),
        ),
      ).resolves.toBeUndefined();
    }
  });
});
