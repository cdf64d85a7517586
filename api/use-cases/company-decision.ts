import { findCompanyBooking, readScopeStateWithBooking, scopeOfJourney } from '../../db/queries/journeys.js';
import {
  decisionOfChange,
  type ConfirmationScope,
  type Decision,
  type StatusChange,
} from '../../domain/journey-confirmation.js';
import { bookingNotFound } from '../../domain/booking-rules.js';
import type { Logger } from '../../config/logger.js';
import type { SigningOptions } from '../../db/writes/boarding-credentials.js';
import {
  recordDecision,
  releaseOverdueScope,
  type DecisionInput,
  type DecisionOutcome,
} from '../../db/writes/journeys/index.js';
import type { CompanyRole, StaffPrincipal } from '../auth/staff-session.js';
import type { DecidedContext } from '../temporal/journey-confirmation-client.js';
import { actingMember, ownedByCompany } from '../dashboard/guards.js';
import { Refusal } from '../http/errors.js';
import type { JourneyConfirmationDeps } from './journey-confirmation.js';

/**
 * A company's decision on a journey request (SPEC "Company decision on a journey request"),
 * reached through the compatibility booking row: the decision is one transaction
 * (db/writes/journeys/decide.ts), then a signal wakes the journey's confirmation workflow, which
 * waits for the decisions and enforces the deadline; the answer is the outcome the decision leaves.
 */

export interface DecisionDeps extends JourneyConfirmationDeps {
  /** config.SIGNING_PRIVATE_KEY_PEM: the last approval signs the boarding credentials. */
  signing: SigningOptions;
  logger: Logger;
}

/**
 * A decision (a company's, or the platform's when it suspends one) committed in one transaction,
 * then told to the scope's workflow. If that signal is lost, the decision stands: the workflow
 * settles the scope from the database at its deadline. A scope with a request past its deadline
 * (any company's) closed then: it is released first, in its own transaction, as a read releases it
 * (DECISION_DEADLINE_PASSED, whether or not a worker runs), and the decision then finds it closed
 * (409 JOURNEY_CONFIRMATION_STATE_CONFLICT; a repeat of a decision made before answers as it stands).
 */
export async function decideRequest(
  deps: DecisionDeps,
  scope: ConfirmationScope,
  decision: Omit<DecisionInput, 'scope'>,
): Promise<DecisionOutcome> {
  await releaseOverdueScope(deps.db, scope);
  const decided = await recordDecision(deps.db, { scope, ...decision }, deps.signing);
  await tellDecided(
    deps,
    { scope, ownerUserId: decided.ownerUserId, companyId: decision.companyId },
    { outcome: decided.outcome, pendingCompanyIds: decided.pendingCompanyIds },
  );
  return decided;
}

/** What a committed decision left the scope: its outcome and the companies still deciding. */
export type DecidedOutcome = Parameters<DecisionDeps['workflow']['noteDecision']>[1];

/**
 * Tells the scope's workflow, after the commit, what a decision left (a company's, the platform's,
 * or a trip CANCEL that ended the scope: api/use-cases/trip-dispatch.ts). A lost signal is logged
 * and fails nothing: the workflow settles the scope from the database at its deadline.
 */
export async function tellDecided(
  deps: Pick<DecisionDeps, 'workflow' | 'logger'>,
  decided: DecidedContext,
  outcome: DecidedOutcome,
): Promise<void> {
  try {
    await deps.workflow.noteDecision(decided, outcome);
  } catch (error) {
    deps.logger.warn(
      { err: error, scope: decided.scope },
      'decision committed but not signalled: its deadline settles it',
    );
  }
}

/** SPEC: a company's decision is for OWNER, ADMIN or DISPATCHER (the route's guard and the transaction's check). */
export const DECIDING_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER'] as const satisfies readonly CompanyRole[];

const conflict = () =>
  new Refusal(
    409,
    'JOURNEY_CONFIRMATION_STATE_CONFLICT',
    'There is no open confirmation request of this company for this booking',
  );

/**
 * The session company's decision on its request in the scope, keyed by that request (a retry of the
 * same decision answers the scope as it stands; any other on a closed request conflicts). The
 * member is read again in the decision's transaction: one demoted, deactivated or signed out while
 * the decision waited (for its trips, its journey, its company's row) is refused as their next
 * request would be, and nothing is decided.
 */
async function decide(
  deps: DecisionDeps,
  staff: StaffPrincipal,
  scope: ConfirmationScope,
  { decision, change }: { decision: Decision; change: StatusChange },
  reason: string | undefined,
): Promise<void> {
  try {
    await decideRequest(deps, scope, {
      companyId: staff.companyId,
      decision,
      change,
      actorId: staff.staffUserId,
      member: actingMember(staff, DECIDING_ROLES),
      ...(reason ? { reason } : {}),
    });
  } catch (error) {
    if (error instanceof Refusal && error.code === 'JOURNEY_CONFIRMATION_STATE_CONFLICT') throw conflict();
    throw error;
  }
}

/** PATCH /bookings/{id}/status: the session's company decides the request of the booking's journey. */
export async function decideBooking(
  deps: DecisionDeps,
  staff: StaffPrincipal,
  bookingId: string,
  change: StatusChange & { reason?: string | undefined },
) {
  const booking = ownedByCompany(staff, await findCompanyBooking(deps.db, bookingId), bookingNotFound);
  if (!booking.journey_id) throw conflict();
  // What the change asks for, whatever the scope's status; whether that status still allows it
  // (a legacy CANCELLED of a confirmed journey does not) is read under the scope's lock, so a call
  // an approval overtook answers as one made after it (db/writes/journeys/decide.ts `change`).
  const read = decisionOfChange(change, null);
  if (read.refusal) throw new Refusal(read.refusal.status, read.refusal.code, read.refusal.message);
  const { decision } = read;
  const scope = scopeOfJourney(booking.journey_id, booking.order_id);
  await decide(deps, staff, scope, { decision, change }, change.reason);
  const { bookingStatus, ...state } = await readScopeStateWithBooking(deps.db, scope, bookingId);
  return {
    id: booking.id,
    decision,
    outcome:
      state.confirmation.status === 'REQUESTED' || state.confirmation.status === 'CONFIRMED'
        ? state.confirmation.status
        : 'CANCELLED',
    booking: { status: bookingStatus },
    ...state,
  };
}
