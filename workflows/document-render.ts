import { patched, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { DocumentRenderInput, DocumentRenderResult, RenderPhase } from './document-render.contract.js';
import { searchAttributeKeys } from './shared.js';
import type { Activities } from './steps.js';

/**
 * A caller waits for this render: a few quick attempts (a crashed browser is relaunched by the next
 * one; a missing snapshot is not retried), then the workflow fails and the caller answers DOCUMENT_RENDER_FAILED.
 */
const rendering = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    maximumInterval: '2 seconds',
    maximumAttempts: 3,
  },
});

/** Before it a render showed no phase of its own; a history recorded so replays as it was. */
const SHOWS_ITS_PHASE = 'document-render-shows-its-phase';

const showPhase = (phase: RenderPhase) =>
  upsertSearchAttributes([{ key: searchAttributeKeys.processStatus, value: phase }]);

/**
 * `document-render/{snapshotId}`: renders one snapshot and stores its bytes with their checksum.
 * Its starter shows it RENDERING (renderSearchAttributes); it ends DONE, or FAILED with the render.
 */
export async function documentRender(input: DocumentRenderInput): Promise<DocumentRenderResult> {
  const showsPhase = patched(SHOWS_ITS_PHASE);
  try {
    const result = await rendering.renderDocumentSnapshot(input);
    if (showsPhase) showPhase('DONE');
    return result;
  } catch (error) {
    if (showsPhase) showPhase('FAILED');
    throw error;
  }
}
