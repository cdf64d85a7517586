import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../db/orm.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  bookJourney,
  bookingOfCompany,
  connection,
  mobileTraveller,
  setConfirmation,
} from '../../support/journeys.js';
import { staffSession } from '../../support/journey-rows.js';
import { SUSPENSION_REQUESTS } from '../../../db/migrations/Migration20261206190000_suspension_request_reason.js';
import { auditRows, expectError, signedInAdmin, type AdminBrowser } from './helpers.js';

/**
 * A suspension ends the journeys still waiting with a leg on the company through a pending request,
 * the suspended company's or another company's. The request so ended reads COMPANY_SUSPENDED to
 * every role of its company: the administrator's reason is the suspended company's OWNER's to read
 * (GET /dashboard/api/company/warnings), never another company's, nor its own STAFF's.
 */
describe("a suspension's reason and the requests it ends", () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });
  let browser: AdminBrowser;

  beforeAll(async () => {
    ({ browser } = await signedInAdmin(app, { role: 'ADMIN' }));
  });

  /** A connection over company A's trip then B's, waiting for the decision of the MANUAL_CONFIRM one. */
  async function waitingConnection(deciding: 'first' | 'second') {
    const world = await connection(app.db);
    await setConfirmation(app.db, world.first.companyId, {
      mode: deciding === 'first' ? 'MANUAL_CONFIRM' : 'AUTO_CONFIRM',
    });
    await setConfirmation(app.db, world.second.companyId, {
      mode: deciding === 'second' ? 'MANUAL_CONFIRM' : 'AUTO_CONFIRM',
    });
    const traveller = await mobileTraveller(app);
    const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }]);
    expect(booked.confirmed.body.data.confirmation.status).toBe('REQUESTED');
    return { companyA: world.first.companyId, companyB: world.second.companyId, journeyId: booked.journeyId };
  }

  it("company B's staff read COMPANY_SUSPENDED on the request A's suspension ended, never the administrator's words", async () => {
    const { companyA, companyB, journeyId } = await waitingConnection('second');
    const words = 'Fraud investigation 2026-117: unlicensed drivers (internal)';
    const suspended = await browser.suspend(companyA, words);
    expect(suspended.status, suspended.text).toBe(200);
    const bookingB = await bookingOfCompany(app.db, journeyId, companyB);

    for (const role of ['STAFF', 'OWNER'] as const) {
      const staffB = await staffSession(app.db, app.config, companyB, role);
      const one = await app.request(`/dashboard/api/bookings/${bookingB}`, {
        headers: { Cookie: staffB.cookie },
      });
      expect(one.status, one.text).toBe(200);
      expect(one.body.data, role).toMatchObject({
        status: 'CANCELLED',
        failure_reason: 'COMPANY_SUSPENDED',
        confirmation: { status: 'CANCELLED', reason: 'COMPANY_SUSPENDED' },
      });
      const list = await app.request('/dashboard/api/bookings', { headers: { Cookie: staffB.cookie } });
      expect(list.status, list.text).toBe(200);
      const listed = (list.body.data as { id: string }[]).find((booking) => booking.id === bookingB);
      expect(listed, role).toMatchObject({ confirmation: { reason: 'COMPANY_SUSPENDED' } });
      expect(JSON.stringify([one.body, list.body]), role).not.toContain('Fraud investigation');
    }
    expect(await requestsOf(app.db, journeyId)).toEqual([
      { company_id: companyB, status: 'CANCELLED', decided_by: null, reason: 'COMPANY_SUSPENDED' },
    ]);
    // The words stay where the platform keeps them: A's history (its OWNER's) and the audit log.
    await expectOwnerReads(app, companyA, words);
    const [audit] = await auditRows(app.db, companyA);
    expect(audit).toMatchObject({ action: 'companies.suspend', details: { reason: words } });
  });

  it("the suspended company's own STAFF read COMPANY_SUSPENDED on its request; only its OWNER reads the words", async () => {
    const { companyA, journeyId } = await waitingConnection('first');
    const words = 'Board minute 44: owner under investigation (internal)';
    const suspended = await browser.suspend(companyA, words);
    expect(suspended.status, suspended.text).toBe(200);

    const staffA = await staffSession(app.db, app.config, companyA, 'STAFF');
    const bookingA = await bookingOfCompany(app.db, journeyId, companyA);
    const read = await app.request(`/dashboard/api/bookings/${bookingA}`, {
      headers: { Cookie: staffA.cookie },
    });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.confirmation).toMatchObject({ status: 'CANCELLED', reason: 'COMPANY_SUSPENDED' });
    expect(JSON.stringify(read.body)).not.toContain('Board minute');
    expectError(
      await app.request('/dashboard/api/company/warnings', { headers: { Cookie: staffA.cookie } }),
      403,
      'ROLE_NOT_ALLOWED',
    );
    expect(await requestsOf(app.db, journeyId)).toEqual([
      { company_id: companyA, status: 'CANCELLED', decided_by: null, reason: 'COMPANY_SUSPENDED' },
    ]);
    await expectOwnerReads(app, companyA, words);
  });

  it('the migration relabels requests a suspension ended before this release, and no other', async () => {
    const { companyA, journeyId } = await waitingConnection('first');
    const suspended = await browser.suspend(companyA, 'Licence expired');
    expect(suspended.status, suspended.text).toBe(200);
    // As an earlier release left it: the administrator's words and id on the request.
    await app.db.query(
      `update confirmation_requests set reason = 'Licence expired', decided_by = gen_random_uuid() where scope_id = $1`,
      [journeyId],
    );
    // A company's own rejection, whose reason is its own to keep.
    const rejected = await waitingConnection('second');
    await app.db.query(
      `update confirmation_requests set status = 'CANCELLED', reason = 'No driver', decision_key = 'manual-key'
       where scope_id = $1`,
      [rejected.journeyId],
    );

    await app.db.query(SUSPENSION_REQUESTS);

    expect(await requestsOf(app.db, journeyId)).toEqual([
      { company_id: companyA, status: 'CANCELLED', decided_by: null, reason: 'COMPANY_SUSPENDED' },
    ]);
    expect((await requestsOf(app.db, rejected.journeyId)).map((row) => row.reason)).toEqual(['No driver']);
  });
});

function requestsOf(db: Database, journeyId: string) {
  return db.query<{ company_id: string; status: string; decided_by: string | null; reason: string | null }>(
    `select company_id, status, decided_by, reason from confirmation_requests where scope_id = $1 order by company_id`,
    [journeyId],
  );
}

/** The suspended company's OWNER reads the suspension in force with the administrator's words. */
async function expectOwnerReads(app: TestApp, companyId: string, words: string): Promise<void> {
  const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
  const seen = await app.request('/dashboard/api/company/warnings', { headers: { Cookie: owner.cookie } });
  expect(seen.status, seen.text).toBe(200);
  expect(seen.body.data).toMatchObject({
    status: 'SUSPENDED',
    suspension: { kind: 'SUSPEND', reason: words },
  });
}
