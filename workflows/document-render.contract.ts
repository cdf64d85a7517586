/**
 * The document-render workflow's contract, imported by the API without the workflow body: one
 * short workflow per snapshot (id `document-render/{snapshotId}`) runs the render activity,
 * which stores the bytes and their checksum; the API then reads the stored bytes.
 */
export const DOCUMENT_RENDER_WORKFLOW = 'documentRender';

export interface DocumentRenderInput {
  snapshotId: string;
}

/** What was stored (the bytes stay in PostgreSQL; Temporal only carries the checksum). */
export interface DocumentRenderResult {
  sha256: string;
  size: number;
}

/** Failure type of a render asked for a snapshot that does not exist: not worth a retry. */
export const SNAPSHOT_NOT_FOUND = 'SNAPSHOT_NOT_FOUND';
