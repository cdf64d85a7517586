/**
 * Value types of rendering one document snapshot, shared by the document-render workflow's
 * contract, its activity and the API's render client.
 */
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
