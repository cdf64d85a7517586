import type { DocumentSnapshot } from '../../db/queries/document-snapshots.js';
import type { BrowserPool } from './browser-pool.js';
import { documentHtml } from './templates/index.js';
import { reportFooter, reportHtml } from './templates/report.js';

/** A snapshot's PDF: its template filled with the frozen data, printed on a pooled page (reports landscape). */
export async function renderSnapshotPdf(pool: BrowserPool, snapshot: DocumentSnapshot): Promise<Uint8Array> {
  if (snapshot.kind === 'REPORT') {
    return pool.renderPdf(reportHtml(snapshot.locale, snapshot.data), {
      landscape: true,
      footerTemplate: reportFooter(snapshot.locale, snapshot.data),
    });
  }
  return pool.renderPdf(documentHtml(snapshot.kind, snapshot.locale, snapshot.data));
}
