import type { DocumentSnapshot } from '../../db/queries/document-snapshots.js';
import type { BrowserPool } from './browser-pool.js';
import { documentHtml } from './templates/index.js';

/** A snapshot's PDF: its template filled with the frozen data, printed on a pooled page. */
export async function renderSnapshotPdf(pool: BrowserPool, snapshot: DocumentSnapshot): Promise<Uint8Array> {
  return pool.renderPdf(documentHtml(snapshot.kind, snapshot.locale, snapshot.data));
}
