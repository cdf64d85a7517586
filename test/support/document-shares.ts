import { expect } from 'vitest';
import { holdLock, waitersOf } from '../drills/support/blocking.js';
import { createCorridor } from './factories.js';
import type { SignedInTraveller, TestApp, TestResponse } from './harness.js';
import { fetchDocument } from './documents.js';
import { confirmedJourneyRows, journeyTripOf, type JourneyTrip } from './journey-rows.js';
import { waitUntil } from './journeys.js';
import { collectCash } from './payments.js';

/** The per-IP limit has its own test; test files share one client IP and would share its counter. */
export const NO_SHARE_IP_LIMIT = { SHARE_RATE_LIMIT_PER_IP_PER_MINUTE: 0 } as const;

/** Document share fixtures: bookings to share, and the calls of the share API as a client makes them. */
export interface ShareFixture {
  trip: JourneyTrip;
  companyId: string;
  owner: SignedInTraveller;
}

export async function shareFixture(app: TestApp): Promise<ShareFixture> {
  const corridor = await createCorridor(app.db);
  return {
    trip: journeyTripOf(corridor),
    companyId: corridor.company.id,
    owner: await app.signIn(),
  };
}

/** A confirmed booking of the fixture's owner (signed tickets); paid when asked, or cancelled. */
export async function shareableBooking(
  app: TestApp,
  fixture: ShareFixture,
  options: { paid?: boolean; cancelled?: boolean; owner?: SignedInTraveller } = {},
): Promise<string> {
  const rows = await confirmedJourneyRows(app.db, {
    ownerUserId: (options.owner ?? fixture.owner).userId,
    trip: fixture.trip,
    travellers: ['Rami Haddad'],
  });
  if (options.paid) await collectCash(app.db, rows.bookingId);
  if (options.cancelled) {
    await app.db.query(`update bookings set status = 'CANCELLED', updated_at = now() where id = $1`, [
      rows.bookingId,
    ]);
    await app.db.query(`update journeys set status = 'CANCELLED', closed_at = now() where id = $1`, [
      rows.journeyId,
    ]);
  }
  return rows.bookingId;
}

export interface CreatedShare {
  response: TestResponse;
  grantId: string;
  secret: string;
}

export async function createShare(
  app: TestApp,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<CreatedShare> {
  const response = await app.request('/api/document-shares', { method: 'POST', headers, json: body });
  const url = (response.body?.data?.url as string | undefined) ?? '';
  const match = /^\/share\/([0-9a-f-]{36})#token=(.+)$/.exec(url);
  return { response, grantId: match?.[1] ?? '', secret: match?.[2] ?? '' };
}

/** A new owner's confirmed booking and a VIEW share of its confirmation (201 asserted). */
export async function viewShareOfNewBooking(app: TestApp): Promise<CreatedShare & { fixture: ShareFixture }> {
  const fixture = await shareFixture(app);
  const bookingId = await shareableBooking(app, fixture);
  const created = await createShare(
    app,
    { Authorization: `Bearer ${fixture.owner.token}` },
    { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
  );
  expect(created.response.status, created.response.text).toBe(201);
  return { ...created, fixture };
}

/**
 * `send` (an accept) while another transaction holds the grant's row: it waits for the row past the
 * API's wait, so its answer comes before its share-grant step gets through. The row is let go after.
 */
export async function whileGrantRowHeld<T>(
  app: TestApp,
  grantId: string,
  send: () => Promise<T>,
): Promise<T> {
  const lock = await holdLock(
    app.db,
    `select 1 from document_share_grants where id = '${grantId}' for update`,
  );
  try {
    const pending = send();
    await waitersOf(app.db, lock.pid, 1, 20_000);
    return await pending;
  } finally {
    await lock.release();
  }
}

/** Once the share-grant workflow has no activity pending (an abandoned accept's step has ended). */
export async function noPendingShareStep(app: TestApp, grantId: string): Promise<void> {
  const handle = app.temporal.workflow.getHandle(`share-grant/${grantId}`);
  await waitUntil(
    () => handle.describe(),
    (description) => (description.raw.pendingActivities ?? []).length === 0,
    10_000,
    "the abandoned accept's activity to end (no pending activity)",
  );
}

export function previewShare(app: TestApp, grantId: string, secret: string) {
  return app.request(`/api/document-shares/${grantId}/preview`, { method: 'POST', json: { secret } });
}

export interface Accepted {
  response: TestResponse;
  /** The Set-Cookie header as sent. */
  setCookie: string;
  /** Cookie header value a browser would send back on the grant's paths. */
  cookie: string;
}

export async function acceptShare(app: TestApp, grantId: string, secret: string): Promise<Accepted> {
  const response = await app.request(`/api/document-shares/${grantId}/accept`, {
    method: 'POST',
    json: { secret },
  });
  const setCookie = response.headers.getSetCookie().find((header) => header.startsWith('bb_share=')) ?? '';
  return { response, setCookie, cookie: setCookie.split(';')[0] ?? '' };
}

export function recipientSession(app: TestApp, grantId: string, cookie: string) {
  return app.request(`/api/document-shares/${grantId}/session`, { headers: { Cookie: cookie } });
}

export function sharedDocument(
  app: TestApp,
  grantId: string,
  cookie: string,
  action: 'view' | 'download' = 'view',
  locale: 'ar' | 'en' = 'en',
) {
  return fetchDocument(app, `/api/document-shares/${grantId}/document?action=${action}&locale=${locale}`, {
    Cookie: cookie,
  });
}

/**
 * The cancellation confirmation a traveller shares of their booking, opened by its recipient: the
 * `cancellation` its snapshot prints ({cancelled_at, reason}).
 */
export async function sharedCancellation(
  app: TestApp,
  traveller: { headers: Record<string, string> },
  bookingId: string,
): Promise<unknown> {
  const created = await createShare(app, traveller.headers, {
    bookingId,
    documentKind: 'CANCELLATION_CONFIRMATION',
    presentation: 'VIEW',
  });
  expect(created.response.status, created.response.text).toBe(201);
  const accepted = await acceptShare(app, created.grantId, created.secret);
  expect(accepted.response.status, accepted.response.text).toBe(200);
  const document = await sharedDocument(app, created.grantId, accepted.cookie);
  expect(document.status, JSON.stringify(document.body)).toBe(200);
  const [snapshot] = await app.db.query<{ data: { cancellation: unknown } }>(
    `select s.data from document_access_log l join document_snapshots s on s.id = l.snapshot_id
      where l.actor_kind = 'SHARE_RECIPIENT' and l.actor_id = $1`,
    [created.grantId],
  );
  return snapshot!.data.cancellation;
}

export function revokeShare(app: TestApp, grantId: string, headers: Record<string, string>) {
  return app.request(`/api/document-shares/${grantId}/revoke`, { method: 'POST', headers });
}

export async function grantRow(app: TestApp, grantId: string) {
  const [row] = await app.db.query<{
    status: string;
    secret_hash: string;
    issuer_kind: string;
    issuer_role: string;
    booking_id: string;
  }>(
    `select status, secret_hash, issuer_kind, issuer_role, booking_id from document_share_grants where id = $1`,
    [grantId],
  );
  return row;
}

export async function sessionRows(app: TestApp, grantId: string) {
  return app.db.query<{ id: string; ended_reason: string | null; ended_at: Date | null }>(
    `select id, ended_reason, ended_at from share_recipient_sessions where grant_id = $1`,
    [grantId],
  );
}

export async function accessRows(app: TestApp, grantId: string) {
  return app.db.query<{ action: string; sha256: string; size: number }>(
    `select action, sha256, size from document_access_log where actor_kind = 'SHARE_RECIPIENT' and actor_id = $1
     order by at`,
    [grantId],
  );
}

/**
 * Polls until `check` holds (workflow timers and activities settle a moment after the clock); answers
 * the last value when the time runs out, without throwing: assert it, or use journeys.ts `waitUntil`.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 15_000,
) {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() - started > timeoutMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
