import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  bookJourney,
  journeyFacts,
  mobileTraveller,
  setConfirmation,
  tripOf,
} from '../../support/journeys.js';
import { createStaffMember, staffLogin, type StaffRole } from '../../support/staff.js';
import { demotedWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';

/**
 * PATCH /dashboard/api/bookings/{id}/status judges the deciding member as they stand when the
 * decision is written (README: a new role applies from the next request, deactivation ends the
 * sessions at once; a decision is for OWNER, ADMIN or DISPATCHER): a member demoted or deactivated
 * while the decision waited is refused as their next request would be, and nothing is decided.
 */

/** A manual company with one journey waiting for its decision. */
async function requestedBooking(app: TestApp) {
  const trip = await tripOf(app.db);
  await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
  const booked = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
  const [booking] = await app.db.query<{ id: string; trip_id: string }>(
    `select id, trip_id from bookings where journey_id = $1`,
    [booked.journeyId],
  );
  return {
    companyId: trip.companyId,
    journeyId: booked.journeyId,
    bookingId: booking!.id,
    tripId: booking!.trip_id,
  };
}

async function memberOf(app: TestApp, companyId: string, role: StaffRole) {
  const member = await createStaffMember(app.db, companyId, role);
  const session = await staffLogin(app, { email: member.email, password: member.password });
  expect(session.response.status, session.response.text).toBe(200);
  return { ...session, ...member };
}

const patchStatus = (app: TestApp, bookingId: string, headers: Record<string, string>, json: unknown) =>
  app.request(`/dashboard/api/bookings/${bookingId}/status`, { method: 'PATCH', headers, json });

/** The company's request of the journey, as the dashboard's decision leaves it. */
const requestOf = async (app: TestApp, journeyId: string) =>
  (
    await app.db.query<{ status: string; decided_by: string | null; decision_key: string | null }>(
      `select status, decided_by, decision_key from confirmation_requests where scope_id = $1`,
      [journeyId],
    )
  )[0]!;

describe('PATCH /dashboard/api/bookings/{id}/status: the deciding member is checked when the decision is written', () => {
  const app = useTestApp({ STAFF_LOGIN_MAX_PER_IP: 10_000, STAFF_LOGIN_MAX_PER_EMAIL: 10_000 });

  it('a DISPATCHER demoted to STAFF while the approval waited is 403 ROLE_NOT_ALLOWED; the request stays PENDING and an OWNER still decides it', async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const dispatcher = await memberOf(app, companyId, 'DISPATCHER');
    const before = await journeyFacts(app.db, journeyId);

    const refused = await demotedWhileWriting(app.db, companyId, dispatcher.membershipId, 'STAFF', () =>
      patchStatus(app, bookingId, dispatcher.writeHeaders, { decision: 'APPROVE' }),
    );
    expect([refused.status, refused.body?.errorCode, refused.body?.details], refused.text).toEqual([
      403,
      'ROLE_NOT_ALLOWED',
      { role: 'STAFF', allowedRoles: ['OWNER', 'ADMIN', 'DISPATCHER'] },
    ]);
    expect(await requestOf(app, journeyId)).toEqual({
      status: 'PENDING',
      decided_by: null,
      decision_key: null,
    });
    expect(await journeyFacts(app.db, journeyId)).toEqual(before);

    const owner = await memberOf(app, companyId, 'OWNER');
    const approved = await patchStatus(app, bookingId, owner.writeHeaders, { decision: 'APPROVE' });
    expect([approved.status, approved.body?.data?.outcome], approved.text).toEqual([200, 'CONFIRMED']);
    expect((await requestOf(app, journeyId)).decided_by).toBe(owner.userId);
  });

  it('a DISPATCHER deactivated by PATCH /team while the rejection waited for its trip is 401 INVALID_CREDENTIAL; the journey stays REQUESTED', async () => {
    const { companyId, journeyId, bookingId, tripId } = await requestedBooking(app);
    const dispatcher = await memberOf(app, companyId, 'DISPATCHER');
    const owner = await memberOf(app, companyId, 'OWNER');
    const before = await journeyFacts(app.db, journeyId);

    // The rejection has passed the session guard and waits for its trip (another write holds it).
    const held = await holdLock(app.db, `select id from trips where id = '${tripId}' for update`);
    const rejecting = patchStatus(app, bookingId, dispatcher.writeHeaders, {
      decision: 'REJECT',
      reason: 'full',
    });
    await waitersOf(app.db, held.pid);
    const deactivated = await app.request(`/dashboard/api/team/${dispatcher.membershipId}`, {
      method: 'PATCH',
      headers: owner.writeHeaders,
      json: { active: false },
    });
    expect(deactivated.status, deactivated.text).toBe(200);
    await held.release();

    const refused = await rejecting;
    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([401, 'INVALID_CREDENTIAL']);
    expect(await requestOf(app, journeyId)).toEqual({
      status: 'PENDING',
      decided_by: null,
      decision_key: null,
    });
    expect(await journeyFacts(app.db, journeyId)).toEqual(before);
    expect(before.journey!.status).toBe('REQUESTED');
  });

  it("an OWNER's REJECT whose company was suspended while it waited is 403 COMPANY_SUSPENDED; the request is left to the platform", async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const owner = await memberOf(app, companyId, 'OWNER');
    const before = await journeyFacts(app.db, journeyId);

    const refused = await suspendedWhileWriting(app.db, companyId, () =>
      patchStatus(app, bookingId, owner.writeHeaders, { decision: 'REJECT', reason: 'full' }),
    );
    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    expect(await requestOf(app, journeyId)).toEqual({
      status: 'PENDING',
      decided_by: null,
      decision_key: null,
    });
    expect(await journeyFacts(app.db, journeyId)).toEqual(before);
  });
});
