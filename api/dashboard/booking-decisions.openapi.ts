import { z } from 'zod';
import { PrintedProse, textRule } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText as Instant, IdText, successWith } from '../http/answer-schemas.js';

/** Schemas and prose of the company decision route (SPEC "Company decision on a journey request"). */

/**
 * Kept with the decision, which the company's staff read (GET /bookings): prose, so line breaks and
 * tabs but no other control or bidirectional-override character, which could make it read as another.
 */
const Reason = PrintedProse(1, 500);

const DecisionBody = z
  .object({
    decision: z.enum(['APPROVE', 'REJECT']),
    reason: Reason.optional().meta({
      description: `kept with the decision; shown to operators; ${textRule(1, 500, 'prose')}`,
    }),
  })
  .strict();

/** The shape older dashboards send: a target status for the booking row itself. */
const LegacyStatusBody = z
  .object({
    status: z.enum(['CONFIRMED', 'CANCELLED', 'CHECKED_IN', 'NO_SHOW', 'COMPLETED']),
    reason: Reason.optional(),
  })
  .strict();

export const StatusBody = z.union([DecisionBody, LegacyStatusBody]).meta({
  id: 'BookingStatusChange',
  description:
    '{decision: APPROVE | REJECT, reason?} decides the journey request. The legacy {status} shape is read as a decision only ' +
    'while the request is pending (CONFIRMED = APPROVE, CANCELLED = REJECT); it never updates the booking row by itself.',
});

const DecisionResponse = successWith(
  z.object({
    id: IdText.meta({ description: 'the booking row' }),
    decision: z.enum(['APPROVE', 'REJECT']),
    outcome: z.enum(['REQUESTED', 'CONFIRMED', 'CANCELLED']).meta({
      description:
        'REQUESTED: other companies still decide; CONFIRMED: tickets signed; CANCELLED: the whole journey released',
    }),
    booking: z.object({ status: z.string() }),
    confirmation: z.object({ status: z.string(), deadline: Instant.nullable() }),
    failure_reason: z.string().nullable(),
  }),
);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Dashboard: bookings'], {
  decideBooking: {
    summary: 'Approve or reject a journey request (PENDING_CONFIRMATION)',
    description:
      '{id} is the compatibility booking row (GET /bookings). The company (from the session) decides its own confirmation ' +
      'request of the journey the booking belongs to; roles OWNER, ADMIN or DISPATCHER of an active company; CSRF header. ' +
      "Another company's booking is 404 BOOKING_NOT_FOUND, as for one that does not exist (as GET /bookings/{id}). " +
      "The decision reaches the journey's confirmation process and the answer is its outcome: the last approval confirms the " +
      'whole journey (tickets signed, boarding authorized); a rejection cancels all of it (seats released, failure_reason ' +
      'COMPANY_REJECTED). The last approval of a journey whose trip has left meanwhile (or can no longer be booked), or one ' +
      'of whose legs belongs to a company suspended meanwhile (even one that confirmed automatically or approved), is ' +
      '409 TRIP_NOT_BOOKABLE and changes nothing (the request stays open: reject it, else its deadline or the ' +
      "suspension's follow-up releases the journey). " +
      'Idempotent by the fixed key `{confirmationRequestId}:{companyId}:{decision}`: the same decision again ' +
      'answers 200 with the current state. No open request for this company (none, already decided otherwise, expired or ' +
      'cancelled) is 409 JOURNEY_CONFIRMATION_STATE_CONFLICT and nothing else is changed: there is no fallback to editing the ' +
      "booking row. So is a decision on a journey closed at a decision deadline, the company's own or another company's " +
      "(a journey closes at its earliest pending deadline, even while this company's window is still open): the journey is " +
      'first released as that deadline releases it (CANCELLED, failure_reason DECISION_DEADLINE_PASSED; the request whose ' +
      'window ran out EXPIRED, the others CANCELLED), should nothing have released it yet. ' +
      'The legacy body {status:"CANCELLED"} on a booking of a confirmed journey is 409 ' +
      'JOURNEY_AGGREGATE_OPERATION_REQUIRED (cancellation and re-accommodation go through the trip operations room), as are ' +
      'CHECKED_IN, NO_SHOW and COMPLETED. ' +
      'The member is judged as they stand when the decision is written, after any change committed while the request waited: ' +
      'signed out or deactivated 401 INVALID_CREDENTIAL, no longer of those roles 403 ROLE_NOT_ALLOWED, nothing decided. ' +
      "Open during a maintenance window (no 503 MAINTENANCE): the request's deadline keeps running and this is the " +
      "company's only way to meet it.",
    responses: answers(200, 'The decision and its outcome', DecisionResponse, [400, 401, 403, 404, 409, 503]),
  },
});
