import type { Logger } from '../../config/logger.js';
import { Refusal } from '../../domain/refusal.js';
import { bulkAction, LEGACY_STATUS_ACTIONS, type TripAction } from '../../domain/trip-dispatch.js';
import { commandOf, dispatchAndTell, takeDispatchAction, type DispatchDeps } from './trip-dispatch.js';
import type { ActingMember } from '../../db/writes/acting-member.js';

/**
 * The trip commands outside the operations room, each a thin mapping onto the dispatch transition:
 * the legacy PATCH /trips/{id} (a target status) and POST /trips/bulk (one trip action on many trips).
 */
type Actor = { companyId: string; staffUserId: string; role: string; member?: ActingMember | undefined };

/**
 * PATCH /trips/{id}: the status names its dispatch action, and the answer is POST
 * /trips/{id}/dispatch's (the outcome and the actions the session may take now, none unless `mayAct`).
 */
export async function changeTripLegacy(
  deps: DispatchDeps,
  actor: Actor,
  tripId: string,
  body: {
    status: keyof typeof LEGACY_STATUS_ACTIONS;
    reason?: string | undefined;
    delay_minutes?: number | undefined;
  },
  mayAct: boolean,
) {
  const action: TripAction = LEGACY_STATUS_ACTIONS[body.status];
  const request = { action, reason: body.reason, delay_minutes: body.delay_minutes };
  return takeDispatchAction(deps, commandOf(actor, tripId, request, 'LEGACY_PATCH'), mayAct);
}

export interface BulkCommand {
  trip_ids: string[];
  action: Lowercase<TripAction>;
  reason?: string | undefined;
  delay_minutes?: number | undefined;
}

type BulkResult =
  | { trip_id: string; success: true; status: string; previous_status: string; replayed: boolean }
  | {
      trip_id: string;
      success: false;
      errorCode: string;
      message: string;
      details?: Record<string, unknown>;
    };

/**
 * Each distinct trip through the transition in its own transaction, in the order given (a cancel
 * then tells the confirmation workflows it ended: ./trip-dispatch.ts dispatchAndTell); a refusal
 * is that trip's result. An unexpected failure is logged and reported for that trip alone.
 */
export async function runBulkCommand(
  deps: DispatchDeps,
  actor: Actor,
  command: BulkCommand,
  requestId?: string,
) {
  const tripIds = [...new Set(command.trip_ids)];
  const action = bulkAction(command.action);
  const results: BulkResult[] = [];
  for (const tripId of tripIds) {
    const request = { action, reason: command.reason, delay_minutes: command.delay_minutes };
    try {
      const result = await dispatchAndTell(deps, commandOf(actor, tripId, request, 'BULK'));
      results.push({
        trip_id: tripId,
        success: true,
        status: result.trip.status,
        previous_status: result.previousStatus,
        replayed: result.replayed,
      });
    } catch (error) {
      results.push(failure(tripId, error, deps.logger, requestId));
    }
  }
  const succeeded = results.filter((result) => result.success).length;
  return {
    action: command.action,
    results,
    summary: {
      requested: tripIds.length,
      duplicates_removed: command.trip_ids.length - tripIds.length,
      succeeded,
      failed: results.length - succeeded,
    },
  };
}

function failure(tripId: string, error: unknown, logger: Logger, requestId?: string): BulkResult {
  if (error instanceof Refusal) {
    return {
      trip_id: tripId,
      success: false,
      errorCode: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
    };
  }
  logger.error({ requestId, tripId, err: error }, 'bulk trip command failed for one trip');
  return {
    trip_id: tripId,
    success: false,
    errorCode: 'INTERNAL_ERROR',
    message: 'This trip could not be changed',
  };
}
