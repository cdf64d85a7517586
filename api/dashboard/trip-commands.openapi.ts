import { z } from 'zod';
import { BULK_ACTIONS, LEGACY_STATUS_ACTIONS, TRIP_STATUSES } from '../../domain/trip-dispatch.js';
import { Uuid } from '../http/schemas.js';
import {
  DelayMinutes,
  dispatchErrorCode,
  DispatchBody,
  DispatchResponse,
  Reason,
  STATE_MACHINE,
} from './dispatch.openapi.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the trip commands outside the operations room (api/dashboard/trip-commands.ts):
 * the legacy PATCH /trips/{id} and POST /trips/bulk, both through the dispatch transition.
 */

const TAGS = ['Dashboard: trip operations'];

/**
 * At most this many distinct trip ids in one bulk command (SPEC "Limits"). SPEC removes duplicates
 * and the answer counts them (summary.duplicates_removed), so the limit is on the trips acted on:
 * a repeated id is removed, not counted. The list itself is bounded by the 64 KiB body.
 */
export const BULK_LIMIT = 50;

/** Trip ids, compared after lower-casing (Uuid): more than BULK_LIMIT distinct ones is TOO_MANY_TRIPS. */
const BulkTripIds = z
  .array(Uuid)
  .min(1)
  .superRefine((ids, context) => {
    const distinct = new Set(ids).size;
    if (distinct <= BULK_LIMIT) return;
    context.addIssue({
      code: 'custom',
      message: `names ${distinct} distinct trips; at most ${BULK_LIMIT}`,
      params: { errorCode: 'TOO_MANY_TRIPS' },
    });
  })
  .meta({
    description: `1 to ${BULK_LIMIT} distinct trip ids; a repeated id (any case) is removed and not counted`,
  });

const LegacyStatus = z.enum(Object.keys(LEGACY_STATUS_ACTIONS) as [keyof typeof LEGACY_STATUS_ACTIONS]);

/** A rule of one bulk action's fields, as a custom issue whose params name the errorCode. */
function requireFields(
  action: 'delay' | 'cancel' | 'other',
  body: { reason?: string | undefined; delay_minutes?: number | undefined },
  context: z.core.$RefinementCtx,
): void {
  const issue = (path: string, errorCode: string, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message, params: { errorCode } });
  if ((action === 'delay' || action === 'cancel') && body.reason === undefined) {
    issue('reason', 'REASON_REQUIRED', 'a delay or a cancellation needs a reason');
  }
  if (action === 'delay' && body.delay_minutes === undefined) {
    issue('delay_minutes', 'DELAY_MINUTES_REQUIRED', 'a delay needs delay_minutes');
  }
  if (action !== 'delay' && body.delay_minutes !== undefined) {
    issue('delay_minutes', 'VALIDATION_FAILED', 'delay_minutes goes only with a delay');
  }
}

const kindOf = (action: string) =>
  action === 'DELAYED' || action === 'mark_delayed'
    ? 'delay'
    : action === 'CANCELLED' || action === 'cancel'
      ? 'cancel'
      : 'other';

/**
 * The fields of each kind of action as JSON Schema, so the document states them: one branch per kind
 * (named by `field`), a delay with reason and delay_minutes, a cancellation with a reason, and
 * delay_minutes with nothing but a delay; `reasonWithOthers: false` also keeps the reason to a delay
 * or a cancellation.
 */
function fieldRules(
  field: 'action' | 'status',
  actions: readonly string[],
  { reasonWithOthers }: { reasonWithOthers: boolean },
) {
  const named = (kind: ReturnType<typeof kindOf>) => ({
    [field]: { enum: actions.filter((action) => kindOf(action) === kind) },
  });
  const noDelayMinutes = { not: { required: ['delay_minutes'] } };
  return {
    oneOf: [
      { properties: named('delay'), required: ['reason', 'delay_minutes'] },
      { properties: named('cancel'), required: ['reason'], ...noDelayMinutes },
      {
        properties: { ...named('other'), ...(reasonWithOthers ? {} : { reason: false }) },
        ...noDelayMinutes,
      },
    ],
  };
}

/**
 * The legacy body is checked as POST /trips/{id}/dispatch checks the body of the action its status
 * names (DispatchBody): the same fields refused under the same errorCode (dispatchErrorCode), named by
 * each issue. An unknown status, or no object at all, is left to the legacy schema.
 */
function checkedAsDispatched(input: unknown, context: z.core.$RefinementCtx): unknown {
  if (typeof input !== 'object' || input === null || !('status' in input)) return input;
  const { status, ...fields } = input;
  if (typeof status !== 'string' || !Object.hasOwn(LEGACY_STATUS_ACTIONS, status)) return input;
  const action = LEGACY_STATUS_ACTIONS[status as keyof typeof LEGACY_STATUS_ACTIONS];
  const asDispatched = DispatchBody.safeParse({ action, ...fields });
  if (asDispatched.success) return input;
  const errorCode = dispatchErrorCode(asDispatched.error.issues);
  for (const { path, message } of asDispatched.error.issues) {
    context.addIssue({ code: 'custom', path, message, params: { errorCode } });
  }
  return input;
}

/** The legacy body: the target status and the fields of the action it names, no other. */
export const LegacyTripBody = z.preprocess(
  checkedAsDispatched,
  z
    .object({
      status: LegacyStatus.meta({
        description: 'the status to move the trip to; each maps to one dispatch action',
      }),
      reason: Reason.optional().meta({
        description:
          'required for DELAYED and CANCELLED, refused with the others; kept in the operations log',
      }),
      delay_minutes: DelayMinutes.optional().meta({
        description: 'required for DELAYED, refused with the others',
      }),
    })
    .strict()
    .meta({
      id: 'LegacyTripChange',
      ...fieldRules('status', LegacyStatus.options, { reasonWithOthers: false }),
    }),
);

export const BulkBody = z
  .object({
    trip_ids: BulkTripIds,
    action: z.enum(BULK_ACTIONS).meta({ description: 'a trip action under its lower-case name' }),
    reason: Reason.optional().meta({ description: 'required for mark_delayed and cancel' }),
    delay_minutes: DelayMinutes.optional().meta({ description: 'required for mark_delayed' }),
  })
  .strict()
  .superRefine((body, context) => requireFields(kindOf(body.action), body, context))
  .meta({ id: 'BulkTripCommand', ...fieldRules('action', BULK_ACTIONS, { reasonWithOthers: true }) });

/**
 * The stable codes of a refused body: a custom rule names its own (the legacy body's the one POST
 * /trips/{id}/dispatch gives its action, too many distinct trips TOO_MANY_TRIPS); an unknown action
 * UNKNOWN_ACTION; a reason or delay at fault is named as in a dispatch action (dispatchErrorCode).
 */
export function tripCommandErrorCode(issues: z.core.$ZodIssue[]): string {
  const named = issues.find((issue) => issue.code === 'custom' && issue.params?.errorCode);
  if (named?.code === 'custom') return String(named.params!.errorCode);
  if (issues.some((issue) => issue.path[0] === 'action' || issue.path[0] === 'status'))
    return 'UNKNOWN_ACTION';
  return dispatchErrorCode(issues);
}

const TripStatus = z.enum(TRIP_STATUSES);

export const LegacyTripResponse = DispatchResponse;

export const BulkResponse = successWith(
  z.object({
    action: z.enum(BULK_ACTIONS),
    results: z.array(
      z.object({
        trip_id: IdText,
        success: z.boolean(),
        status: TripStatus.optional().meta({
          description: "the trip's status after the action (success only)",
        }),
        previous_status: TripStatus.optional(),
        replayed: z.boolean().optional(),
        errorCode: z
          .string()
          .optional()
          .meta({ description: 'why this trip was refused; the others are unaffected' }),
        message: z.string().optional(),
        details: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
    summary: z.object({
      requested: z.int().meta({ description: 'distinct trip ids' }),
      duplicates_removed: z.int(),
      succeeded: z.int(),
      failed: z.int(),
    }),
  }),
);

const ACCESS =
  'OWNER, ADMIN or DISPATCHER of an active company (403 ROLE_NOT_ALLOWED, COMPANY_SUSPENDED); X-CSRF-Token. ' +
  'The member is judged as they stand when the write is made, after any change committed while the request waited: ' +
  'signed out or deactivated 401 INVALID_CREDENTIAL, no longer of those roles 403 ROLE_NOT_ALLOWED, nothing changed.';

export const docs = taggedOperations(TAGS, {
  updateTripLegacy: {
    summary: 'Change a trip status the legacy way (through the dispatch transition)',
    description:
      `Legacy clients name the target status; each maps to its dispatch action (BOARDING = START_BOARDING, DELAYED = ` +
      'MARK_DELAYED, DEPARTED = DEPART, ARRIVED = ARRIVE, COMPLETED = COMPLETE, CANCELLED = CANCEL) and runs the same ' +
      'transition as POST /trips/{id}/dispatch, with its checks, effects and log (channel LEGACY_PATCH): this route never ' +
      `writes the trip itself. ${ACCESS} The body is checked as POST /trips/{id}/dispatch checks the action's body, ` +
      'under the same errorCodes: a delay needs reason and delay_minutes (400 REASON_REQUIRED when the reason is ' +
      'missing or blank, DELAY_MINUTES_REQUIRED when delay_minutes is missing), a cancellation a reason (400 ' +
      'REASON_REQUIRED); the other statuses take no reason or delay_minutes, and a reason over 500 characters ' +
      'or with a control or bidirectional-override character other than line breaks and tabs, delay_minutes ' +
      'that is not a whole number from 1 to 1440 or any other field is 400 VALIDATION_FAILED; an unknown ' +
      "status is 400 UNKNOWN_ACTION. A refused body changes nothing. Another company's trip is 404 TRIP_NOT_FOUND; an " +
      'action not allowed now 409 TRIP_ACTION_NOT_ALLOWED, a blocked one 409 TRIP_NOT_READY. The answer is the one of ' +
      'POST /trips/{id}/dispatch, with allowed_actions. Traveller attendance is not changed here (use the dispatch ' +
      `actions).\n\n${STATE_MACHINE}`,
    responses: answers(200, 'The action was taken', LegacyTripResponse, [400, 401, 403, 404, 409]),
  },
  bulkTripCommand: {
    summary: 'Take one trip action on up to 50 trips',
    description:
      `The trip actions under lower-case names (${BULK_ACTIONS.join(', ')}) on a list of at most ${BULK_LIMIT} distinct ` +
      `trip ids (duplicates removed, case-insensitively, and not counted; ${BULK_LIMIT + 1} or more distinct: 400 ` +
      'TOO_MANY_TRIPS). Each trip goes through the dispatch ' +
      'transition on its own (channel BULK), in the order given: one independent result per trip (success with its new ' +
      "status, or the errorCode that trip got: TRIP_NOT_FOUND for another company's trip, TRIP_ACTION_NOT_ALLOWED, " +
      'TRIP_NOT_READY, ...) and a summary of succeeded and failed; a refused trip never stops the others. The bulk ' +
      `command never writes the trips table itself. ${ACCESS} mark_delayed needs reason and delay_minutes, cancel a ` +
      'reason (400 REASON_REQUIRED when missing or blank, DELAY_MINUTES_REQUIRED when missing); delay_minutes goes ' +
      'with mark_delayed only, and a reason over 500 characters or with a control or bidirectional-override ' +
      'character other than line breaks and tabs, or delay_minutes that is not a whole number from 1 to 1440, is 400 ' +
      'VALIDATION_FAILED; an unknown action is 400 UNKNOWN_ACTION. A refused body changes no trip. The ' +
      'answer is 200 whatever the per-trip results.',
    responses: answers(200, 'One result per distinct trip id', BulkResponse, [400, 401, 403]),
  },
});
