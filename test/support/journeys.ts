import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Database } from '../../db/orm.js';
import { confirmationWorkflowId } from '../../workflows/shared.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createStop,
  createTrip,
  futureDay,
  type CompanyScopeKind,
} from './factories.js';
import type { TestApp, TestResponse } from './harness.js';

/**
 * Builders for the journey hold / confirm tests: trips with known stop calls, quotes made through
 * the real API, a company's confirmation settings, and how a traveller authenticates.
 */

/** How a test traveller calls the API: a bearer token (mobile) or web cookies with the CSRF header. */
export interface Caller {
  userId: string;
  headers: Record<string, string>;
  channel: 'CUSTOMER_WEB' | 'CUSTOMER_MOBILE';
}

export async function webTraveller(
  app: TestApp,
  scope: Parameters<TestApp['signIn']>[0] = { kind: 'PRODUCTION' },
): Promise<Caller> {
  const signedIn = await app.signIn(scope);
  return { userId: signedIn.userId, headers: signedIn.writeHeaders, channel: 'CUSTOMER_WEB' };
}

export async function mobileTraveller(
  app: TestApp,
  scope: Parameters<TestApp['signIn']>[0] = { kind: 'PRODUCTION' },
): Promise<Caller> {
  const signedIn = await app.signIn(scope);
  return {
    userId: signedIn.userId,
    headers: { Authorization: `Bearer ${signedIn.token}` },
    channel: 'CUSTOMER_MOBILE',
  };
}

export interface TripFixture {
  companyId: string;
  tripId: string;
  stopCallIds: string[];
  seatCount: number;
}

/** A company (of the given scope) with a bus of `rows` rows of four seats and one trip over three stops, in `days` days. */
export async function tripOf(
  db: Database,
  options: {
    scope?: CompanyScopeKind;
    rows?: number;
    days?: number;
    companyId?: string;
    from?: { id: string; cityId: string };
    to?: { id: string; cityId: string };
    departAt?: Date;
  } = {},
): Promise<TripFixture & { stops: { id: string; cityId: string }[] }> {
  const companyId =
    options.companyId ?? (await createCompany(db, { scope: options.scope ?? 'PRODUCTION' })).id;
  const bus = await createBus(db, companyId, { rows: options.rows ?? 10, pattern: '2+2' });
  const origin = options.from ?? (await createStop(db, (await createCity(db)).id));
  const middle = await createStop(db, (await createCity(db)).id);
  const destination = options.to ?? (await createStop(db, (await createCity(db)).id));
  const trip = await createTrip(db, {
    companyId,
    busId: bus.id,
    departAt: options.departAt ?? atDamascus(futureDay(options.days ?? 3), '08:00'),
    calls: [
      { stop: origin, at: 0 },
      { stop: middle, at: 90, dwell: 10 },
      { stop: destination, at: 180 },
    ],
  });
  return {
    companyId,
    tripId: trip.id,
    stopCallIds: trip.stopCallIds,
    seatCount: bus.seatCount,
    stops: [origin, middle, destination],
  };
}

/**
 * Two companies, one trip each, meeting at a shared stop: the second leaves 60 minutes after the
 * first arrives, so a quote over both is a connection with one change.
 */
export async function connection(db: Database) {
  const shared = await createStop(db, (await createCity(db)).id);
  const day = futureDay(4);
  const first = await tripOf(db, { to: shared, departAt: atDamascus(day, '06:00') });
  const second = await tripOf(db, { from: shared, departAt: atDamascus(day, '10:00') });
  return { first, second };
}

export interface LegChoice {
  trip: TripFixture;
  /** Indexes into trip.stopCallIds; the whole trip by default. */
  board?: number;
  alight?: number;
  assignments?: string[];
}

/** POST /journeys/quote through the API; returns the quote data (quote_id, journey_id, ...). */
export async function quote(app: TestApp, caller: Caller | null, legs: LegChoice[], partySize = 1) {
  const response = await app.request('/api/journeys/quote', {
    method: 'POST',
    headers: caller?.headers ?? {},
    json: {
      party_size: partySize,
      legs: legs.map((leg) => ({
        trip_id: leg.trip.tripId,
        board_stop_call_id: leg.trip.stopCallIds[leg.board ?? 0],
        alight_stop_call_id: leg.trip.stopCallIds[leg.alight ?? leg.trip.stopCallIds.length - 1],
      })),
      resources: legs.map((leg, index) => ({
        leg_sequence: index + 1,
        resource_code: 'SEAT',
        quantity: partySize,
        assignments: leg.assignments ?? [],
      })),
      idempotency_key: `quote-${randomUUID()}`,
    },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.data as {
    quote_id: string;
    journey_id: string;
    party_size: number;
    total_price: number;
  };
}

export async function setConfirmation(
  db: Database,
  companyId: string,
  settings: { mode: 'AUTO_CONFIRM' | 'MANUAL_CONFIRM'; window?: number; channels?: string[] },
): Promise<void> {
  await db.query(
    `insert into company_booking_settings (company_id, mode, decision_window_minutes, channels) values ($1, $2, $3, $4)
     on conflict (company_id) do update set mode = excluded.mode, decision_window_minutes = excluded.decision_window_minutes,
       channels = excluded.channels`,
    [
      companyId,
      settings.mode,
      settings.window ?? 15,
      settings.channels ?? ['CUSTOMER_WEB', 'CUSTOMER_MOBILE', 'RESELLER'],
    ],
  );
}

export const travellers = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ name: `Traveller ${index + 1}` }));

export function holdJourney(
  app: TestApp,
  caller: Caller,
  journeyId: string,
  body: Record<string, unknown>,
): Promise<TestResponse> {
  return app.request(`/api/journeys/${journeyId}/hold`, {
    method: 'POST',
    headers: caller.headers,
    json: body,
  });
}

export function confirmJourney(
  app: TestApp,
  caller: Caller,
  journeyId: string,
  body: Record<string, unknown>,
): Promise<TestResponse> {
  return app.request(`/api/journeys/${journeyId}/confirm`, {
    method: 'POST',
    headers: caller.headers,
    json: body,
  });
}

export function holdOrder(
  app: TestApp,
  caller: Caller,
  orderId: string,
  journeyIds: string[],
): Promise<TestResponse> {
  return app.request(`/api/journey-orders/${orderId}/hold`, {
    method: 'POST',
    headers: caller.headers,
    json: { journey_ids: journeyIds },
  });
}

/** Confirms the order's hold, each journey with as many travellers as its party, under a new key. */
export function confirmOrder(
  app: TestApp,
  caller: Caller,
  orderId: string,
  holdBatchId: string,
  journeys: { journeyId: string; partySize: number }[],
): Promise<TestResponse> {
  return app.request(`/api/journey-orders/${orderId}/confirm`, {
    method: 'POST',
    headers: caller.headers,
    json: {
      hold_batch_id: holdBatchId,
      journeys: journeys.map(({ journeyId, partySize }) => ({
        journey_id: journeyId,
        travellers: travellers(partySize),
      })),
      idempotency_key: `order-${randomUUID()}`,
    },
  });
}

/** Quote and hold one journey; returns the answers and the body that confirms it (under a new key). */
export async function holdForConfirm(app: TestApp, caller: Caller, legs: LegChoice[], partySize = 1) {
  const quoted = await quote(app, caller, legs, partySize);
  const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
  expect(held.status, held.text).toBe(200);
  const confirmBody = {
    quote_id: quoted.quote_id,
    hold_batch_id: held.body.data.holdBatchId as string,
    travellers: travellers(partySize),
    idempotency_key: `confirm-${randomUUID()}`,
  };
  return { quoted, held, confirmBody, journeyId: quoted.journey_id };
}

/** Quote, hold and confirm one journey; returns every intermediate answer. */
export async function bookJourney(app: TestApp, caller: Caller, legs: LegChoice[], partySize = 1) {
  const { quoted, held, confirmBody, journeyId } = await holdForConfirm(app, caller, legs, partySize);
  const confirmed = await confirmJourney(app, caller, journeyId, confirmBody);
  expect(confirmed.status, confirmed.text).toBe(200);
  return { quoted, held, confirmed, journeyId };
}

/**
 * Reads until `done`, and gives up with the last value only once a read that started more than
 * `withinMs` after `since` still did not show it. Each read is judged by when it started, not when
 * it answered: the API consults its platform state while it serves the read, so a read slowed by a
 * loaded machine does not count against the change.
 */
export async function startedWithin<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  since: number,
  withinMs: number,
): Promise<T> {
  for (;;) {
    const startedAt = Date.now();
    const value = await read();
    if (done(value) || startedAt - since > withinMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Polls `read` until `done` holds (the workflow acts on its own clock) or the time runs out, and
 * answers the last value either way: the caller must assert it (`expect(await eventually(...))`).
 * A wait whose condition must come true before the test goes on is `waitUntil`, which throws.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A value for a failure message: JSON, cut to 500 characters (or String() when JSON cannot show it). */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 500 ? `${text.slice(0, 500)}...` : text;
}

/**
 * Polls `read` until `done` holds and answers that value; throws, naming `what` was awaited and the
 * last value read, once `timeoutMs` have passed without it. For a wait whose condition must come
 * true before the test goes on (a bare `await eventually(...)` would go on silently).
 */
export async function waitUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
  what = 'the awaited condition',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until)
      throw new Error(`waited ${timeoutMs} ms for ${what}; it never came true (last value: ${shown(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The id of the journey's booking with `companyId` (one booking per company and journey). */
export async function bookingOfCompany(db: Database, journeyId: string, companyId: string): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `select id from bookings where journey_id = $1 and company_id = $2`,
    [journeyId, companyId],
  );
  return row!.id;
}

/** The journey row and what it holds, straight from the database. */
export async function journeyFacts(db: Database, journeyId: string) {
  const [journey] = await db.query<{ status: string; failure_reason: string | null }>(
    `select status, failure_reason from journeys where id = $1`,
    [journeyId],
  );
  const allocations = await db.query<{ status: string; seat_id: string; trip_id: string }>(
    `select status, seat_id, trip_id from seat_allocations where owner_id = $1 order by seat_id`,
    [journeyId],
  );
  const tickets = await db.query<{ status: string; signature: string | null; boarding_authorized: boolean }>(
    `select status, signature, boarding_authorized from journey_tickets where journey_id = $1`,
    [journeyId],
  );
  const bookings = await db.query<{ id: string; status: string; company_id: string }>(
    `select id, status, company_id from bookings where journey_id = $1 order by company_id`,
    [journeyId],
  );
  return { journey, allocations, tickets, bookings };
}

/** Whether a confirmation workflow was ever started for this journey (or order). */
export async function workflowExists(
  app: TestApp,
  scopeId: string,
  kind: 'JOURNEY' | 'ORDER' = 'JOURNEY',
): Promise<boolean> {
  try {
    await app.temporal.workflow.getHandle(confirmationWorkflowId({ kind, id: scopeId })).describe();
    return true;
  } catch {
    return false;
  }
}
