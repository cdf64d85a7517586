import {
  findCompanyBooking,
  findConfirmationRequest,
  readScopeState,
  scopeOfJourney,
} from '../../db/queries/journeys.js';
import {
  decisionKey,
  decisionOfChange,
  decisionStep,
  type ConfirmationScope,
  type Decision,
  type StatusChange,
} from '../../domain/journey-confirmation.js';
import type { StaffPrincipal } from '../auth/staff-session.js';
import { ownedByCompany } from '../dashboard/guards.js';
import { Refusal } from '../http/errors.js';
import type { JourneyConfirmationDeps } from './journey-confirmation.js';

/**
 * A company's decision on a journey request (SPEC "Company decision on a journey request"),
 * reached through the compatibility booking row: the decision goes to the journey's confirmation
 * workflow and the answer is the outcome it leaves.
 */

const conflict = () =>
  new Refusal(
    409,
    'JOURNEY_CONFIRMATION_STATE_CONFLICT',
    'There is no open confirmation request of this company for this booking',
  );

/** Sends the company's decision unless this very decision was made already (a retry). */
async function decide(
  deps: JourneyConfirmationDeps,
  staff: StaffPrincipal,
  scope: ConfirmationScope,
  decision: Decision,
  reason: string | undefined,
): Promise<void> {
  const request = await findConfirmationRequest(deps.db, scope, staff.companyId);
  if (!request) throw conflict();
  const key = decisionKey(request.id, staff.companyId, decision);
  // The same decision again answers with the journey's state; any other on a closed request conflicts.
  const step = decisionStep({ decisionKey: request.decision_key, open: request.status === 'PENDING' }, key);
  if (step === 'REPEAT') return;
  if (step === 'CONFLICT') throw conflict();
  await deps.workflow.decide(scope, {
    companyId: staff.companyId,
    decision,
    actorId: staff.staffUserId,
    decisionKey: key,
    ...(reason ? { reason } : {}),
  });
}

/** PATCH /bookings/{id}/status: the session's company decides the request of the booking's journey. */
export async function decideBooking(
  deps: JourneyConfirmationDeps,
  staff: StaffPrincipal,
  bookingId: string,
  change: StatusChange & { reason?: string | undefined },
) {
  const booking = ownedByCompany(staff, await findCompanyBooking(deps.db, bookingId));
  if (!booking.journey_id) throw conflict();
  const read = decisionOfChange(change, booking.journey_status);
  if (read.refusal) throw new Refusal(read.refusal.status, read.refusal.code, read.refusal.message);
  const { decision } = read;
  const scope = scopeOfJourney(booking.journey_id, booking.order_id);
  await decide(deps, staff, scope, decision, change.reason);
  const state = await readScopeState(deps.db, scope);
  const after = (await findCompanyBooking(deps.db, bookingId))!;
  return {
    id: booking.id,
    decision,
    outcome:
      state.confirmation.status === 'REQUESTED' || state.confirmation.status === 'CONFIRMED'
        ? state.confirmation.status
        : 'CANCELLED',
    booking: { status: after.status },
    ...state,
  };
}
