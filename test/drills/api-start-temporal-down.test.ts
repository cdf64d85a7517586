import { describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { fetchDocument } from '../support/documents.js';
import { createCompany, createCorridor, futureDay } from '../support/factories.js';
import { confirmedJourneyRows, journeyTripOf, staffSession } from '../support/journey-rows.js';
import { eventually } from '../support/journeys.js';
import { stopChild } from './support/child.js';
import { useDrillStack } from './support/stack.js';

/**
 * Drill: an API process (re)started while the Temporal server is down. It listens at once and
 * serves what needs no Temporal; what needs it answers 503 SERVICE_UNAVAILABLE with Retry-After
 * (a ticket or a report PDF still to be rendered), writing no render; once Temporal is back the same
 * process starts the webhook relay it could not start at boot and serves the ticket, with no restart.
 */
describe('drill: an API process started while Temporal is down', { timeout: 300_000 }, () => {
  const stack = useDrillStack({ withWorker: false });

  it('listens, serves what needs no Temporal, answers 503 for what does, and needs no restart once Temporal is back', async () => {
    const trip = journeyTripOf(await createCorridor(stack.db));
    const traveller = await stack.app.signIn();
    const rows = await confirmedJourneyRows(stack.db, {
      ownerUserId: traveller.userId,
      trip,
      travellers: ['Rami Haddad'],
    });
    const company = await createCompany(stack.db);
    const owner = await staffSession(stack.db, stack.config, company.id, 'OWNER');
    const relay = () => stack.temporal.workflow.getHandle(workflowIds.webhookOutbox());
    // The relay the first API process started is ended, so only an API process's start brings it back here.
    await relay().terminate('drill');

    await stack.killTemporal();
    await stopChild(stack.api, 'SIGTERM');
    const api = await stack.startApi();
    const url = (path: string) => `${stack.app.baseUrl}${path}`;

    expect((await fetch(url('/healthz'))).status).toBe(200);
    const cities = await fetch(url('/api/cities'));
    expect(cities.status).toBe(200);

    const ticketPath = `/api/bookings/${rows.bookingId}/document?type=ticket&locale=en`;
    const ticket = () => fetchDocument(stack.app, ticketPath, { Authorization: `Bearer ${traveller.token}` });
    const refused = await ticket();
    expect([refused.status, refused.body?.errorCode]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(refused.headers.get('retry-after')).toBe('5');
    const report = await fetchDocument(
      stack.app,
      `/dashboard/api/reports?type=trips&format=pdf&locale=en&fromDate=${futureDay(-10)}&toDate=${futureDay(0)}`,
      { Cookie: owner.cookie },
    );
    expect([report.status, report.body?.errorCode]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(report.headers.get('retry-after')).toBe('5');
    // Nothing rendered, nothing logged as sent; the report request is recorded as failed.
    expect(
      await stack.db.query(
        `select r.snapshot_id from document_renders r join document_snapshots s on s.id = r.snapshot_id
          where s.booking_id = $1 or s.company_id = $2`,
        [rows.bookingId, company.id],
      ),
    ).toEqual([]);
    expect(
      await stack.db.query(
        `select a.id from document_access_log a join document_snapshots s on s.id = a.snapshot_id
          where s.booking_id = $1 or s.company_id = $2`,
        [rows.bookingId, company.id],
      ),
    ).toEqual([]);
    expect(
      await stack.db.query(`select state, error_code from report_exports where company_id = $1`, [
        company.id,
      ]),
    ).toEqual([{ state: 'export_failed', error_code: 'REPORT_RENDER_UNAVAILABLE' }]);

    // Temporal back: the same process (never restarted) starts the relay, and the ticket is served.
    await stack.startTemporal();
    const running = await eventually(
      () =>
        relay()
          .describe()
          .then(
            (run) => run.status.name,
            () => 'UNREACHABLE',
          ),
      (status) => status === 'RUNNING',
      90_000,
    );
    expect(running).toBe('RUNNING');
    await stack.startWorker();
    const served = await eventually(ticket, (response) => response.status !== 503, 90_000);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'application/pdf']);
    expect(stack.api).toBe(api);
    expect(api.running()).toBe(true);
  });
});
