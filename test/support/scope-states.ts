import { expect } from 'vitest';
import type { Database } from '../../db/orm.js';
import type { TestApp, TestResponse } from './harness.js';
import { staffSession } from './journey-rows.js';
import {
  bookingOfCompany,
  confirmJourney,
  holdForConfirm,
  mobileTraveller,
  setConfirmation,
  tripOf,
} from './journeys.js';
import type { StaffRole } from './staff.js';

/**
 * Journeys and orders brought to a state of SPEC "Journey confirmation" through the API, and the
 * rows a refused hold, release, confirm or company decision must leave as they were.
 */

/** A journey (scopeId = journey id) or an order (scopeId = order id), its journeys and their trips. */
export interface ScopeRows {
  scopeId: string;
  journeyIds: string[];
  tripIds: string[];
}

/** Every row a hold, release, confirm or decision of the scope may write (the idempotency records aside). */
export async function scopeSnapshot(db: Database, scope: ScopeRows) {
  const { scopeId, journeyIds, tripIds } = scope;
  const byJourney = (table: string, column: string) =>
    db.query(`select * from ${table} where ${column} = any($1::uuid[]) order by id`, [journeyIds]);
  return {
    orders: await db.query(`select * from journey_orders where id = $1`, [scopeId]),
    journeys: await byJourney('journeys', 'id'),
    batches: await db.query(`select * from hold_batches where scope_id = $1 order by id`, [scopeId]),
    requests: await db.query(`select * from confirmation_requests where scope_id = $1 order by id`, [
      scopeId,
    ]),
    allocations: await db.query(
      `select * from seat_allocations where trip_id = any($1::uuid[]) order by id`,
      [tripIds],
    ),
    tickets: await byJourney('journey_tickets', 'journey_id'),
    bookings: await byJourney('bookings', 'journey_id'),
    // The events, not the relay's marker: the webhook relay sets dispatched_at on its own clock.
    outbox: await db.query(
      `select id, event, booking_id, data, occurred_at from outbox_events
        where booking_id in (select id from bookings where journey_id = any($1::uuid[])) order by id`,
      [journeyIds],
    ),
  };
}

/** A member of the company (DISPATCHER unless named) sends PATCH /dashboard/api/bookings/{id}/status. */
export async function decideBooking(
  app: TestApp,
  companyId: string,
  bookingId: string,
  body: Record<string, unknown>,
  role: StaffRole = 'DISPATCHER',
): Promise<TestResponse> {
  const staff = await staffSession(app.db, app.config, companyId, role);
  return app.request(`/dashboard/api/bookings/${bookingId}/status`, {
    method: 'PATCH',
    headers: staff.writeHeaders,
    json: body,
  });
}

/** The company rejects the request of booking `bookingId` (200): its journey, or order, is CANCELLED. */
export async function rejectRequest(app: TestApp, companyId: string, bookingId: string): Promise<void> {
  const rejected = await decideBooking(app, companyId, bookingId, { decision: 'REJECT', reason: 'full' });
  expect(rejected.status, rejected.text).toBe(200);
}

export type SettledJourneyState = 'CONFIRMED' | 'REQUESTED' | 'CANCELLED';

/**
 * A one-leg journey of a new traveller, held and confirmed through the API: CONFIRMED (its company
 * confirms automatically), REQUESTED (its company decides) or CANCELLED (the company rejected it).
 */
export async function journeyIn(app: TestApp, state: SettledJourneyState) {
  const caller = await mobileTraveller(app);
  const trip = await tripOf(app.db);
  if (state !== 'CONFIRMED') await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
  const { quoted, held, confirmBody, journeyId } = await holdForConfirm(app, caller, [{ trip }]);
  const confirmed = await confirmJourney(app, caller, journeyId, confirmBody);
  expect(confirmed.status, confirmed.text).toBe(200);
  const bookingId = await bookingOfCompany(app.db, journeyId, trip.companyId);
  if (state === 'CANCELLED') await rejectRequest(app, trip.companyId, bookingId);
  const [journey] = await app.db.query<{ status: string }>(`select status from journeys where id = $1`, [
    journeyId,
  ]);
  expect(journey!.status).toBe(state);
  const scope: ScopeRows = { scopeId: journeyId, journeyIds: [journeyId], tripIds: [trip.tripId] };
  return {
    caller,
    trip,
    quoted,
    holdBatchId: held.body.data.holdBatchId as string,
    confirmBody,
    bookingId,
    scope,
  };
}
