import { describe, expect, it } from 'vitest';
import type { Database } from '../../../db/orm.js';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { createCompany } from '../../support/factories.js';
import { bookingRefundedInFull } from '../../support/finance.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { bookJourney, mobileTraveller, tripOf } from '../../support/journeys.js';
import { createStaffMember, staffLogin, type StaffRole } from '../../support/staff.js';
import {
  auditRows,
  companySnapshot,
  expectError,
  signedInAdmin,
  writeWaitingForAccount,
  writeWhileAccountChanges,
  type AdminBrowser,
} from './helpers.js';

/** GET /admin/api/companies, a company's record and history, and warn, suspend, unsuspend, verify, unverify. */

async function staffOf(app: TestApp, companyId: string, role: StaffRole) {
  const member = await createStaffMember(app.db, companyId, role);
  const browser = await staffLogin(app, { email: member.email, password: member.password });
  expect(browser.response.status, browser.response.text).toBe(200);
  return browser;
}

/** The administration's audit actions about a company, oldest first (staff sign-ins left out). */
async function companyActions(db: Database, companyId: string): Promise<string[]> {
  return (await auditRows(db, companyId))
    .map((row) => row.action)
    .filter((action) => action.startsWith('companies.'));
}

describe('administration: companies', () => {
  const app = useTestApp({
    ADMIN_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_EMAIL: 10_000,
  });

  it('lists companies by search, status, verification and scope, with counts of trips, bookings and revenue; each read recorded', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const trip = await tripOf(app.db);
    await app.db.query(`update companies set name_en = $2 where id = $1`, [
      trip.companyId,
      `Listed ${tag} Coaches`,
    ]);
    const booked = await bookJourney(app, await mobileTraveller(app), [{ trip }], 2);
    const suspended = await createCompany(app.db, {
      name: `Listed ${tag} Suspended`,
      status: 'SUSPENDED',
      verified: false,
    });
    await createCompany(app.db, { name: `Listed ${tag} Internal`, scope: 'INTERNAL' });
    const { admin, browser } = await signedInAdmin(app, { role: 'ANALYST' });

    const all = await browser.get(`/companies?search=listed%20${tag}`);
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.total).toBe(3);
    const coaches = all.body.data.items.find((item: { id: string }) => item.id === trip.companyId);
    expect(coaches).toMatchObject({
      nameEn: `Listed ${tag} Coaches`,
      status: 'ACTIVE',
      verified: true,
      scope: 'PRODUCTION',
      counts: { trips: 1, bookings: 1, revenue: booked.quoted.total_price },
      warnings: 0,
      lastActionAt: null,
    });
    const only = async (query: string) =>
      (await browser.get(`/companies?search=${tag}&${query}`)).body.data.items.map(
        (item: { nameEn: string }) => item.nameEn,
      );
    expect(await only('status=SUSPENDED')).toEqual([`Listed ${tag} Suspended`]);
    expect(await only('verified=false')).toEqual([`Listed ${tag} Suspended`]);
    expect(await only('scope=INTERNAL')).toEqual([`Listed ${tag} Internal`]);
    expect((await browser.get(`/companies?search=${tag}&limit=1&offset=1`)).body.data).toMatchObject({
      total: 3,
      limit: 1,
      offset: 1,
    });
    expect(suspended.id).toBeTruthy();
    expectError(await browser.get('/companies?scope=PUBLIC'), 400, 'VALIDATION_FAILED');
    expectError(await browser.get('/companies?owner=me'), 400, 'VALIDATION_FAILED');

    const reads = await app.db.query<{ details: any }>(
      `select details from audit_log where actor_id = $1 and action = 'companies.list' order by id`,
      [admin.id],
    );
    expect(reads).toHaveLength(5);
    expect(reads[1]!.details).toMatchObject({ filter: { search: tag, status: 'SUSPENDED' }, returned: 1 });
  });

  it('finds a company by its name typed another way (الاهلية for الأهلية, ه for ة, any case), the slug as typed', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const ahliah = await createCompany(app.db, { name: `Ahliah Transport ${tag}` });
    await app.db.query(`update companies set name_ar = $2 where id = $1`, [ahliah.id, `شركة الأهلية ${tag}`]);
    const other = await createCompany(app.db, { name: `Kadmous ${tag}` });
    await app.db.query(`update companies set name_ar = $2 where id = $1`, [other.id, `القدموس ${tag}`]);
    const { admin, browser } = await signedInAdmin(app, { role: 'ANALYST' });
    const found = async (search: string) => {
      const answer = await browser.get(`/companies?search=${encodeURIComponent(search)}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data.total, search).toBe(answer.body.data.items.length);
      return answer.body.data.items.map((item: { id: string }) => item.id);
    };
    for (const typed of [
      `الأهلية ${tag}`,
      `الاهلية ${tag}`,
      `الاهليه ${tag}`,
      `شركه الأَهليّة ${tag}`,
      `AHLIAH transport ${tag}`,
    ]) {
      expect(await found(typed), typed).toEqual([ahliah.id]);
    }
    expect(await found(`القدموس ${tag}`)).toEqual([other.id]);
    const [stored] = await app.db.query<{ slug: string }>(`select slug from companies where id = $1`, [
      ahliah.id,
    ]);
    expect(await found(stored!.slug.toUpperCase())).toEqual([ahliah.id]);
    // A wildcard matches itself only.
    expect(await found(`%${tag}`)).toEqual([]);
    expect(await found(`Ahliah_Transport ${tag}`)).toEqual([]);

    const reads = await app.db.query<{ details: any }>(
      `select details from audit_log where actor_id = $1 and action = 'companies.list' order by id`,
      [admin.id],
    );
    expect(reads[1]!.details).toMatchObject({ filter: { search: `الاهلية ${tag}` }, returned: 1 });
  });

  it('counts no revenue for a booking paid and then refunded in full', async () => {
    const { world } = await bookingRefundedInFull(app);
    const { browser } = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    const one = await browser.get(`/companies/${world.companyId}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.data.company.counts).toMatchObject({ bookings: 1, revenue: 0 });
  });

  it('warns a company: recorded with actor, reason, before and after, in its history, and shown to its OWNER only', async () => {
    const company = await createCompany(app.db);
    const { admin, browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const warned = await browser.send('POST', `/companies/${company.id}/warn`, {
      reason: 'Late departures reported',
    });
    expect(warned.status, warned.text).toBe(200);
    expect(warned.body.data).toMatchObject({
      companyId: company.id,
      action: 'WARN',
      before: { status: 'ACTIVE', verified: true },
      after: { status: 'ACTIVE', verified: true },
      endedRequests: null,
    });
    expect(await auditRows(app.db, company.id)).toEqual([
      expect.objectContaining({
        actor_kind: 'ADMIN',
        actor_id: admin.id,
        action: 'companies.warn',
        target_kind: 'company',
        details: {
          reason: 'Late departures reported',
          before: { status: 'ACTIVE', verified: true },
          after: { status: 'ACTIVE', verified: true },
          historyId: warned.body.data.historyId,
        },
      }),
    ]);
    const record = await browser.get(`/companies/${company.id}`);
    expect(record.body.data.company).toMatchObject({
      id: company.id,
      warnings: 1,
      lastActionAt: expect.any(String),
    });
    expect(record.body.data.history).toEqual([
      expect.objectContaining({
        id: warned.body.data.historyId,
        action: 'WARN',
        reason: 'Late departures reported',
        admin: { id: admin.id, name: 'Test Admin' },
      }),
    ]);
    expect((await auditRows(app.db, company.id)).map((row) => row.action)).toEqual([
      'companies.warn',
      'companies.read',
    ]);

    const owner = await staffOf(app, company.id, 'OWNER');
    const seen = await app.request('/dashboard/api/company/warnings', { headers: { Cookie: owner.cookie } });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.data).toMatchObject({
      status: 'ACTIVE',
      suspension: null,
      total: 1,
      items: [{ id: warned.body.data.historyId, kind: 'WARN', reason: 'Late departures reported' }],
    });
    expect(JSON.stringify(seen.body)).not.toContain(admin.id);
    const dispatcher = await staffOf(app, company.id, 'DISPATCHER');
    expectError(
      await app.request('/dashboard/api/company/warnings', { headers: { Cookie: dispatcher.cookie } }),
      403,
      'ROLE_NOT_ALLOWED',
    );
    const stranger = await staffOf(app, (await createCompany(app.db)).id, 'OWNER');
    const theirs = await app.request('/dashboard/api/company/warnings', {
      headers: { Cookie: stranger.cookie },
    });
    expect(theirs.body.data.total).toBe(0);
  });

  it('suspends and unsuspends; the OWNER sees the suspension in force; a repeated action is 409 and writes nothing', async () => {
    const company = await createCompany(app.db);
    const { browser } = await signedInAdmin(app);
    const suspended = await browser.send('POST', `/companies/${company.id}/suspend`, {
      reason: 'Licence expired',
    });
    expect(suspended.body.data).toMatchObject({
      after: { status: 'SUSPENDED' },
      endedRequests: { cancelled: [], alreadyClosed: [], leftToDeadline: [] },
    });
    const owner = await staffOf(app, company.id, 'OWNER');
    const seen = await app.request('/dashboard/api/company/warnings', { headers: { Cookie: owner.cookie } });
    expect(seen.body.data).toMatchObject({
      status: 'SUSPENDED',
      suspension: { kind: 'SUSPEND', reason: 'Licence expired' },
    });

    const before = await companySnapshot(app.db, company.id);
    expectError(
      await browser.send('POST', `/companies/${company.id}/suspend`, { reason: 'Again' }),
      409,
      'COMPANY_ALREADY_SUSPENDED',
    );
    expect(await companySnapshot(app.db, company.id)).toEqual(before);

    expect(
      (await browser.send('POST', `/companies/${company.id}/unsuspend`, { reason: 'Licence renewed' })).body
        .data,
    ).toMatchObject({
      before: { status: 'SUSPENDED' },
      after: { status: 'ACTIVE' },
    });
    const after = await companySnapshot(app.db, company.id);
    expectError(
      await browser.send('POST', `/companies/${company.id}/unsuspend`, { reason: 'Again' }),
      409,
      'COMPANY_NOT_SUSPENDED',
    );
    expect(await companySnapshot(app.db, company.id)).toEqual(after);
    expect(await companyActions(app.db, company.id)).toEqual(['companies.suspend', 'companies.unsuspend']);
    const notices = await app.request('/dashboard/api/company/warnings', {
      headers: { Cookie: owner.cookie },
    });
    expect(notices.body.data).toMatchObject({ status: 'ACTIVE', suspension: null, total: 2 });
  });

  /**
   * `first` suspends the company and lifts the suspension while `second`'s suspension, sent before
   * both, waits for its account's row; then it suspends the company again.
   */
  async function suspendedAgainAfterUnsuspension(
    first: AdminBrowser,
    second: { admin: { id: string }; browser: AdminBrowser },
  ) {
    const company = await createCompany(app.db);
    const late = await writeWaitingForAccount(
      app,
      second.admin.id,
      () => second.browser.send('POST', `/companies/${company.id}/suspend`, { reason: 'Second suspension' }),
      async () => {
        for (const [action, reason] of [
          ['suspend', 'First suspension'],
          ['unsuspend', 'Lifted'],
        ]) {
          const done = await first.send('POST', `/companies/${company.id}/${action}`, { reason });
          expect(done.status, done.text).toBe(200);
        }
      },
    );
    expect(late.status, late.text).toBe(200);
    expect(late.body.data).toMatchObject({ before: { status: 'ACTIVE' }, after: { status: 'SUSPENDED' } });
    return company;
  }

  it('a suspension whose transaction began before an unsuspension but waited for it is in force and listed after it, in the history, the notices and the audit log', async () => {
    const first = await signedInAdmin(app);
    const second = await signedInAdmin(app);
    const company = await suspendedAgainAfterUnsuspension(first.browser, second);

    const owner = await staffOf(app, company.id, 'OWNER');
    const notices = await app.request('/dashboard/api/company/warnings', {
      headers: { Cookie: owner.cookie },
    });
    expect(notices.status, notices.text).toBe(200);
    const read = await first.browser.get(`/companies/${company.id}`);
    expect(read.status, read.text).toBe(200);
    const newestFirst = ['Second suspension', 'Lifted', 'First suspension'];
    expect({
      status: notices.body.data.status,
      inForce: notices.body.data.suspension?.reason,
      notices: notices.body.data.items.map((item: { reason: string }) => item.reason),
      history: read.body.data.history.map((entry: { reason: string }) => entry.reason),
    }).toEqual({
      status: 'SUSPENDED',
      inForce: 'Second suspension',
      notices: newestFirst,
      history: newestFirst,
    });

    const log = await first.browser.get(`/audit-log?target=${company.id}&targetKind=company`);
    expect(log.status, log.text).toBe(200);
    expect(
      log.body.data.items
        // The company's moderation rows; its staff's sign-ins are about the company too (targetKind company).
        .filter(
          (item: { action: string }) =>
            item.action.startsWith('companies.') && item.action !== 'companies.read',
        )
        .map(
          (item: { action: string; details: { reason: string } }) => `${item.action}: ${item.details.reason}`,
        ),
    ).toEqual([
      'companies.suspend: Second suspension',
      'companies.unsuspend: Lifted',
      'companies.suspend: First suspension',
    ]);
  });

  it('verification is an audited action and gates the dashboard writes that need a verified company', async () => {
    const company = await createCompany(app.db, { verified: false });
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const owner = await staffOf(app, company.id, 'OWNER');
    const saveSettings = () =>
      app.request('/dashboard/api/settings/booking-confirmation', {
        method: 'PUT',
        headers: owner.writeHeaders,
        json: { mode: 'MANUAL_CONFIRM', decisionWindowMinutes: 30, channels: ['CUSTOMER_WEB'] },
      });
    expectError(await saveSettings(), 403, 'COMPANY_NOT_VERIFIED');
    const verified = await browser.send('POST', `/companies/${company.id}/verify`, {
      reason: 'Documents checked',
    });
    expect(verified.body.data).toMatchObject({ before: { verified: false }, after: { verified: true } });
    expect((await saveSettings()).status).toBe(200);
    expectError(
      await browser.send('POST', `/companies/${company.id}/verify`, { reason: 'Twice' }),
      409,
      'COMPANY_ALREADY_VERIFIED',
    );
    expect(
      (await browser.send('POST', `/companies/${company.id}/unverify`, { reason: 'Documents expired' }))
        .status,
    ).toBe(200);
    expectError(await saveSettings(), 403, 'COMPANY_NOT_VERIFIED');
    expect(await companyActions(app.db, company.id)).toEqual(['companies.verify', 'companies.unverify']);
  });

  it('refuses bad input, unknown companies and missing permissions, and changes nothing', async () => {
    const company = await createCompany(app.db);
    const { browser } = await signedInAdmin(app);
    const { browser: support } = await signedInAdmin(app, { role: 'SUPPORT' });
    const before = await companySnapshot(app.db, company.id);
    expectError(
      await browser.send('POST', `/companies/${company.id}/suspend`, { reason: 'no' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await browser.send('POST', `/companies/${company.id}/suspend`, {}), 400, 'VALIDATION_FAILED');
    expectError(
      await browser.send('POST', `/companies/${company.id}/suspend`, {
        reason: 'Valid reason',
        companyId: company.id,
      }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await browser.send('POST', `/companies/not-a-uuid/suspend`, { reason: 'Valid reason' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await browser.send(
        'POST',
        `/companies/${company.id}/suspend`,
        { reason: 'Valid reason' },
        { csrf: null },
      ),
      403,
      'CSRF_TOKEN_INVALID',
    );
    const denied = await support.send('POST', `/companies/${company.id}/suspend`, {
      reason: 'Support tries',
    });
    expectError(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.details).toEqual({ permission: 'companies.manage' });
    expect(await companySnapshot(app.db, company.id)).toEqual(before);
    const nobody = crypto.randomUUID();
    expectError(
      await browser.send('POST', `/companies/${nobody}/warn`, { reason: 'Who?' }),
      404,
      'COMPANY_NOT_FOUND',
    );
    expectError(await browser.get(`/companies/${nobody}`), 404, 'COMPANY_NOT_FOUND');
    expect(await auditRows(app.db, nobody)).toEqual([]);
  });

  it('a suspension by an administrator disabled while it is in flight is refused (401) and writes nothing', async () => {
    const { browser: boss } = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    const { admin, browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const company = await createCompany(app.db);
    const before = await companySnapshot(app.db, company.id);
    const { change, write } = await writeWhileAccountChanges(
      app,
      boss,
      admin.id,
      { status: 'DISABLED' },
      () => browser.send('POST', `/companies/${company.id}/suspend`, { reason: 'Rogue admin' }),
    );
    expect(change.status, change.text).toBe(200);
    expectError(write, 401, 'INVALID_CREDENTIAL');
    expect(await companySnapshot(app.db, company.id)).toEqual(before);
  });

  it('an administrator disabled while their suspension waits for the company: the disable waits for it, never the other way round', async () => {
    const { browser: boss } = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    const { admin, browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const company = await createCompany(app.db);
    // The company row is busy (any other writer of it): the suspension waits for its lock.
    const row = await holdLock(app.db, `select 1 from companies where id = '${company.id}' for update`);
    const suspending = browser.send('POST', `/companies/${company.id}/suspend`, { reason: 'Rogue admin' });
    await waitersOf(app.db, row.pid);
    const disabling = boss.send('PATCH', `/admins/${admin.id}`, { status: 'DISABLED' });
    await answeredOrWaiting(disabling, app.db, row.pid, 2);
    await row.release();
    const [suspended, disabled] = await Promise.all([suspending, disabling]);
    expect([suspended.status, disabled.status]).toEqual([200, 200]);
    // One after the other: the suspension, in the name of an administrator still active, then the
    // disable. Nothing commits in the name of an account already disabled.
    const recorded = await app.db.query<{ action: string; target_id: string }>(
      `select action, target_id from audit_log where target_id in ($1, $2)
         and action in ('companies.suspend', 'admins.update') order by id`,
      [company.id, admin.id],
    );
    expect(recorded).toEqual([
      { action: 'companies.suspend', target_id: company.id },
      { action: 'admins.update', target_id: admin.id },
    ]);
  });
});
