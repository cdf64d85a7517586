import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { bookingRefundedInFull } from '../../support/finance.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { bookJourney, mobileTraveller, setConfirmation, tripOf } from '../../support/journeys.js';
import { createStaffMember, staffLogin } from '../../support/staff.js';
import { expectError, signedInAdmin } from './helpers.js';

/** GET /admin/api/analytics over one company's own data (test files share the database). */
async function decide(app: TestApp, companyId: string, journeyId: string, decision: 'APPROVE' | 'REJECT') {
  const member = await createStaffMember(app.db, companyId, 'OWNER');
  const staff = await staffLogin(app, { email: member.email, password: member.password });
  const [booking] = await app.db.query<{ id: string }>(`select id from bookings where journey_id = $1`, [
    journeyId,
  ]);
  const response = await app.request(`/dashboard/api/bookings/${booking!.id}/status`, {
    method: 'PATCH',
    headers: staff.writeHeaders,
    json: { decision },
  });
  expect(response.status, response.text).toBe(200);
}

describe('administration: platform analytics', () => {
  const app = useTestApp({
    ADMIN_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_EMAIL: 10_000,
  });
  // Bookings made now, read back as today's (Damascus): the file runs inside the one day.
  let today: string;
  beforeAll(async () => {
    today = await dayWithRoom();
  }, dayWithRoomTimeout());

  it('counts bookings, revenue and travellers per company and day, the confirmation funnel and decisions made in time', async () => {
    const trip = await tripOf(app.db);
    const companyId = trip.companyId;
    await setConfirmation(app.db, companyId, { mode: 'MANUAL_CONFIRM' });
    const approved = await bookJourney(app, await mobileTraveller(app), [{ trip }], 2);
    const rejected = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
    await decide(app, companyId, approved.journeyId, 'APPROVE');
    await decide(app, companyId, rejected.journeyId, 'REJECT');
    for (const status of ['EXPIRED', 'CANCELLED', 'PENDING']) {
      await app.db.query(
        `insert into confirmation_requests (scope_kind, scope_id, company_id, status, deadline) values ('JOURNEY', $1, $2, $3, now())`,
        [randomUUID(), companyId, status],
      );
    }
    const { admin, browser } = await signedInAdmin(app, { role: 'ANALYST' });

    const response = await browser.get(`/analytics?companyId=${companyId}`);
    expect(response.status, response.text).toBe(200);
    const data = response.body.data;
    const revenue = approved.quoted.total_price;
    expect(data.totals).toEqual({ bookings: 2, revenue, activeTravellers: 2 });
    expect(data.perCompany).toEqual([
      expect.objectContaining({ companyId, bookings: 2, revenue, activeTravellers: 2 }),
    ]);
    expect(data.perDay).toHaveLength(30);
    expect(data.perDay.at(-1)).toEqual({ date: today, bookings: 2, revenue, activeTravellers: 2 });
    expect(data.perDay.slice(0, -1).every((day: { bookings: number }) => day.bookings === 0)).toBe(true);
    expect(data.perCompanyPerDay).toEqual([
      { date: today, companyId, bookings: 2, revenue, activeTravellers: 2 },
    ]);
    expect(data.funnel).toEqual({
      quoted: 2,
      held: 2,
      submitted: 2,
      requested: 2,
      confirmed: 1,
      cancelled: 1,
      releasedOrExpired: 0,
    });
    expect(data.manualDecisions).toMatchObject({
      requests: 5,
      pending: 1,
      approved: 1,
      rejected: 1,
      expired: 1,
      cancelled: 1,
      metDeadline: 2,
      missedDeadline: 1,
      metDeadlineShare: 0.6667,
    });
    expect(data.manualDecisions.perCompany).toEqual([
      expect.objectContaining({ companyId, requests: 5, metDeadlineShare: 0.6667 }),
    ]);

    const platform = await browser.get(`/analytics?from=${today}&to=${today}`);
    expect(platform.body.data.perDay).toHaveLength(1);
    expect(platform.body.data.totals.bookings).toBeGreaterThanOrEqual(2);
    expect(platform.body.data.perCompany).toContainEqual(expect.objectContaining({ companyId, bookings: 2 }));
    const [read] = await app.db.query<{ details: any }>(
      `select details from audit_log where actor_id = $1 and action = 'analytics.read' order by id limit 1`,
      [admin.id],
    );
    expect(read!.details).toMatchObject({ companyId });
  });

  it('counts a booking paid and then refunded in full as no revenue, as the company itself does', async () => {
    const { world } = await bookingRefundedInFull(app);
    const own = await app.request('/dashboard/api/analytics?period=daily', {
      headers: { Cookie: world.staff.OWNER.cookie },
    });
    expect(own.status, own.text).toBe(200);
    expect(own.body.data.indicators.revenue.current).toBe(0);

    const { browser } = await signedInAdmin(app, { role: 'ANALYST' });
    const platform = await browser.get(`/analytics?companyId=${world.companyId}&from=${today}&to=${today}`);
    expect(platform.status, platform.text).toBe(200);
    expect(platform.body.data.totals).toMatchObject({ bookings: 1, revenue: 0 });
    expect(platform.body.data.perCompany).toEqual([expect.objectContaining({ bookings: 1, revenue: 0 })]);
  });

  it('refuses a reversed or too long period, bad parameters and missing analytics.view', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    expectError(
      await browser.get('/analytics?from=2026-11-02&to=2026-11-01'),
      400,
      'ANALYTICS_PERIOD_INVALID',
    );
    expectError(
      await browser.get('/analytics?from=2026-01-01&to=2026-04-03'),
      400,
      'ANALYTICS_PERIOD_INVALID',
    );
    expectError(await browser.get('/analytics?from=2026-02-30'), 400, 'VALIDATION_FAILED');
    // The default period ends at `to`: from 0001-01-01 it would start in year 0 (it answered 500).
    expectError(await browser.get('/analytics?to=0001-01-01'), 400, 'ANALYTICS_PERIOD_INVALID');
    expectError(await browser.get('/analytics?companyId=abc'), 400, 'VALIDATION_FAILED');
    expectError(await browser.get('/analytics?granularity=week'), 400, 'VALIDATION_FAILED');
    const { admin: agent, browser: support } = await signedInAdmin(app, { role: 'SUPPORT' });
    const denied = await support.get('/analytics');
    expectError(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.details).toEqual({ permission: 'analytics.view' });
    expect(
      await app.db.query(`select 1 from audit_log where actor_id = $1 and action = 'analytics.read'`, [
        agent.id,
      ]),
    ).toEqual([]);
  });
});
