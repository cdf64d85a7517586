import { describe, expect, it } from 'vitest';
import { createCompany, createCorridor } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';
import { auditRows, companySnapshot, expectError, signedInAdmin } from './helpers.js';

/**
 * The administration's state tables (SPEC "Administration API": "company actions must stay
 * traceable"; SPEC "Other states": warn, suspend, unsuspend): the cells no other test names.
 * README "Administration console": support tickets "OPEN → ANSWERED ..., CLOSED is final"; company
 * actions are one table, `domain/company-moderation.ts` ("a refused one ... writes nothing"); incidents
 * "RESOLVED (final ...; a change of a resolved one is 409 INCIDENT_RESOLVED)". A CLOSED ticket takes
 * no assignment and no second close, an unverified company is not unverified, a suspended company may
 * still be warned, a RESOLVED incident is not moved back to MONITORING.
 */
describe('administration: final states and the moves their tables do not list', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  it('a CLOSED support ticket: assign and close again are 409 TICKET_CLOSED and change nothing', async () => {
    const traveller = await app.signIn();
    const rows = await confirmedJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip: journeyTripOf(await createCorridor(app.db)),
      travellers: ['Rami Haddad'],
    });
    const support = await signedInAdmin(app, { role: 'SUPPORT' });
    const opened = await app.request('/api/support-tickets', {
      method: 'POST',
      headers: traveller.writeHeaders,
      json: { bookingId: rows.bookingId, subject: 'Lost bag', message: 'Left it on the bus' },
    });
    expect(opened.status, opened.text).toBe(201);
    const ticketId = opened.body.data.id;
    const closed = await support.browser.send('POST', `/tickets/${ticketId}/close`, {
      resolution: 'Found it',
    });
    expect(closed.status, closed.text).toBe(200);
    // Support's reads of the ticket are audited as they happen; only the writes must not move.
    const snapshot = async () => ({
      ticket: await app.db.query(`select * from support_tickets where id = $1`, [ticketId]),
      writes: (await auditRows(app.db, ticketId)).filter((row) => row.action !== 'tickets.read'),
    });
    const before = await snapshot();
    const assign = await support.browser.send('POST', `/tickets/${ticketId}/assign`, {
      assigneeId: support.admin.id,
    });
    expectError(assign, 409, 'TICKET_CLOSED');
    const again = await support.browser.send('POST', `/tickets/${ticketId}/close`, { resolution: 'Again' });
    expectError(again, 409, 'TICKET_CLOSED');
    expect(await snapshot()).toEqual(before);
  });

  it('an unverified company: UNVERIFY is 409 COMPANY_NOT_VERIFIED and writes nothing', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const company = await createCompany(app.db, { verified: false });
    const before = await companySnapshot(app.db, company.id);
    const refused = await browser.send('POST', `/companies/${company.id}/unverify`, {
      reason: 'Documents expired',
    });
    expectError(refused, 409, 'COMPANY_NOT_VERIFIED');
    expect(await companySnapshot(app.db, company.id)).toEqual(before);
  });

  it('a suspended company may still be warned: recorded in its history, the suspension stands', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const company = await createCompany(app.db);
    const suspended = await browser.send('POST', `/companies/${company.id}/suspend`, { reason: 'Fraud' });
    expect(suspended.status, suspended.text).toBe(200);
    const warned = await browser.send('POST', `/companies/${company.id}/warn`, { reason: 'Late payouts' });
    expect(warned.status, warned.text).toBe(200);
    expect(warned.body.data).toMatchObject({
      action: 'WARN',
      before: { status: 'SUSPENDED' },
      after: { status: 'SUSPENDED' },
    });
    const history = await app.db.query(
      `select action, reason from company_admin_actions where company_id = $1 order by created_at, id`,
      [company.id],
    );
    expect(history).toEqual([
      { action: 'SUSPEND', reason: 'Fraud' },
      { action: 'WARN', reason: 'Late payouts' },
    ]);
    const [row] = await app.db.query(`select status from companies where id = $1`, [company.id]);
    expect(row).toEqual({ status: 'SUSPENDED' });
  });

  it('a RESOLVED incident: a move back to MONITORING is 409 INCIDENT_RESOLVED and changes nothing', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const created = await browser.send('POST', '/incidents', {
      title: 'Search slow',
      description: 'p99 up',
      severity: 'MINOR',
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    const resolved = await browser.send('POST', `/incidents/${id}/resolve`, { resolution: 'Index added' });
    expect(resolved.status, resolved.text).toBe(200);
    const snapshot = async () => ({
      incident: await app.db.query(`select * from incidents where id = $1`, [id]),
      audit: await auditRows(app.db, id),
    });
    const before = await snapshot();
    expectError(
      await browser.send('PATCH', `/incidents/${id}`, { status: 'MONITORING' }),
      409,
      'INCIDENT_RESOLVED',
    );
    expect(await snapshot()).toEqual(before);
  });
});
