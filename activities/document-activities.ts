import { ApplicationFailure } from '@temporalio/common';
import { loadSnapshot, readRender } from '../db/queries/document-snapshots.js';
import { storeRender } from '../db/writes/documents.js';
import {
  SNAPSHOT_NOT_FOUND,
  type DocumentRenderInput,
  type DocumentRenderResult,
} from '../domain/document-render.js';
import { renderSnapshotPdf } from './documents/render.js';
import type { ActivityDeps } from './index.js';

/**
 * The document-render workflow's effect: render a snapshot and store bytes plus checksum in one
 * transaction. Idempotent under retry: a snapshot already stored is not rendered again, and when
 * two attempts race the first stored bytes win. Only the checksum and size travel back through
 * Temporal; the bytes stay in PostgreSQL.
 */
export function createDocumentActivities({ db, browserPool }: ActivityDeps) {
  return {
    async renderDocumentSnapshot({ snapshotId }: DocumentRenderInput): Promise<DocumentRenderResult> {
      const existing = await readRender(db, snapshotId);
      if (existing) return { sha256: existing.sha256, size: existing.size };
      const snapshot = await loadSnapshot(db, snapshotId);
      if (!snapshot) {
        throw ApplicationFailure.nonRetryable(`no document snapshot ${snapshotId}`, SNAPSHOT_NOT_FOUND);
      }
      // Retryable: another worker of the queue has a browser pool.
      if (!browserPool) throw new Error('this worker renders no documents (it has no browser pool)');
      const stored = await storeRender(db, snapshotId, await renderSnapshotPdf(browserPool, snapshot));
      return { sha256: stored.sha256, size: stored.size };
    },
  };
}
