import type { SearchAttributePair } from '@temporalio/common';
import type { SnapshotKind } from '../domain/documents.js';
import { processSearchAttributes } from './shared.js';

/**
 * The document-render workflow's contract, imported by the API without the workflow body: one
 * short workflow per snapshot (id `document-render/{snapshotId}`) runs the render activity,
 * which stores the bytes and their checksum; the API then reads the stored bytes.
 */
export const DOCUMENT_RENDER_WORKFLOW = 'documentRender';

export {
  SNAPSHOT_NOT_FOUND,
  type DocumentRenderInput,
  type DocumentRenderResult,
} from '../domain/document-render.js';

/** ProcessStatus values of a render: RENDERING from its start, then DONE (bytes stored) or FAILED. */
export type RenderPhase = 'RENDERING' | 'DONE' | 'FAILED';

/**
 * What operators filter a render by in the Temporal UI: the snapshot's company, its booking (a
 * report's snapshot names its report export there, which is no booking), RENDERING.
 */
export function renderSearchAttributes(snapshot: {
  kind: SnapshotKind;
  companyId: string;
  bookingId: string;
  /** The booking's journey, when the snapshot's booking is a booking row. */
  journeyId?: string | null;
}): SearchAttributePair[] {
  return processSearchAttributes({
    companyIds: [snapshot.companyId],
    bookingIds: snapshot.kind === 'REPORT' ? [] : [snapshot.bookingId, snapshot.journeyId],
    status: 'RENDERING' satisfies RenderPhase,
  });
}
