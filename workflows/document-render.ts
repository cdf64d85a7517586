import { proxyActivities } from '@temporalio/workflow';
import type { DocumentRenderInput, DocumentRenderResult } from './document-render.contract.js';
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

/** `document-render/{snapshotId}`: renders one snapshot and stores its bytes with their checksum. */
export async function documentRender(input: DocumentRenderInput): Promise<DocumentRenderResult> {
  return rendering.renderDocumentSnapshot(input);
}
