import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import {
  confirmUpdate,
  decideUpdate,
  holdUpdate,
  JOURNEY_CONFIRMATION_WORKFLOW,
  REFUSAL_STATUS,
  releaseHoldUpdate,
  type CompanyDecision,
  type ConfirmationScope,
  type ConfirmRequest,
  type ConfirmResult,
  type DecisionResult,
  type HoldResult,
  type JourneyConfirmationInput,
  type RefusalCode,
  type ReleaseResult,
} from '../../workflows/journey-confirmation.contract.js';
import { processSearchAttributes, workflowIds } from '../../workflows/shared.js';
import { accountCaps, type CapSettings } from '../http/abuse-limits.js';
import { Refusal } from '../http/errors.js';
import { callUpdate, type UpdateFailureAnswers } from './workflow-updates.js';

/**
 * The API's side of the journey-confirmation workflow: every call is an Update, so the HTTP
 * answer reflects what the workflow (and its transaction) did. A refusal from the workflow keeps
 * its errorCode; a workflow that has ended answers `closed`; Temporal being unreachable or slow
 * is 503 (the client may retry with the same idempotency key).
 */
const answersClosedAs = (closed: RefusalCode): UpdateFailureAnswers => ({
  ended: (error) =>
    error instanceof WorkflowNotFoundError
      ? new Refusal(REFUSAL_STATUS[closed], closed, 'This journey has no open confirmation process any more')
      : undefined,
  unavailable: () =>
    new Refusal(
      503,
      'CONFIRMATION_UNAVAILABLE',
      'The booking service is busy; try again with the same idempotency key',
    ),
});

export interface StartContext {
  scope: ConfirmationScope;
  ownerUserId: string;
  companyIds: string[];
}

export function journeyConfirmationClient(
  temporal: Client,
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TIME_SCALE' | 'HOLD_MINUTES'> & CapSettings,
) {
  const handle = (scope: ConfirmationScope) =>
    temporal.workflow.getHandle(workflowIds.journeyConfirmation(scope.id));
  /** An Update call; a process that has ended answers `closed`. */
  const calling = <T>(closed: RefusalCode, work: () => Promise<T>) =>
    callUpdate(temporal, answersClosedAs(closed), work);

  return {
    /** Starts the scope's workflow if none is running and sends it the hold (update-with-start). */
    hold(start: StartContext, updateId: string, requestId: string): Promise<HoldResult> {
      const input: JourneyConfirmationInput = {
        scope: start.scope,
        ownerUserId: start.ownerUserId,
        companyIds: start.companyIds,
        timeScale: config.TIME_SCALE,
      };
      const startWorkflowOperation = new WithStartWorkflowOperation(JOURNEY_CONFIRMATION_WORKFLOW, {
        workflowId: workflowIds.journeyConfirmation(start.scope.id),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: processSearchAttributes({
          companyIds: start.companyIds,
          bookingId: start.scope.id,
          status: 'NEW',
        }),
        memo: { ownerUserId: start.ownerUserId, scopeKind: start.scope.kind },
      });
      return calling('JOURNEY_NOT_HOLDABLE', () =>
        temporal.workflow.executeUpdateWithStart(holdUpdate, {
          args: [{ holdMinutes: config.HOLD_MINUTES, caps: accountCaps(config), requestId }],
          updateId,
          startWorkflowOperation,
        }),
      );
    },

    release(scope: ConfirmationScope, holdBatchId: string): Promise<ReleaseResult> {
      return calling('HOLD_CLOSED', () =>
        handle(scope).executeUpdate(releaseHoldUpdate, {
          args: [{ holdBatchId }],
          updateId: `release:${holdBatchId}`,
        }),
      );
    },

    confirm(scope: ConfirmationScope, request: ConfirmRequest, updateId: string): Promise<ConfirmResult> {
      return calling('HOLD_CLOSED', () =>
        handle(scope).executeUpdate(confirmUpdate, { args: [request], updateId }),
      );
    },

    decide(scope: ConfirmationScope, decision: CompanyDecision): Promise<DecisionResult> {
      return calling('JOURNEY_CONFIRMATION_STATE_CONFLICT', () =>
        handle(scope).executeUpdate(decideUpdate, {
          args: [decision],
          updateId: `decide:${decision.decisionKey}`,
        }),
      );
    },
  };
}

export type JourneyConfirmationClient = ReturnType<typeof journeyConfirmationClient>;
