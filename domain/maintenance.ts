import { Refusal } from './refusal.js';

/**
 * Maintenance windows: while one is active, customer and dashboard writes answer 503 MAINTENANCE
 * with Retry-After (until writes reopen); reads, sign-in and the routes listed below keep working,
 * and the administration and the driver app are never blocked.
 */
export interface MaintenanceWindow {
  id: string;
  message: string;
  startsAt: Date;
  endsAt: Date;
}

/** The window in force at `now` (the one ending last when several overlap), or null. */
export function activeWindow(windows: readonly MaintenanceWindow[], now: Date): MaintenanceWindow | null {
  let active: MaintenanceWindow | null = null;
  for (const window of windows) {
    const inForce = window.startsAt <= now && now < window.endsAt;
    if (inForce && (!active || window.endsAt > active.endsAt)) active = window;
  }
  return active;
}

/**
 * When writes reopen after `window`: its end, carried on through every window that starts at or
 * before the end reached so far (back-to-back phases of one upgrade, or overlaps). A client told
 * the end of the first window only would come back to be refused again.
 */
export function refusedUntil(windows: readonly MaintenanceWindow[], window: MaintenanceWindow): Date {
  let end = window.endsAt;
  const byStart = [...windows].sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime());
  for (const next of byStart) {
    if (next.startsAt > end) break;
    if (next.endsAt > end) end = next.endsAt;
  }
  return end;
}

/** What a refused write is told: the message of the window in force and when writes reopen. */
export interface MaintenanceRefusal {
  /** The window in force (activeWindow). */
  id: string;
  message: string;
  /** The end of the continuous refused period (refusedUntil), not necessarily this window's end. */
  endsAt: Date;
}

/** The refusal in force at `now`, or null when writes are open. */
export function maintenanceRefusal(
  windows: readonly MaintenanceWindow[],
  now: Date,
): MaintenanceRefusal | null {
  const window = activeWindow(windows, now);
  if (!window) return null;
  return { id: window.id, message: window.message, endsAt: refusedUntil(windows, window) };
}

/** Whole seconds until writes reopen, at least 1: the Retry-After of a refused write. */
export function retryAfterSeconds(refusal: Pick<MaintenanceRefusal, 'endsAt'>, now: Date): number {
  return Math.max(1, Math.ceil((refusal.endsAt.getTime() - now.getTime()) / 1000));
}

/** The surfaces maintenance applies to (ARCHITECTURE "Surfaces and addresses"). */
const BLOCKED_SURFACES = [/^\/api\//, /^\/dashboard\/api\//];

/** A write left open during maintenance: its path, and its one method when the others stay refused. */
export interface OpenWrite {
  path: RegExp;
  method?: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
}

/**
 * Writes that stay open during maintenance, each for a reason:
 * - sign-in, sign-out and session refresh of travellers and staff: without a session nobody can
 *   read their bookings, tickets and documents, which must stay reachable. Only these: the rest of
 *   /api/auth writes accounts (verifying an address, resending its link, password recovery and
 *   reset, complete-phone's account merge) and is refused like any other write;
 * - journey search and voucher preview: POSTs that read and write nothing (quote does write one);
 * - a share link's preview and accept: opening a shared document is a read for its recipient;
 * - revoking a share, on the customer API and the dashboard: while its link can still be accepted
 *   and its document opened (above), revoking is the only way to cut off a leaked link;
 * - the payment provider webhook: it writes nothing and keeps its own answer;
 * - a company's decision on a journey request (PATCH /dashboard/api/bookings/{id}/status, that
 *   method only): the request's decision deadline keeps running during a window and, once passed,
 *   cancels the journey and counts a missed deadline against the company; this is its only way to decide;
 * - the operations room's action on a trip (POST /dashboard/api/trips/{id}/dispatch, that method only,
 *   every action): the day's trips run through a window (start boarding, delay, depart, arrive,
 *   complete, cancel, and the travellers' check-in, no-show and restore), and the driver app (never
 *   blocked) boards only a trip the operations room has put in BOARDING. The bulk and legacy routes to
 *   the same actions (POST /trips/bulk, PATCH /trips/{id}) stay refused: this one is enough to run the day.
 */
export const MAINTENANCE_OPEN_WRITES: readonly OpenWrite[] = [
  { path: /^\/api\/auth\/customer\/(send-otp|verify-otp|refresh|logout)\/?$/ },
  { path: /^\/api\/auth\/customer\/idp\/(web|mobile|pwa)\/?$/ },
  { path: /^\/dashboard\/api\/auth\/(login|logout)\/?$/ },
  { path: /^\/api\/journeys\/search\/?$/ },
  { path: /^\/api\/loyalty\/preview\/?$/ },
  { path: /^\/api\/document-shares\/[^/]+\/(preview|accept|revoke)\/?$/ },
  { path: /^\/dashboard\/api\/document-shares\/[^/]+\/revoke\/?$/ },
  { path: /^\/api\/payments\/webhook(\/|$)/ },
  { method: 'PATCH', path: /^\/dashboard\/api\/bookings\/[^/]+\/status\/?$/ },
  { method: 'POST', path: /^\/dashboard\/api\/trips\/[^/]+\/dispatch\/?$/ },
];

/** Whether a request is a write that a maintenance window refuses. */
export function blockedDuringMaintenance(method: string, path: string): boolean {
  const upper = method.toUpperCase();
  if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(upper)) return false;
  const lower = path.toLowerCase();
  if (!BLOCKED_SURFACES.some((surface) => surface.test(lower))) return false;
  return !MAINTENANCE_OPEN_WRITES.some(
    (open) => (open.method === undefined || open.method === upper) && open.path.test(lower),
  );
}

/** The longest window one can schedule: a typo must not close the platform for a month. */
export const MAINTENANCE_MAX_HOURS = 72;

export type MaintenanceState = 'SCHEDULED' | 'ACTIVE' | 'ENDED' | 'CANCELLED';

/** A window's times as scheduled or changed: it ends after it starts, in the future, within the maximum. */
export function checkWindowTimes(startsAt: Date, endsAt: Date, now: Date): void {
  if (endsAt <= startsAt) {
    throw new Refusal(400, 'MAINTENANCE_WINDOW_INVALID', 'The window must end after it starts');
  }
  if (endsAt <= now) {
    throw new Refusal(400, 'MAINTENANCE_WINDOW_INVALID', 'The window must end in the future');
  }
  if (endsAt.getTime() - startsAt.getTime() > MAINTENANCE_MAX_HOURS * 3_600_000) {
    throw new Refusal(
      400,
      'MAINTENANCE_WINDOW_TOO_LONG',
      `A window lasts at most ${MAINTENANCE_MAX_HOURS} hours`,
    );
  }
}

/**
 * Whether a window in `state` may change: an ended or cancelled one never (409
 * MAINTENANCE_WINDOW_CLOSED), an active one only in its message and end (moving its start is 409
 * MAINTENANCE_WINDOW_ACTIVE; end it early by cancelling or by a new end).
 */
export function requireChangeableWindow(state: MaintenanceState, movesStart: boolean): void {
  if (state === 'ENDED' || state === 'CANCELLED') {
    throw new Refusal(409, 'MAINTENANCE_WINDOW_CLOSED', `The window is ${state.toLowerCase()}`);
  }
  if (state === 'ACTIVE' && movesStart) {
    throw new Refusal(
      409,
      'MAINTENANCE_WINDOW_ACTIVE',
      'An active window keeps its start; change its end or cancel it',
    );
  }
}
