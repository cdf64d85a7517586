import { isTravellerAction, type TripAction } from '../../../domain/trip-dispatch.js';
import type { Database } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { lockActingMember } from '../acting-member.js';
import { lockActiveCompany } from '../active-company.js';
import { awardTripPoints } from '../loyalty/index.js';
import { applyTravellerAction } from './attendance.js';
import { applyTripAction } from './trip-actions.js';
import {
  lockTrip,
  type DispatchCommand,
  type DispatchResult,
  type LockedTrip,
  type Queryable,
} from './trip.js';

/**
 * The trip operations room's ONE transition (SPEC "Trip dispatch actions"): every dispatch action,
 * whichever door it comes through (POST /dashboard/api/trips/{id}/dispatch, the legacy PATCH
 * /trips/{id}, POST /trips/bulk, the driver app's scan), is `applyDispatch`. One company-scoped
 * transaction locks the company (FOR SHARE, still ACTIVE), the trip (only the session company's
 * trips are found), then the traveller, checks the sequence (domain/trip-dispatch.ts) and the
 * readiness, syncs the seat assignment and the booking rows, records outbox events, and writes the
 * operations log. A refusal is thrown before anything is written.
 */

/** The transition inside the caller's transaction (the driver app's scan runs it beside its scan record). */
export async function applyDispatch(
  client: Queryable,
  command: DispatchCommand,
  /** The trip, when the caller's transaction already holds it FOR SHARE (a traveller action only). */
  shared?: LockedTrip,
): Promise<DispatchResult> {
  const action = command.action;
  // The company first, as every company-scoped write takes it (db/writes/active-company.ts): a
  // suspension committed while the request waited refuses the action. A caller holding the trip
  // (the driver app's scan) took the company before it.
  if (!shared) await lockActiveCompany(client, command.companyId, 'share');
  if (!shared && command.member) await lockActingMember(client, command.companyId, command.member);
  if (isTravellerAction(action)) {
    if (!command.item) throw new Error(`${action} needs a manifest item`);
    const trip = shared ?? (await lockTrip(client, command, 'share'));
    return applyTravellerAction(client, trip, { ...command, action, item: command.item });
  }
  const trip = await lockTrip(client, command, 'update');
  return applyTripAction(client, trip, { ...command, action: action satisfies TripAction });
}

/**
 * The transition in a transaction of its own. After a COMPLETE commits, the trip's bookings earn
 * their loyalty points and referral rewards under the terms that COMPLETE settled on the trip
 * (awardTripPoints credits each booking once, so a replayed COMPLETE finishes an earning a crash
 * interrupted, under those terms, and credits nothing twice; a trip completed while the programme
 * was off has none and never earns).
 */
export async function dispatchTrip(db: Database, command: DispatchCommand): Promise<DispatchResult> {
  const result = await withDeadlockRetry(() => db.transaction((client) => applyDispatch(client, command)));
  if (command.action === 'COMPLETE') result.loyalty = await awardTripPoints(db, command.tripId);
  return result;
}
