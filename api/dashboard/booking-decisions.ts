import { z } from 'zod';
import {
  findCompanyBooking,
  findConfirmationRequest,
  readScopeState,
  scopeOfJourney,
  type CompanyBookingRow,
} from '../../db/queries/journeys.js';
import { decisionKey, type ConfirmationScope } from '../../domain/journey-confirmation.js';
import type { AppContext } from '../app.js';
import type { StaffPrincipal } from '../auth/staff-session.js';
import { journeyConfirmationClient } from '../temporal/journey-confirmation-client.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { authorize, ownedByCompany, requireActiveCompany, requireRole } from './guards.js';

const Reason = z.string().trim().min(1).max(500);

const DecisionBody = z
  .object({
    decision: z.enum(['APPROVE', 'REJECT']),
    reason: Reason.optional().meta({ description: 'kept with the decision; shown to operators' }),
  })
  .strict();

/** The shape older dashboards send: a target status for the booking row itself. */
const LegacyStatusBody = z
  .object({
    status: z.enum(['CONFIRMED', 'CANCELLED', 'CHECKED_IN', 'NO_SHOW', 'COMPLETED']),
    reason: Reason.optional(),
  })
  .strict();

const StatusBody = z.union([DecisionBody, LegacyStatusBody]).meta({
  id: 'BookingStatusChange',
  description:
    '{decision: APPROVE | REJECT, reason?} decides the journey request. The legacy {status} shape is read as a decision only ' +
    'while the request is pending (CONFIRMED = APPROVE, CANCELLED = REJECT); it never updates the booking row by itself.',
});

const Instant = z.string().meta({ format: 'date-time' });

const DecisionResponse = z.object({
  success: z.literal(true),
  data: z.object({
    id: z.string().meta({ format: 'uuid', description: 'the booking row' }),
    decision: z.enum(['APPROVE', 'REJECT']),
    outcome: z.enum(['REQUESTED', 'CONFIRMED', 'CANCELLED']).meta({
      description:
        'REQUESTED: other companies still decide; CONFIRMED: tickets signed; CANCELLED: the whole journey released',
    }),
    booking: z.object({ status: z.string() }),
    confirmation: z.object({ status: z.string(), deadline: Instant.nullable() }),
    failure_reason: z.string().nullable(),
  }),
});

const DECIDING_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER'] as const;

const conflict = () =>
  new Refusal(
    409,
    'JOURNEY_CONFIRMATION_STATE_CONFLICT',
    'There is no open confirmation request of this company for this booking',
  );

type Decision = 'APPROVE' | 'REJECT';

/**
 * What a status body asks for: a decision, or a change the journey aggregate must make (the trip
 * operations room: cancelling a confirmed journey, check-in, no-show, completion).
 */
function decisionOf(body: z.output<typeof StatusBody>, booking: CompanyBookingRow): Decision {
  if ('decision' in body) return body.decision;
  if (body.status === 'CANCELLED' && booking.journey_status === 'CONFIRMED') {
    throw new Refusal(
      409,
      'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
      'This booking is part of a confirmed journey: cancel or re-accommodate it through the trip operations room',
    );
  }
  if (body.status === 'CONFIRMED') return 'APPROVE';
  if (body.status === 'CANCELLED') return 'REJECT';
  throw new Refusal(
    409,
    'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
    'Check-in, no-show and completion belong to the trip operations room',
  );
}

export function registerBookingDecisionRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;
  const workflow = journeyConfirmationClient(context.temporal, context.config);

  const decide = async (
    staff: StaffPrincipal,
    scope: ConfirmationScope,
    decision: Decision,
    reason: string | undefined,
  ) => {
    const request = await findConfirmationRequest(db, scope, staff.companyId);
    if (!request) throw conflict();
    const key = decisionKey(request.id, staff.companyId, decision);
    // The same decision again (a retry) answers with the journey's state; any other on a closed request conflicts.
    if (request.decision_key === key) return;
    if (request.status !== 'PENDING') throw conflict();
    await workflow.decide(scope, {
      companyId: staff.companyId,
      decision,
      actorId: staff.staffUserId,
      decisionKey: key,
      ...(reason ? { reason } : {}),
    });
  };

  surface.route({
    method: 'patch',
    path: '/bookings/{id}/status',
    operationId: 'decideBooking',
    summary: 'Approve or reject a journey request (PENDING_CONFIRMATION)',
    description:
      '{id} is the compatibility booking row (GET /bookings). The company (from the session) decides its own confirmation ' +
      'request of the journey the booking belongs to; roles OWNER, ADMIN or DISPATCHER of an active company; CSRF header. ' +
      "The decision reaches the journey's confirmation process and the answer is its outcome: the last approval confirms the " +
      'whole journey (tickets signed, boarding authorized); a rejection cancels all of it (seats released, failure_reason ' +
      'COMPANY_REJECTED). Idempotent by the fixed key `{confirmationRequestId}:{companyId}:{decision}`: the same decision again ' +
      'answers 200 with the current state. No open request for this company (none, already decided otherwise, expired or ' +
      'cancelled) is 409 JOURNEY_CONFIRMATION_STATE_CONFLICT and nothing else is changed: there is no fallback to editing the ' +
      'booking row. The legacy body {status:"CANCELLED"} on a booking of a confirmed journey is 409 ' +
      'JOURNEY_AGGREGATE_OPERATION_REQUIRED (cancellation and re-accommodation go through the trip operations room), as are ' +
      'CHECKED_IN, NO_SHOW and COMPLETED.',
    tags: ['Dashboard: bookings'],
    security: 'companyStaff',
    params: IdParams,
    body: StatusBody,
    responses: {
      200: { description: 'The decision and its outcome', schema: DecisionResponse },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
    handler: async (ctx, { params, body }) => {
      const staff = authorize(ctx, requireRole(...DECIDING_ROLES), requireActiveCompany);
      const booking = ownedByCompany(staff, await findCompanyBooking(db, params.id));
      if (!booking.journey_id) throw conflict();
      const decision = decisionOf(body, booking);
      const scope = scopeOfJourney(booking.journey_id, booking.order_id);
      await decide(staff, scope, decision, body.reason);
      const state = await readScopeState(db, scope);
      const after = (await findCompanyBooking(db, params.id))!;
      ctx.body = {
        success: true,
        data: {
          id: booking.id,
          decision,
          outcome:
            state.confirmation.status === 'REQUESTED' || state.confirmation.status === 'CONFIRMED'
              ? state.confirmation.status
              : 'CANCELLED',
          booking: { status: after.status },
          ...state,
        },
      };
    },
  });
}
