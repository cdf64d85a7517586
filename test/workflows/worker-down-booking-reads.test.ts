import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness.js';
import { cancelledEvents, decisionWindowRanOut, staffSession } from '../support/journey-rows.js';
import {
  bookJourney,
  journeyFacts,
  mobileTraveller,
  setConfirmation,
  tripOf,
  type Caller,
} from '../support/journeys.js';
import { usePrivateDatabase } from '../support/private-database.js';

/**
 * SPEC "Journey confirmation": REQUESTED --decision deadline passes--> cancelled scope (resources
 * released, failure_reason set), and every channel uses the same projection. README: the deadline is
 * kept lazily, as a hold's end is: the booking and ticket reads, the documents and a traveller's
 * cancel or modify release an overdue request first, as GET /journeys/{id} does. This file runs on a
 * database of its own with a task queue nobody polls: no workflow runs and no worker sweeps, so only
 * the routes themselves can keep the deadline (review 418).
 */
const database = usePrivateDatabase('workerdownreads');
const app = useTestApp({ DATABASE_URL: database.url, TEMPORAL_TASK_QUEUE: `nobody-polls-${randomUUID()}` });

/** A traveller's journey on a company that decides within 15 minutes: REQUESTED, and its booking. */
async function requestedJourney() {
  const trip = await tripOf(app.db);
  await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 15 });
  const traveller = await mobileTraveller(app);
  const { confirmed, journeyId } = await bookJourney(app, traveller, [{ trip }]);
  expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
  const [booking] = await app.db.query<{ id: string }>(`select id from bookings where journey_id = $1`, [
    journeyId,
  ]);
  return { trip, traveller, journeyId, bookingId: booking!.id };
}

/** The booking as GET /bookings/{id} and GET /bookings show it: status, confirmation status, failure_reason. */
async function travellerView(traveller: Caller, bookingId: string) {
  const detail = await app.request(`/api/bookings/${bookingId}`, { headers: traveller.headers });
  const list = await app.request(`/api/bookings`, { headers: traveller.headers });
  const row = (list.body.data.items as { id: string }[]).find((item) => item.id === bookingId) as any;
  const shown = (booking: any) => [booking.status, booking.confirmation?.status, booking.failure_reason];
  return { detail: shown(detail.body.data), list: shown(row) };
}

describe('a request past its decision deadline, no worker running: what each booking read and change shows', () => {
  it('GET /bookings/{id} and GET /bookings agree with GET /journeys/{id}: not REQUESTED once the deadline passed', async () => {
    const { trip, traveller, journeyId, bookingId } = await requestedJourney();
    await decisionWindowRanOut(app.db, [journeyId]);

    // The booking reads first (a traveller opening "my bookings"), before any journey read released it.
    const seen = await travellerView(traveller, bookingId);
    const staff = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    const dashboard = await app.request(`/dashboard/api/bookings/${bookingId}`, {
      headers: { Cookie: staff.cookie },
    });
    const journey = await app.request(`/api/journeys/${journeyId}`, { headers: traveller.headers });
    expect(journey.body.data.confirmation.status).toBe('CANCELLED');
    expect({ ...seen, dashboard: dashboard.body.data?.status }).toEqual({
      detail: ['CANCELLED', 'CANCELLED', 'DECISION_DEADLINE_PASSED'],
      list: ['CANCELLED', 'CANCELLED', 'DECISION_DEADLINE_PASSED'],
      dashboard: 'CANCELLED',
    });
  });

  it("the company's booking list releases it too, before any other read", async () => {
    const { trip, journeyId, bookingId } = await requestedJourney();
    await decisionWindowRanOut(app.db, [journeyId]);
    const staff = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    const list = await app.request(`/dashboard/api/bookings`, { headers: { Cookie: staff.cookie } });
    const row = (list.body.data as { id: string; status: string; failure_reason: string | null }[]).find(
      (item) => item.id === bookingId,
    );
    expect([row?.status, row?.failure_reason]).toEqual(['CANCELLED', 'DECISION_DEADLINE_PASSED']);
    expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
      status: 'CANCELLED',
      failure_reason: 'DECISION_DEADLINE_PASSED',
    });
  });

  it('a request whose deadline is still ahead stays PENDING_CONFIRMATION on every read', async () => {
    const { traveller, journeyId, bookingId } = await requestedJourney();
    expect(await travellerView(traveller, bookingId)).toEqual({
      detail: ['PENDING_CONFIRMATION', 'REQUESTED', null],
      list: ['PENDING_CONFIRMATION', 'REQUESTED', null],
    });
    expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
      status: 'REQUESTED',
      failure_reason: null,
    });
  });

  it("the traveller's cancel of it is not answered 409 BOOKING_AWAITING_COMPANY: no company is deciding any more", async () => {
    const { traveller, journeyId, bookingId } = await requestedJourney();
    await decisionWindowRanOut(app.db, [journeyId]);
    const cancel = await app.request(`/api/bookings/${bookingId}/cancel`, {
      method: 'POST',
      headers: traveller.headers,
    });
    expect([cancel.status, cancel.body.errorCode], cancel.text).not.toEqual([
      409,
      'BOOKING_AWAITING_COMPANY',
    ]);
    // README: cancelling a cancelled booking changes nothing. The deadline cancelled it, once.
    expect([cancel.status, cancel.body.data?.status, cancel.body.data?.failure_reason]).toEqual([
      200,
      'CANCELLED',
      'DECISION_DEADLINE_PASSED',
    ]);
    expect(cancel.body.data.cancelled_with_booking_ids).toEqual([]);
    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    expect(new Set(facts.allocations.map((allocation) => allocation.status))).toEqual(new Set(['RELEASED']));
    expect(await cancelledEvents(app.db, journeyId)).toBe(1);
  });

  it('a modify of it is refused as a cancelled booking is, not 409 BOOKING_AWAITING_COMPANY', async () => {
    const { trip, traveller, journeyId, bookingId } = await requestedJourney();
    await decisionWindowRanOut(app.db, [journeyId]);
    const modify = await app.request(`/api/bookings/${bookingId}`, {
      method: 'PATCH',
      headers: traveller.headers,
      json: { action: 'modify', newTripId: trip.tripId, newSeatNumbers: ['4'] },
    });
    expect([modify.status, modify.body.errorCode, modify.body.details], modify.text).toEqual([
      409,
      'BOOKING_NOT_MODIFIABLE',
      { status: 'CANCELLED' },
    ]);
    expect(await cancelledEvents(app.db, journeyId)).toBe(1);
  });

  it('GET /tickets and the ticket document agree too: no ticket still PENDING_CONFIRMATION once the deadline passed', async () => {
    const { traveller, journeyId, bookingId } = await requestedJourney();
    await decisionWindowRanOut(app.db, [journeyId]);
    const tickets = await app.request(`/api/tickets`, { headers: traveller.headers });
    const document = await app.request(`/api/bookings/${bookingId}/document?type=ticket&locale=en`, {
      headers: traveller.headers,
    });
    const mine = JSON.stringify(tickets.body.data);
    expect({
      pendingTicketListed: mine.includes('PENDING_CONFIRMATION'),
      document: [document.status, document.body.errorCode],
    }).toEqual({ pendingTicketListed: false, document: [410, 'DOCUMENT_GONE'] });
  });
});
