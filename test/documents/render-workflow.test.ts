import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderedDocument, type RenderContext } from '../../api/temporal/document-render-client.js';
import { Refusal } from '../../api/http/errors.js';
import { createLogger } from '../../config/logger.js';
import type { ReportSnapshotData } from '../../domain/reports.js';
import { recordAccess, saveSnapshot, sha256Of, type SnapshotInput } from '../../db/writes/documents.js';
import { workflowIds } from '../../workflows/shared.js';
import { sampleSnapshotData } from '../support/document-data.js';
import { createCompany } from '../support/factories.js';
import { useTestApp } from '../support/harness.js';
import { decodeQrCodes, pdfText } from '../support/pdf.js';

/**
 * Documents rendered the way the API gets them: an immutable snapshot, the `document-render`
 * workflow on the run's real worker (its warm browser), and the stored bytes with their checksum.
 */
describe('document snapshots and the render workflow', () => {
  const app = useTestApp();
  const context = (): RenderContext => ({
    config: app.config,
    db: app.db,
    temporal: app.temporal,
    logger: createLogger(app.config, 'render-test'),
  });

  async function snapshotInput(overrides: Partial<SnapshotInput> = {}): Promise<SnapshotInput> {
    const company = await createCompany(app.db);
    return {
      kind: 'BOOKING_CONFIRMATION',
      locale: 'ar',
      bookingId: randomUUID(),
      companyId: company.id,
      ownerUserId: null,
      data: sampleSnapshotData(),
      ...overrides,
    };
  }

  /** A one-row bookings report as its PDF prints it. */
  const reportData = (exportId: string): ReportSnapshotData => ({
    company: {
      name_ar: 'شركة',
      name_en: 'Company',
      phone: null,
      email: null,
      address_ar: 'دمشق',
      address_en: 'Damascus',
    },
    report: {
      id: exportId,
      type: 'bookings',
      from: '2026-01-01',
      to: '2026-01-31',
      generated_at: '2026-02-01T08:00:00Z',
      state: 'ready',
      row_count: 1,
      currency: 'SYP',
    },
    columns: [{ key: 'code', kind: 'code', label: 'Booking' }],
    rows: [{ code: 'BK-1' }],
    totals: null,
    charts: {},
  });

  it('reuses the snapshot when the same booking asks for the same content, whatever the key order', async () => {
    const input = await snapshotInput();
    const first = await saveSnapshot(app.db, input);
    const reordered = JSON.parse(
      JSON.stringify(input.data, Object.keys(input.data).sort()),
    ) as typeof input.data;
    const again = await saveSnapshot(app.db, { ...input, data: { ...reordered, ...input.data } });
    const english = await saveSnapshot(app.db, { ...input, locale: 'en' });

    expect(first.reused).toBe(false);
    expect(again).toEqual({ snapshotId: first.snapshotId, reused: true });
    expect(english.snapshotId).not.toBe(first.snapshotId);
  });

  it('renders a snapshot once, stores bytes with their checksum, and serves the same bytes again', async () => {
    const input = await snapshotInput();
    const { snapshotId } = await saveSnapshot(app.db, input);

    const first = await renderedDocument(context(), snapshotId);
    expect(first.sha256).toBe(sha256Of(first.bytes));
    expect(first.size).toBe(first.bytes.byteLength);
    const [stored] = await app.db.query<{ sha256: string; size: number }>(
      'select sha256, size from document_renders where snapshot_id = $1',
      [snapshotId],
    );
    expect(stored).toEqual({ sha256: first.sha256, size: first.size });

    const text = pdfText(first.bytes);
    expect(text).toContain(input.data.booking.code);
    expect(text).toContain('تأكيد الحجز');
    expect(decodeQrCodes(first.bytes).sort()).toEqual(input.data.travellers.map((t) => t.credential).sort());

    const run = await app.temporal.workflow.getHandle(workflowIds.documentRender(snapshotId)).describe();
    const again = await renderedDocument(context(), snapshotId);
    expect(Buffer.compare(again.bytes, first.bytes)).toBe(0);
    const after = await app.temporal.workflow.getHandle(workflowIds.documentRender(snapshotId)).describe();
    expect(after.runId).toBe(run.runId);
  });

  it('shows operators the render under its company and booking, and its phase', async () => {
    const input = await snapshotInput({ kind: 'TICKET', locale: 'en' });
    const { snapshotId } = await saveSnapshot(app.db, input);
    await renderedDocument(context(), snapshotId);

    const run = await app.temporal.workflow.getHandle(workflowIds.documentRender(snapshotId)).describe();
    expect(run.searchAttributes).toMatchObject({
      CompanyId: [input.companyId],
      BookingId: [input.bookingId],
      ProcessStatus: ['DONE'],
    });
    expect(run.memo).toEqual({ kind: 'TICKET', locale: 'en' });
  });

  it('files a report render under its company only: a report export is no booking', async () => {
    const { companyId } = await snapshotInput();
    const exportId = randomUUID();
    const { snapshotId } = await saveSnapshot(app.db, {
      kind: 'REPORT',
      locale: 'en',
      bookingId: exportId,
      companyId,
      ownerUserId: null,
      data: reportData(exportId),
    });
    await renderedDocument(context(), snapshotId);

    const run = await app.temporal.workflow.getHandle(workflowIds.documentRender(snapshotId)).describe();
    expect(run.searchAttributes).toMatchObject({ CompanyId: [companyId], ProcessStatus: ['DONE'] });
    expect(run.searchAttributes.BookingId).toBeUndefined();
  });

  it('gives two simultaneous first downloads the same bytes', async () => {
    const { snapshotId } = await saveSnapshot(app.db, await snapshotInput({ kind: 'TICKET', locale: 'en' }));
    const [one, two] = await Promise.all([
      renderedDocument(context(), snapshotId),
      renderedDocument(context(), snapshotId),
    ]);
    expect(Buffer.compare(one.bytes, two.bytes)).toBe(0);
    expect(one.sha256).toBe(two.sha256);
  });

  it('answers 500 DOCUMENT_RENDER_FAILED and keeps no bytes when the render cannot be recorded', async () => {
    const { snapshotId } = await saveSnapshot(app.db, await snapshotInput({ kind: 'INVOICE', locale: 'en' }));
    const guard = `refuse_render_${snapshotId.replaceAll('-', '')}`;
    await app.db.query(
      `create function ${guard}() returns trigger language plpgsql as $$
       begin raise exception 'render log unavailable'; end $$`,
    );
    await app.db.query(
      `create trigger ${guard} before insert on document_renders for each row
       when (new.snapshot_id = '${snapshotId}') execute function ${guard}()`,
    );
    try {
      const failure = await renderedDocument(context(), snapshotId).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Refusal);
      expect(failure).toMatchObject({ status: 500, errorCode: 'DOCUMENT_RENDER_FAILED' });
      const rows = await app.db.query('select 1 from document_renders where snapshot_id = $1', [snapshotId]);
      expect(rows).toHaveLength(0);
    } finally {
      await app.db.query(`drop trigger ${guard} on document_renders`);
      await app.db.query(`drop function ${guard}()`);
    }
  });

  it('answers 500 DOCUMENT_RENDER_FAILED for a snapshot that does not exist', async () => {
    const failure = await renderedDocument(context(), randomUUID()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 500, errorCode: 'DOCUMENT_RENDER_FAILED' });
  });

  it('logs each view or download with the checksum and size sent', async () => {
    const { snapshotId } = await saveSnapshot(app.db, await snapshotInput({ kind: 'INVOICE', locale: 'ar' }));
    const doc = await renderedDocument(context(), snapshotId);
    await recordAccess(app.db, {
      snapshotId,
      actorKind: 'TRAVELLER',
      actorId: randomUUID(),
      action: 'DOWNLOAD',
      sha256: doc.sha256,
      size: doc.size,
    });
    const rows = await app.db.query(
      'select action, sha256, size from document_access_log where snapshot_id = $1',
      [snapshotId],
    );
    expect(rows).toEqual([{ action: 'DOWNLOAD', sha256: doc.sha256, size: doc.size }]);
  });
});
