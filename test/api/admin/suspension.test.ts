import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { appContext } from '../../../api/app.js';
import { registerDashboardRoutes } from '../../../api/dashboard/index.js';
import { Surface } from '../../../api/http/route.js';
import { createLogger } from '../../../config/logger.js';
import { recordDecision } from '../../../db/writes/journeys/decide.js';
import { suspensionDecisionKey } from '../../../domain/company-moderation.js';
import { stateQuery } from '../../../workflows/journey-confirmation.contract.js';
import { workflowIds } from '../../../workflows/shared.js';
import { bookableTrip } from '../../support/bookings.js';
import { createCompany, futureDay } from '../../support/factories.js';
import { useTestApp, type TestApp, type TestResponse } from '../../support/harness.js';
import {
  createShare,
  NO_SHARE_IP_LIMIT,
  revokeShare,
  grantRow,
  shareableBooking,
  shareFixture,
} from '../../support/document-shares.js';
import {
  bookJourney,
  bookingOfCompany,
  confirmJourney,
  confirmOrder,
  connection,
  eventually,
  holdJourney,
  holdOrder,
  journeyFacts,
  mobileTraveller,
  quote,
  setConfirmation,
  travellers,
  startedWithin,
  tripOf,
} from '../../support/journeys.js';
import { staffSession } from '../../support/journey-rows.js';
import { createStaffMember, staffLogin } from '../../support/staff.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { auditRows, expectError, signedInAdmin, type AdminBrowser } from './helpers.js';

/** Every API process reads the company standing at most this long after it changed. */
const POLL_SECONDS = 1;

/**
 * A suspension takes effect at once everywhere (SPEC "Company suspension"): the company leaves
 * every inventory scope, every dashboard write of its staff is refused, its staff and drivers
 * neither issue nor revoke document shares, and its pending journey requests are ended.
 */
describe('company suspension', () => {
  const app = useTestApp({
    ...NO_SHARE_IP_LIMIT,
    PLATFORM_STATE_POLL_SECONDS: POLL_SECONDS,
    ADMIN_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_EMAIL: 10_000,
  });
  let admin: { id: string };
  let browser: AdminBrowser;

  beforeAll(async () => {
    ({ admin, browser } = await signedInAdmin(app, { role: 'ADMIN' }));
  });

  it('the company leaves search, trips, quote, hold, seat locks and confirm at once; unsuspending restores them', async () => {
    const trip = await tripOf(app.db);
    const traveller = await mobileTraveller(app);
    const searchBody = {
      origin_city_id: trip.stops[0]!.cityId,
      destination_city_id: trip.stops[2]!.cityId,
      departure_date: futureDay(3),
      passengers: 1,
    };
    const found = async () => {
      const response = await app.request('/api/journeys/search', {
        method: 'POST',
        headers: traveller.headers,
        json: searchBody,
      });
      expect(response.status).toBe(200);
      return response.text.includes(trip.tripId);
    };
    expect(await found()).toBe(true);
    const quotedBefore = await quote(app, traveller, [{ trip }]);
    const heldQuote = await quote(app, traveller, [{ trip }]);
    const held = await holdJourney(app, traveller, heldQuote.journey_id, { quote_id: heldQuote.quote_id });
    expect(held.status, held.text).toBe(200);

    expect((await browser.suspend(trip.companyId)).status).toBe(200);
    // From the answer (the suspension committed before it): gone from search within the poll
    // interval, with room for a loaded machine (three intervals), not never.
    const suspendedAt = Date.now();
    expect(await startedWithin(found, (shown) => !shown, suspendedAt, 3 * POLL_SECONDS * 1000)).toBe(false);
    expectError(
      await app.request(`/api/trips/${trip.tripId}`, { headers: traveller.headers }),
      404,
      'TRIP_NOT_FOUND',
    );
    const legacy = await app.request(
      `/api/trips?from=${searchBody.origin_city_id}&to=${searchBody.destination_city_id}&date=${searchBody.departure_date}`,
    );
    expect(legacy.status).toBe(200);
    expect(legacy.text).not.toContain(trip.tripId);
    const quoteAfter = await app.request('/api/journeys/quote', {
      method: 'POST',
      headers: traveller.headers,
      json: {
        party_size: 1,
        legs: [
          {
            trip_id: trip.tripId,
            board_stop_call_id: trip.stopCallIds[0],
            alight_stop_call_id: trip.stopCallIds[2],
          },
        ],
        resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 1, assignments: [] }],
        idempotency_key: `quote-${randomUUID()}`,
      },
    });
    expectError(quoteAfter, 404, 'TRIP_NOT_FOUND');
    expectError(
      await holdJourney(app, traveller, quotedBefore.journey_id, { quote_id: quotedBefore.quote_id }),
      404,
      'TRIP_NOT_FOUND',
    );
    const confirm = await confirmJourney(app, traveller, heldQuote.journey_id, {
      quote_id: heldQuote.quote_id,
      hold_batch_id: held.body.data.holdBatchId,
      travellers: travellers(1),
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expectError(confirm, 409, 'TRIP_NOT_BOOKABLE');
    expect((await journeyFacts(app.db, heldQuote.journey_id)).journey!.status).toBe('HELD');
    const lock = await app.request('/api/seat-locks', {
      method: 'POST',
      headers: traveller.headers,
      json: { trip_id: trip.tripId, seat_numbers: ['A1'] },
    });
    expectError(lock, 404, 'TRIP_NOT_FOUND');

    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
    expect(await eventually(found, (shown) => shown, 5_000)).toBe(true);
    const again = await quote(app, traveller, [{ trip }]);
    expect((await holdJourney(app, traveller, again.journey_id, { quote_id: again.quote_id })).status).toBe(
      200,
    );
  });

  it('a seat lock that waited for its trip while the suspension committed is refused, and locks nothing', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    // The trip row as a hold placing its seats holds it (FOR NO KEY UPDATE): a seat lock sent meanwhile waits.
    const held = await holdLock(app.db, `select 1 from trips where id = '${trip.tripId}' for no key update`);
    let answer: TestResponse;
    try {
      const lock = app.request('/api/seat-locks', {
        method: 'POST',
        headers: traveller.headers,
        json: { trip_id: trip.tripId, seat_numbers: [trip.seatNumbers[0]] },
      });
      await waitersOf(app.db, held.pid);
      // The suspension takes the company row, not the trip: it commits while the seat lock waits.
      expect((await browser.suspend(trip.companyId)).status).toBe(200);
      await held.release();
      answer = await lock;
    } finally {
      await held.release();
    }

    expectError(answer, 404, 'TRIP_NOT_FOUND');
    const locks = await app.db.query(
      `select 1 from hold_batches where owner_user_id = $1 and scope_kind = 'SEAT_LOCK'`,
      [traveller.userId],
    );
    expect(locks).toEqual([]);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });

  it('a journey hold that waited for its trip while the suspension committed is refused as any hold of the company, and holds nothing', async () => {
    const trip = await tripOf(app.db);
    const traveller = await mobileTraveller(app);
    const quoted = await quote(app, traveller, [{ trip }]);
    // The trip row as another hold placing its seats holds it (FOR NO KEY UPDATE): the hold drafts
    // its journey (the legs' keys share the row), then waits for the trip.
    const held = await holdLock(app.db, `select 1 from trips where id = '${trip.tripId}' for no key update`);
    let answer: TestResponse;
    try {
      const hold = holdJourney(app, traveller, quoted.journey_id, { quote_id: quoted.quote_id });
      await waitersOf(app.db, held.pid);
      // The suspension takes the company row, not the trip: it commits while the hold waits.
      expect((await browser.suspend(trip.companyId)).status).toBe(200);
      await held.release();
      answer = await hold;
    } finally {
      await held.release();
    }

    // The answer of a hold sent after the suspension (the first test of this file).
    expectError(answer, 404, 'TRIP_NOT_FOUND');
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.journey?.status).not.toBe('HELD');
    expect(facts.allocations).toEqual([]);
    const batches = await app.db.query(`select 1 from hold_batches where scope_id = $1`, [quoted.journey_id]);
    expect(batches).toEqual([]);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });

  /** Every state-changing route the dashboard surface declares, as registered right now. */
  function dashboardWriteRoutes(on: TestApp) {
    const context = appContext({
      config: on.config,
      db: on.db,
      temporal: on.temporal,
      logger: createLogger(on.config, 'test'),
    });
    const surface = new Surface('/dashboard/api');
    registerDashboardRoutes(surface, context);
    return surface.routes
      .map((route) => route.spec)
      .filter(
        (spec) => spec.method !== 'get' && spec.security !== 'public' && !spec.path.startsWith('/auth/'),
      )
      .map((spec) => ({
        method: spec.method.toUpperCase(),
        path: spec.path.replace(/\{\w+\}/g, () => randomUUID()),
      }));
  }

  it('every dashboard write of a suspended company answers 403 COMPANY_SUSPENDED before its input is read; reads and sign-out keep working', async () => {
    const routes = dashboardWriteRoutes(app);
    expect(routes.map((route) => `${route.method} ${route.path.replace(/[0-9a-f-]{36}/g, '{id}')}`)).toEqual(
      expect.arrayContaining([
        'PUT /settings/booking-confirmation',
        'PATCH /bookings/{id}/status',
        'POST /document-shares',
      ]),
    );
    const login = async (companyId: string) => {
      const member = await createStaffMember(app.db, companyId, 'OWNER');
      const staff = await staffLogin(app, { email: member.email, password: member.password });
      expect(staff.response.status).toBe(200);
      return staff;
    };
    const suspended = await createCompany(app.db);
    const active = await createCompany(app.db);
    const staff = await login(suspended.id);
    const control = await login(active.id);
    expect((await browser.suspend(suspended.id)).status).toBe(200);

    for (const route of routes) {
      for (const json of [{}, { unexpected: 'field' }]) {
        const response = await app.request(`/dashboard/api${route.path}`, {
          method: route.method,
          headers: staff.writeHeaders,
          json,
        });
        expect({ route, status: response.status, errorCode: response.body?.errorCode }).toEqual({
          route,
          status: 403,
          errorCode: 'COMPANY_SUSPENDED',
        });
      }
      const answer = await app.request(`/dashboard/api${route.path}`, {
        method: route.method,
        headers: control.writeHeaders,
        json: {},
      });
      expect({ route, errorCode: answer.body?.errorCode }).not.toEqual({
        route,
        errorCode: 'COMPANY_SUSPENDED',
      });
    }
    expect((await app.request('/dashboard/api/auth/me', { headers: { Cookie: staff.cookie } })).status).toBe(
      200,
    );
    expect(
      (await app.request('/dashboard/api/company/warnings', { headers: { Cookie: staff.cookie } })).status,
    ).toBe(200);
    expect(
      (await app.request('/dashboard/api/auth/logout', { method: 'POST', headers: staff.writeHeaders }))
        .status,
    ).toBe(200);
  });

  it("neither the company's staff nor its drivers may issue or revoke document shares while it is suspended", async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const owner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');
    const driver = await staffSession(app.db, app.config, fixture.companyId, 'DRIVER');
    await app.db.query(`update trips set driver_id = $1 where id = $2`, [
      driver.staffUserId,
      fixture.trip.id,
    ]);
    const ownerBearer = { Authorization: `Bearer ${owner.token}` };
    const share = { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' };
    const issued = await createShare(app, ownerBearer, share);
    expect(issued.response.status, issued.response.text).toBe(201);

    expect((await browser.suspend(fixture.companyId)).status).toBe(200);
    expectError((await createShare(app, ownerBearer, share)).response, 403, 'COMPANY_SUSPENDED');
    expectError(
      (await createShare(app, { Authorization: `Bearer ${driver.token}` }, share)).response,
      403,
      'COMPANY_SUSPENDED',
    );
    const fromDashboard = await app.request('/dashboard/api/document-shares', {
      method: 'POST',
      headers: owner.writeHeaders,
      json: share,
    });
    expectError(fromDashboard, 403, 'COMPANY_SUSPENDED');
    expectError(await revokeShare(app, issued.grantId, ownerBearer), 403, 'COMPANY_SUSPENDED');
    expectError(
      await app.request(`/dashboard/api/document-shares/${issued.grantId}/revoke`, {
        method: 'POST',
        headers: owner.writeHeaders,
      }),
      403,
      'COMPANY_SUSPENDED',
    );
    expect((await grantRow(app, issued.grantId))!.status).not.toBe('REVOKED');

    expect((await browser.unsuspend(fixture.companyId)).status).toBe(200);
    expect((await createShare(app, ownerBearer, share)).response.status).toBe(201);
    expect((await revokeShare(app, issued.grantId, ownerBearer)).status).toBe(200);
  });

  it('ends the pending journey requests of the company through their workflows: cancelled with failure_reason COMPANY_SUSPENDED', async () => {
    const trip = await tripOf(app.db);
    const otherTrip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    await setConfirmation(app.db, otherTrip.companyId, { mode: 'MANUAL_CONFIRM' });
    const traveller = await mobileTraveller(app);
    const pending = await bookJourney(app, traveller, [{ trip }]);
    const untouched = await bookJourney(app, traveller, [{ trip: otherTrip }]);
    expect(pending.confirmed.body.data.confirmation.status).toBe('REQUESTED');
    const [request] = await app.db.query<{ id: string }>(
      `select id from confirmation_requests where scope_id = $1`,
      [pending.journeyId],
    );

    const suspended = await browser.suspend(trip.companyId, 'Repeated safety violations');
    expect(suspended.status, suspended.text).toBe(200);
    expect(suspended.body.data.endedRequests).toEqual({
      cancelled: [request!.id],
      alreadyClosed: [],
      leftToDeadline: [],
    });
    const [audit] = await auditRows(app.db, trip.companyId);
    expect(audit!.details.pendingRequests).toEqual([request!.id]);

    const facts = await journeyFacts(app.db, pending.journeyId);
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'COMPANY_SUSPENDED' });
    expect(facts.allocations.every((allocation) => allocation.status === 'RELEASED')).toBe(true);
    expect(
      facts.tickets.every((ticket) => ticket.status === 'CANCELLED' && !ticket.boarding_authorized),
    ).toBe(true);
    expect(facts.bookings.map((booking) => booking.status)).toEqual(['CANCELLED']);
    const [closed] = await app.db.query(
      `select status, decided_by, reason from confirmation_requests where id = $1`,
      [request!.id],
    );
    // The platform's decision: no member decided, and the administrator's words are not the request's.
    expect(closed).toEqual({ status: 'CANCELLED', decided_by: null, reason: 'COMPANY_SUSPENDED' });
    const process = app.temporal.workflow.getHandle(workflowIds.journeyConfirmation(pending.journeyId));
    expect((await process.query(stateQuery)).phase).toBe('CANCELLED');
    const seen = await app.request(`/api/journeys/${pending.journeyId}`, { headers: traveller.headers });
    expect(seen.body.data).toMatchObject({
      confirmation: { status: 'CANCELLED' },
      failure_reason: 'COMPANY_SUSPENDED',
    });

    expect((await journeyFacts(app.db, untouched.journeyId)).journey!.status).toBe('REQUESTED');
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
    expect((await journeyFacts(app.db, pending.journeyId)).journey!.status).toBe('CANCELLED');
  });

  /**
   * A connection waiting only for the other company's decision: the suspended company's leg
   * confirmed automatically (no request) or it had approved. The suspension ends the journey all
   * the same, through the other company's pending request, so that company stops waiting and the
   * traveller sees the journey end; a journey with no leg on the company is left alone.
   */
  it('ends the journeys waiting with a leg on the company even when its own request is not pending (automatic, or approved)', async () => {
    for (const suspendedMode of ['AUTO_CONFIRM', 'MANUAL_CONFIRM'] as const) {
      const world = await connection(app.db);
      await setConfirmation(app.db, world.first.companyId, { mode: suspendedMode });
      await setConfirmation(app.db, world.second.companyId, { mode: 'MANUAL_CONFIRM' });
      const traveller = await mobileTraveller(app);
      const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }]);
      const untouched = await bookJourney(app, traveller, [{ trip: world.second }]);
      expect(booked.confirmed.body.data.confirmation.status).toBe('REQUESTED');
      const bookingOf = (companyId: string) => bookingOfCompany(app.db, booked.journeyId, companyId);
      if (suspendedMode === 'MANUAL_CONFIRM') {
        const first = await staffSession(app.db, app.config, world.first.companyId, 'OWNER');
        const approved = await app.request(
          `/dashboard/api/bookings/${await bookingOf(world.first.companyId)}/status`,
          {
            method: 'PATCH',
            headers: first.writeHeaders,
            json: { decision: 'APPROVE' },
          },
        );
        expect([approved.status, approved.body.data?.outcome], approved.text).toEqual([200, 'REQUESTED']);
      }
      const [otherRequest] = await app.db.query<{ id: string }>(
        `select id from confirmation_requests where scope_id = $1 and company_id = $2`,
        [booked.journeyId, world.second.companyId],
      );

      const suspended = await browser.suspend(world.first.companyId, 'Licence expired');
      expect(suspended.status, suspended.text).toBe(200);
      expect(suspended.body.data.endedRequests, suspendedMode).toEqual({
        cancelled: [otherRequest!.id],
        alreadyClosed: [],
        leftToDeadline: [],
      });
      const facts = await journeyFacts(app.db, booked.journeyId);
      expect(facts.journey, suspendedMode).toEqual({
        status: 'CANCELLED',
        failure_reason: 'COMPANY_SUSPENDED',
      });
      expect(facts.allocations.every((allocation) => allocation.status === 'RELEASED')).toBe(true);
      expect(
        facts.tickets.every((ticket) => ticket.status === 'CANCELLED' && !ticket.boarding_authorized),
      ).toBe(true);
      expect(facts.bookings.map((booking) => booking.status)).toEqual(['CANCELLED', 'CANCELLED']);
      const [ended] = await app.db.query(
        `select status, decided_by, reason from confirmation_requests where id = $1`,
        [otherRequest!.id],
      );
      expect(ended).toEqual({ status: 'CANCELLED', decided_by: null, reason: 'COMPANY_SUSPENDED' });
      const process = app.temporal.workflow.getHandle(workflowIds.journeyConfirmation(booked.journeyId));
      expect((await process.query(stateQuery)).phase).toBe('CANCELLED');
      const seen = await app.request(`/api/journeys/${booked.journeyId}`, { headers: traveller.headers });
      expect(seen.body.data).toMatchObject({
        confirmation: { status: 'CANCELLED' },
        failure_reason: 'COMPANY_SUSPENDED',
      });
      // The other company's decision comes too late: its request is closed.
      const second = await staffSession(app.db, app.config, world.second.companyId, 'OWNER');
      const late = await app.request(
        `/dashboard/api/bookings/${await bookingOf(world.second.companyId)}/status`,
        {
          method: 'PATCH',
          headers: second.writeHeaders,
          json: { decision: 'APPROVE' },
        },
      );
      expect([late.status, late.body.errorCode]).toEqual([409, 'JOURNEY_CONFIRMATION_STATE_CONFLICT']);
      expect((await journeyFacts(app.db, untouched.journeyId)).journey!.status).toBe('REQUESTED');
    }
  });

  /**
   * The suspension lists one other company's request per waiting journey; that company may approve
   * before the follow-up ends it (its approval is not the last: a third company still decides). The
   * follow-up's decision (run here as the follow-up runs it) then ends the journey through the
   * request still open, not leaving it waiting.
   */
  it('a listed request approved before the follow-up ends it: the order is ended through the request still open', async () => {
    // An order: a connection (the suspended company's automatic leg, then a deciding company's) and
    // a journey of a third deciding company.
    const world = await connection(app.db);
    const third = await tripOf(app.db);
    await setConfirmation(app.db, world.second.companyId, { mode: 'MANUAL_CONFIRM' });
    await setConfirmation(app.db, third.companyId, { mode: 'MANUAL_CONFIRM' });
    const caller = await mobileTraveller(app);
    const a = await quote(app, caller, [{ trip: world.first }, { trip: world.second }], 1);
    const b = await quote(app, caller, [{ trip: third }], 1);
    const orderId = randomUUID();
    const held = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmOrder(app, caller, orderId, held.body.data.holdBatchId, [
      { journeyId: a.journey_id, partySize: 1 },
      { journeyId: b.journey_id, partySize: 1 },
    ]);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    const requests = () =>
      app.db.query<{ id: string; company_id: string; status: string; decided_by: string | null }>(
        `select id, company_id, status, decided_by from confirmation_requests where scope_id = $1 order by company_id`,
        [orderId],
      );
    const [listed, other] = await requests();
    // The suspension committed (its follow-up not yet run), then the listed request's company approved.
    await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [world.first.companyId]);
    const scope = { kind: 'ORDER' as const, id: orderId };
    const approved = await recordDecision(app.db, {
      scope,
      companyId: listed!.company_id,
      decision: 'APPROVE',
      actorId: randomUUID(),
    });
    expect(approved.outcome).toBe('REQUESTED');

    const followUp = {
      scope,
      companyId: listed!.company_id,
      suspendedCompanyId: world.first.companyId,
      decision: 'REJECT' as const,
      actorId: admin.id,
      reason: 'Licence expired',
      decisionKey: suspensionDecisionKey(listed!.id, world.first.companyId),
      failureReason: 'COMPANY_SUSPENDED' as const,
    };
    expect((await recordDecision(app.db, followUp)).outcome).toBe('CANCELLED');
    // A retry of the follow-up finds its decision and answers the same.
    expect((await recordDecision(app.db, followUp)).outcome).toBe('CANCELLED');
    for (const journeyId of [a.journey_id, b.journey_id]) {
      expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
        status: 'CANCELLED',
        failure_reason: 'COMPANY_SUSPENDED',
      });
    }
    expect(await requests()).toEqual([
      { ...listed!, status: 'APPROVED', decided_by: expect.any(String) },
      { ...other!, status: 'CANCELLED', decided_by: null },
    ]);
  });

  /**
   * The other company's last approval in flight takes every leg company's row FOR SHARE: a
   * suspension of the automatic company waits for it and then finds the journey CONFIRMED, never
   * ending it. The test holds the approval's last writes (its booking rows), after its company checks.
   */
  it("a suspension meeting the other company's last approval in flight waits for it and finds the journey confirmed", async () => {
    const world = await connection(app.db);
    await setConfirmation(app.db, world.second.companyId, { mode: 'MANUAL_CONFIRM' });
    const booked = await bookJourney(app, await mobileTraveller(app), [
      { trip: world.first },
      { trip: world.second },
    ]);
    const [booking] = await app.db.query<{ id: string }>(
      `select id from bookings where journey_id = $1 and company_id = $2`,
      [booked.journeyId, world.second.companyId],
    );
    const second = await staffSession(app.db, app.config, world.second.companyId, 'OWNER');
    const held = await holdLock(
      app.db,
      `select 1 from bookings where journey_id = '${booked.journeyId}' for update`,
    );
    const approve = app.request(`/dashboard/api/bookings/${booking!.id}/status`, {
      method: 'PATCH',
      headers: second.writeHeaders,
      json: { decision: 'APPROVE' },
    });
    await waitersOf(app.db, held.pid, 1);
    const suspended = browser.suspend(world.first.companyId);
    // The suspension waits for the approval's share lock on its company row.
    await waitersOf(app.db, held.pid, 2);
    await held.release();
    const [approved, answer] = await Promise.all([approve, suspended]);
    expect([approved.status, approved.body.data?.outcome], approved.text).toEqual([200, 'CONFIRMED']);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.endedRequests).toEqual({ cancelled: [], alreadyClosed: [], leftToDeadline: [] });
    expect((await journeyFacts(app.db, booked.journeyId)).journey).toEqual({
      status: 'CONFIRMED',
      failure_reason: null,
    });
  });

  /**
   * The suspension's follow-up runs after the suspension has committed; an unsuspension may commit
   * before it ends a request. The test holds the company's requests: the first cancellation waits
   * for them, the unsuspension commits, then the cancellation finds the company active again.
   */
  it('an unsuspension committed before the suspension ends its requests leaves them pending, to their deadline', async () => {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const journeys = [
      await bookJourney(app, await mobileTraveller(app), [{ trip }]),
      await bookJourney(app, await mobileTraveller(app), [{ trip }]),
    ];
    const requests = async () =>
      app.db.query<{ id: string; status: string }>(
        `select id, status from confirmation_requests where company_id = $1 order by created_at, id`,
        [trip.companyId],
      );
    const before = await requests();
    expect(before.map((request) => request.status)).toEqual(['PENDING', 'PENDING']);
    const held = await holdLock(
      app.db,
      `select 1 from confirmation_requests where company_id = '${trip.companyId}' for update`,
    );
    const suspended = browser.suspend(trip.companyId);
    await waitersOf(app.db, held.pid, 1);
    const unsuspended = await browser.unsuspend(trip.companyId);
    expect(unsuspended.status, unsuspended.text).toBe(200);
    await held.release();
    const answer = await suspended;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.endedRequests).toEqual({
      cancelled: [],
      alreadyClosed: [],
      leftToDeadline: before.map((request) => request.id),
    });
    expect(await requests()).toEqual(before);
    for (const { journeyId } of journeys) {
      expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
        status: 'REQUESTED',
        failure_reason: null,
      });
    }
  });

  /** A MANUAL company's journey request awaiting its decision, and the company's approval of it (the decision's transaction). */
  async function requestAwaitingApproval() {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const pending = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
    const [row] = await app.db.query<{ id: string }>(
      `select id from confirmation_requests where scope_id = $1`,
      [pending.journeyId],
    );
    const request = row!;
    const approve = () =>
      recordDecision(app.db, {
        scope: { kind: 'JOURNEY', id: pending.journeyId },
        companyId: trip.companyId,
        decision: 'APPROVE',
        actorId: randomUUID(),
        decisionKey: `${request.id}:${trip.companyId}:APPROVE`,
      });
    return { trip, pending, request, approve };
  }

  it('a suspended company cannot approve a request, even one a suspension left to its deadline', async () => {
    const { trip, pending, request, approve: approval } = await requestAwaitingApproval();
    await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [trip.companyId]);
    const approve = approval();
    await expect(approve).rejects.toMatchObject({ status: 403, code: 'COMPANY_SUSPENDED' });
    const [still] = await app.db.query(`select status from confirmation_requests where id = $1`, [
      request.id,
    ]);
    expect(still).toEqual({ status: 'PENDING' });
    expect((await journeyFacts(app.db, pending.journeyId)).journey!.status).toBe('REQUESTED');
  });

  /**
   * An approval in flight while the company is suspended: the approval takes the company row FOR
   * SHARE (as the confirm does), so the suspension waits for it and then finds the request decided,
   * never listing as pending a request the suspended company then confirms. The test holds the
   * approval's last writes (its booking rows) a moment, after its company check, and suspends then.
   */
  it('a suspension meeting an approval in flight never lists as pending a request that ends CONFIRMED', async () => {
    const { trip, pending, request, approve: approval } = await requestAwaitingApproval();
    const held = await holdLock(
      app.db,
      `select 1 from bookings where journey_id = '${pending.journeyId}' for update`,
    );
    const approve = approval().then(
      (outcome) => ({ ok: true as const, outcome: outcome.outcome }),
      (error: { status?: number; code?: string }) => ({
        ok: false as const,
        status: error.status,
        code: error.code,
      }),
    );
    await waitersOf(app.db, held.pid, 1);
    const suspended = browser.suspend(trip.companyId);
    // The suspension waits for the approval's company lock, itself waiting for the bookings.
    await waitersOf(app.db, held.pid, 2);
    await held.release();
    const [approved, answer] = await Promise.all([approve, suspended]);
    expect(answer.status, answer.text).toBe(200);
    const audit = (await auditRows(app.db, trip.companyId)).find(
      (row) => row.action === 'companies.suspend',
    )!;
    const seen = {
      listedPending: (audit.details.pendingRequests as string[]).includes(request.id),
      journey: (await journeyFacts(app.db, pending.journeyId)).journey!.status,
      approved,
    };
    expect(seen).toEqual({
      listedPending: false,
      journey: 'CONFIRMED',
      approved: { ok: true, outcome: 'CONFIRMED' },
    });
  });
});
