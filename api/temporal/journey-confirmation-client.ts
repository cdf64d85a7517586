import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import {
  decideUpdate,
  JOURNEY_CONFIRMATION_WORKFLOW,
  REFUSAL_STATUS,
  type CompanyDecision,
  type ConfirmationScope,
  type DecisionResult,
  type JourneyConfirmationInput,
  type RefusalCode,
} from '../../workflows/journey-confirmation.contract.js';
import { processSearchAttributes, workflowIds } from '../../workflows/shared.js';
import { Refusal } from '../http/errors.js';
import { callUpdate, type UpdateFailureAnswers } from './workflow-updates.js';

/**
 * The API's side of the journey-confirmation workflow, which runs only while companies decide:
 * a REQUESTED confirm starts it (holds and automatic confirms are plain transactions,
 * api/use-cases/journey-direct.ts) and each decision is an Update, so the HTTP answer reflects
 * what the workflow (and its transaction) did. A refusal from the workflow keeps
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
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TIME_SCALE'>,
) {
  const handle = (scope: ConfirmationScope) =>
    temporal.workflow.getHandle(workflowIds.journeyConfirmation(scope.id));
  /** An Update call; a process that has ended answers `closed`. */
  const calling = <T>(closed: RefusalCode, work: () => Promise<T>) =>
    callUpdate(temporal, answersClosedAs(closed), work);

  return {
    /**
     * Starts the scope's workflow for the company decisions of a REQUESTED confirm (called inside
     * the confirm's transaction: the workflow reads the requests once that commits). Temporal
     * unreachable is 503 and the confirm rolls back.
     */
    async awaitDecisions(start: StartContext): Promise<void> {
      const input: JourneyConfirmationInput = {
        scope: start.scope,
        ownerUserId: start.ownerUserId,
        companyIds: start.companyIds,
        timeScale: config.TIME_SCALE,
        startsRequested: true,
      };
      await calling('JOURNEY_CONFIRMATION_STATE_CONFLICT', () =>
        temporal.workflow.start(JOURNEY_CONFIRMATION_WORKFLOW, {
          workflowId: workflowIds.journeyConfirmation(start.scope.id),
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          args: [input],
          workflowIdConflictPolicy: 'USE_EXISTING',
          typedSearchAttributes: processSearchAttributes({
            companyIds: start.companyIds,
            bookingId: start.scope.id,
            status: 'REQUESTED',
          }),
          memo: { ownerUserId: start.ownerUserId, scopeKind: start.scope.kind },
        }),
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
