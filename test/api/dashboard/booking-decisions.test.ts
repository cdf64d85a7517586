import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  bookJourney,
  bookingOfCompany,
  connection,
  journeyFacts,
  mobileTraveller,
  setConfirmation,
  tripOf,
} from '../../support/journeys.js';
import { createStaffMember, staffLogin, type StaffRole } from '../../support/staff.js';

/** A manual company with one journey waiting for its decision; returns the compatibility booking id. */
async function requestedBooking(app: TestApp, mode: 'MANUAL_CONFIRM' | 'AUTO_CONFIRM' = 'MANUAL_CONFIRM') {
  const trip = await tripOf(app.db);
  await setConfirmation(app.db, trip.companyId, { mode });
  const booked = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
  const [booking] = await app.db.query<{ id: string }>(`select id from bookings where journey_id = $1`, [
    booked.journeyId,
  ]);
  return { companyId: trip.companyId, journeyId: booked.journeyId, bookingId: booking!.id };
}

async function staffOf(app: TestApp, companyId: string, role: StaffRole) {
  const member = await createStaffMember(app.db, companyId, role);
  const staff = await staffLogin(app, { email: member.email, password: member.password });
  expect(staff.response.status, staff.response.text).toBe(200);
  return staff;
}

function patchStatus(app: TestApp, bookingId: string, headers: Record<string, string>, json: unknown) {
  return app.request(`/dashboard/api/bookings/${bookingId}/status`, { method: 'PATCH', headers, json });
}

async function requestStatus(app: TestApp, journeyId: string) {
  const [row] = await app.db.query<{ status: string }>(
    `select status from confirmation_requests where scope_id = $1`,
    [journeyId],
  );
  return row?.status;
}

describe('PATCH /dashboard/api/bookings/{id}/status', () => {
  const app = useTestApp({ STAFF_LOGIN_MAX_PER_IP: 10_000, STAFF_LOGIN_MAX_PER_EMAIL: 10_000 });

  it('a dispatcher approves: CONFIRMED with signed tickets; the same decision again answers the same', async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const staff = await staffOf(app, companyId, 'DISPATCHER');
    const approved = await patchStatus(app, bookingId, staff.writeHeaders, { decision: 'APPROVE' });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data).toMatchObject({
      id: bookingId,
      decision: 'APPROVE',
      outcome: 'CONFIRMED',
      booking: { status: 'CONFIRMED' },
      confirmation: { status: 'CONFIRMED', deadline: null },
      failure_reason: null,
    });
    const facts = await journeyFacts(app.db, journeyId);
    expect(
      facts.tickets.every(
        (ticket) => ticket.status === 'VALID' && ticket.boarding_authorized && ticket.signature,
      ),
    ).toBe(true);

    const retry = await patchStatus(app, bookingId, staff.writeHeaders, { decision: 'APPROVE' });
    expect(retry.status).toBe(200);
    expect(retry.body.data).toEqual(approved.body.data);
    const [request] = await app.db.query<{ decision_key: string; id: string; decided_by: string }>(
      `select id, decision_key, decided_by from confirmation_requests where scope_id = $1`,
      [journeyId],
    );
    expect(request!.decision_key).toBe(`${request!.id}:${companyId}:APPROVE`);
  });

  it('a closed request is 409 JOURNEY_CONFIRMATION_STATE_CONFLICT, and the booking row is never edited instead', async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const staff = await staffOf(app, companyId, 'OWNER');
    expect((await patchStatus(app, bookingId, staff.writeHeaders, { decision: 'APPROVE' })).status).toBe(200);
    const reject = await patchStatus(app, bookingId, staff.writeHeaders, {
      decision: 'REJECT',
      reason: 'bus broke down',
    });
    expect(reject.status).toBe(409);
    expect(reject.body.errorCode).toBe('JOURNEY_CONFIRMATION_STATE_CONFLICT');
    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.journey!.status).toBe('CONFIRMED');
    expect(facts.bookings.map((booking) => booking.status)).toEqual(['CONFIRMED']);

    const auto = await requestedBooking(app, 'AUTO_CONFIRM');
    const autoStaff = await staffOf(app, auto.companyId, 'ADMIN');
    const noRequest = await patchStatus(app, auto.bookingId, autoStaff.writeHeaders, { decision: 'APPROVE' });
    expect(noRequest.status).toBe(409);
    expect(noRequest.body.errorCode).toBe('JOURNEY_CONFIRMATION_STATE_CONFLICT');
  });

  it('an approval once the trip has left is 409 TRIP_NOT_BOOKABLE and changes nothing; the request may still be rejected', async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const staff = await staffOf(app, companyId, 'DISPATCHER');
    // What the operations room's DEPART leaves on the trip row (the request and its seats are not touched by it).
    await app.db.query(
      `update trips set status = 'DEPARTED' where id = (select trip_id from bookings where id = $1)`,
      [bookingId],
    );
    const before = await journeyFacts(app.db, journeyId);
    const refused = await patchStatus(app, bookingId, staff.writeHeaders, { decision: 'APPROVE' });
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'TRIP_NOT_BOOKABLE']);
    expect(await journeyFacts(app.db, journeyId)).toEqual(before);
    expect(before.journey!.status).toBe('REQUESTED');
    expect(await requestStatus(app, journeyId)).toBe('PENDING');

    const rejected = await patchStatus(app, bookingId, staff.writeHeaders, { decision: 'REJECT' });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body.data).toMatchObject({ outcome: 'CANCELLED', failure_reason: 'COMPANY_REJECTED' });
  });

  /**
   * A connection whose other leg's company is suspended after the confirm, before the suspension's
   * follow-up has ended the journey (the test writes the status as the suspension's transaction
   * does, without its follow-up): the last approval is refused as a confirm of the hold would be,
   * whether that company confirmed automatically or had approved.
   */
  it("the last approval is 409 TRIP_NOT_BOOKABLE when another leg's company was suspended meanwhile, automatic or approved, and changes nothing", async () => {
    for (const otherMode of ['AUTO_CONFIRM', 'MANUAL_CONFIRM'] as const) {
      const world = await connection(app.db);
      await setConfirmation(app.db, world.first.companyId, { mode: otherMode });
      await setConfirmation(app.db, world.second.companyId, { mode: 'MANUAL_CONFIRM' });
      const booked = await bookJourney(app, await mobileTraveller(app), [
        { trip: world.first },
        { trip: world.second },
      ]);
      expect(booked.confirmed.body.data.confirmation.status).toBe('REQUESTED');
      const bookingOf = (companyId: string) => bookingOfCompany(app.db, booked.journeyId, companyId);
      if (otherMode === 'MANUAL_CONFIRM') {
        const first = await staffOf(app, world.first.companyId, 'OWNER');
        const approved = await patchStatus(app, await bookingOf(world.first.companyId), first.writeHeaders, {
          decision: 'APPROVE',
        });
        expect([approved.status, approved.body.data?.outcome], approved.text).toEqual([200, 'REQUESTED']);
      }
      await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [world.first.companyId]);
      const requests = () =>
        app.db.query<{ company_id: string; status: string }>(
          `select company_id, status from confirmation_requests where scope_id = $1 order by company_id`,
          [booked.journeyId],
        );
      const before = { facts: await journeyFacts(app.db, booked.journeyId), requests: await requests() };

      const second = await staffOf(app, world.second.companyId, 'OWNER');
      const refused = await patchStatus(app, await bookingOf(world.second.companyId), second.writeHeaders, {
        decision: 'APPROVE',
      });
      expect([refused.status, refused.body.errorCode], `${otherMode}: ${refused.text}`).toEqual([
        409,
        'TRIP_NOT_BOOKABLE',
      ]);
      expect({ facts: await journeyFacts(app.db, booked.journeyId), requests: await requests() }).toEqual(
        before,
      );
      expect(before.facts.journey!.status).toBe('REQUESTED');
      expect(before.facts.tickets.some((ticket) => ticket.boarding_authorized)).toBe(false);
      expect(before.requests.find((row) => row.company_id === world.second.companyId)!.status).toBe(
        'PENDING',
      );
    }
  });

  it('cancelling only the booking row of a confirmed journey is 409 JOURNEY_AGGREGATE_OPERATION_REQUIRED', async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const staff = await staffOf(app, companyId, 'ADMIN');
    expect((await patchStatus(app, bookingId, staff.writeHeaders, { decision: 'APPROVE' })).status).toBe(200);
    for (const status of ['CANCELLED', 'CHECKED_IN', 'NO_SHOW', 'COMPLETED']) {
      const refused = await patchStatus(app, bookingId, staff.writeHeaders, { status });
      expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({
        status: 409,
        errorCode: 'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
      });
    }
    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.bookings.map((booking) => booking.status)).toEqual(['CONFIRMED']);
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['CONFIRMED']);
    expect(facts.tickets.map((ticket) => ticket.status)).toEqual(['VALID']);
  });

  it('a legacy {status:"CANCELLED"} that an approval overtook is 409 JOURNEY_AGGREGATE_OPERATION_REQUIRED, as after it', async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const staff = await staffOf(app, companyId, 'OWNER');
    // The scope is busy: both calls read the journey as REQUESTED, then queue for its lock, the approval first.
    const scopeLock = await holdLock(app.db, `select id from journeys where id = '${journeyId}' for update`);
    let approving: ReturnType<typeof patchStatus>;
    let cancelling: ReturnType<typeof patchStatus>;
    try {
      approving = patchStatus(app, bookingId, staff.writeHeaders, { decision: 'APPROVE' });
      await waitersOf(app.db, scopeLock.pid, 1);
      cancelling = patchStatus(app, bookingId, staff.writeHeaders, { status: 'CANCELLED', reason: 'full' });
      await waitersOf(app.db, scopeLock.pid, 2);
    } finally {
      await scopeLock.release();
    }
    const [approved, cancelled] = await Promise.all([approving, cancelling]);
    expect([approved.status, approved.body.data?.outcome], approved.text).toEqual([200, 'CONFIRMED']);
    expect([cancelled.status, cancelled.body.errorCode], cancelled.text).toEqual([
      409,
      'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
    ]);
    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.journey).toEqual({ status: 'CONFIRMED', failure_reason: null });
    expect(facts.bookings.map((booking) => booking.status)).toEqual(['CONFIRMED']);
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['CONFIRMED']);
    expect(facts.tickets.map((ticket) => ticket.status)).toEqual(['VALID']);
    expect(await requestStatus(app, journeyId)).toBe('APPROVED');
  });

  it('a rejection cancels the journey (legacy {status:"CANCELLED"} on a pending request rejects too)', async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const staff = await staffOf(app, companyId, 'DISPATCHER');
    const rejected = await patchStatus(app, bookingId, staff.writeHeaders, {
      status: 'CANCELLED',
      reason: 'full',
    });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body.data).toMatchObject({
      decision: 'REJECT',
      outcome: 'CANCELLED',
      failure_reason: 'COMPANY_REJECTED',
    });
    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED']);
    expect(await requestStatus(app, journeyId)).toBe('REJECTED');
  });

  it('refuses other roles, other companies, missing CSRF and bad bodies, leaving the request pending', async () => {
    const { companyId, journeyId, bookingId } = await requestedBooking(app);
    const dispatcher = await staffOf(app, companyId, 'DISPATCHER');
    const stranger = await staffOf(app, (await tripOf(app.db)).companyId, 'OWNER');
    const attempts: {
      headers: Record<string, string>;
      json: unknown;
      path?: string;
      status: number;
      errorCode: string;
    }[] = [
      {
        headers: (await staffOf(app, companyId, 'STAFF')).writeHeaders,
        json: { decision: 'APPROVE' },
        status: 403,
        errorCode: 'ROLE_NOT_ALLOWED',
      },
      {
        headers: (await staffOf(app, companyId, 'ACCOUNTANT')).writeHeaders,
        json: { decision: 'APPROVE' },
        status: 403,
        errorCode: 'ROLE_NOT_ALLOWED',
      },
      // Another company's booking is answered as GET /bookings/{id} answers it: as one that does not exist.
      {
        headers: stranger.writeHeaders,
        json: { decision: 'APPROVE' },
        status: 404,
        errorCode: 'BOOKING_NOT_FOUND',
      },
      {
        headers: { Cookie: dispatcher.cookie },
        json: { decision: 'APPROVE' },
        status: 403,
        errorCode: 'CSRF_TOKEN_INVALID',
      },
      { headers: {}, json: { decision: 'APPROVE' }, status: 401, errorCode: 'AUTH_REQUIRED' },
      {
        headers: dispatcher.writeHeaders,
        json: { decision: 'MAYBE' },
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      { headers: dispatcher.writeHeaders, json: {}, status: 400, errorCode: 'VALIDATION_FAILED' },
      {
        headers: dispatcher.writeHeaders,
        json: { decision: 'APPROVE', companyId },
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      {
        headers: dispatcher.writeHeaders,
        json: { decision: 'APPROVE', status: 'CONFIRMED' },
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      {
        headers: dispatcher.writeHeaders,
        json: { decision: 'APPROVE' },
        path: '/dashboard/api/bookings/abc/status',
        status: 400,
        errorCode: 'VALIDATION_FAILED',
      },
      {
        headers: dispatcher.writeHeaders,
        json: { decision: 'APPROVE' },
        path: `/dashboard/api/bookings/${randomUUID()}/status`,
        status: 404,
        errorCode: 'BOOKING_NOT_FOUND',
      },
    ];
    for (const attempt of attempts) {
      const response = await app.request(attempt.path ?? `/dashboard/api/bookings/${bookingId}/status`, {
        method: 'PATCH',
        headers: attempt.headers,
        json: attempt.json,
      });
      expect(
        { status: response.status, errorCode: response.body?.errorCode },
        JSON.stringify(attempt.json),
      ).toEqual({
        status: attempt.status,
        errorCode: attempt.errorCode,
      });
    }
    expect(await requestStatus(app, journeyId)).toBe('PENDING');
    expect((await journeyFacts(app.db, journeyId)).journey!.status).toBe('REQUESTED');
    const strangersRead = await app.request(`/dashboard/api/bookings/${bookingId}`, {
      headers: { Cookie: stranger.cookie },
    });
    expect([strangersRead.status, strangersRead.body.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);

    await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [companyId]);
    const suspended = await patchStatus(app, bookingId, dispatcher.writeHeaders, { decision: 'APPROVE' });
    expect(suspended.status).toBe(403);
    expect(suspended.body.errorCode).toBe('COMPANY_SUSPENDED');
    expect(await requestStatus(app, journeyId)).toBe('PENDING');
  });
});
