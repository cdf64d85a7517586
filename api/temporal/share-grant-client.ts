import type { Client } from '@temporalio/client';
import type { Config } from '../../config/index.js';
import {
  acceptUpdate,
  openUpdate,
  revokeUpdate,
  SHARE_GRANT_WORKFLOW,
  sessionIdleSignal,
  type AcceptResult,
  type OpenResult,
  type RevokeResult,
  type ShareActor,
  type ShareGrantInput,
} from '../../workflows/share-grant.contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { databaseNow } from '../platform/state.js';
import { Refusal, unavailableFor } from '../http/errors.js';
import { processCalls } from './process-calls.js';
import {
  answeredInTime,
  processEnded,
  UPDATE_DEADLINE_MS,
  type UpdateFailureAnswers,
} from './workflow-updates.js';

/**
 * The grant's workflow has ended, so no Update can reach it. Its own ends come after it wrote the
 * grant REVOKED or EXPIRED, but an operator may terminate or cancel it with the row still CREATED or
 * ACCEPTED: the caller then lets the row decide (api/use-cases/document-sharing.ts). Left unhandled,
 * it answers as an expired share.
 */
export class ShareProcessEnded extends Refusal {
  constructor() {
    super(410, 'SHARE_EXPIRED', 'This share has ended');
  }
}

/** Temporal not answering is 503; an ended workflow is ShareProcessEnded. */
const SHARE_ANSWERS: UpdateFailureAnswers = {
  ended: (error) => (processEnded(error) ? new ShareProcessEnded() : undefined),
  unavailable: (retryAfterSeconds) =>
    unavailableFor('SHARE_UNAVAILABLE', 'Document sharing is busy; try again', retryAfterSeconds),
};

/**
 * An accept must commit this long before the API stops waiting for it (UPDATE_DEADLINE_MS): a
 * margin for its commit, the answer's way back through Temporal and the clocks of the API and the
 * database (as a cash-shift step, cash-shift-client.ts). An accept that would commit later refuses
 * (SHARE_ACCEPT_LATE, nothing written), so the 503 that then ends the wait leaves no recipient
 * session whose token only the abandoned request knew, and the retry it asks for finds the link unused.
 */
const ACCEPT_MARGIN_MS = 5_000;

/**
 * The API's side of the share-grant workflow. Every state change is an Update, so the HTTP
 * answer reflects what the workflow's transaction did; a refusal keeps its errorCode. A workflow
 * that has already ended answers ShareProcessEnded (410 SHARE_EXPIRED unless the caller handles it).
 */
export function shareGrantClient(temporal: Client, config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>) {
  const grants = processCalls(temporal, SHARE_ANSWERS, config.TEMPORAL_TASK_QUEUE);

  return {
    /**
     * Starts share-grant/{grantId} and creates the grant's row in one call (update-with-start);
     * operators find it under the booking's id and its journey's (BookingId).
     */
    open(input: ShareGrantInput, journeyId?: string | null): Promise<OpenResult> {
      return grants.start(openUpdate, `open:${input.grantId}`, {
        workflowType: SHARE_GRANT_WORKFLOW,
        workflowId: workflowIds.shareGrant(input.grantId),
        input,
        conflictPolicy: 'USE_EXISTING',
        process: { companyIds: [input.companyId], bookingIds: [input.bookingId, journeyId] },
        memo: {
          documentKind: input.documentKind,
          presentation: input.presentation,
          issuerKind: input.issuer.kind,
        },
      });
    },

    /** Carries its deadline (`acceptBy`, ACCEPT_MARGIN_MS); one refused past it is 503 SHARE_UNAVAILABLE. */
    accept(grantId: string, secretHash: string, sessionTokenHash: string): Promise<AcceptResult> {
      const acceptBy = databaseNow() + UPDATE_DEADLINE_MS - ACCEPT_MARGIN_MS;
      return answeredInTime(
        grants.update(workflowIds.shareGrant(grantId), acceptUpdate, {
          secretHash,
          sessionTokenHash,
          acceptBy,
        }),
        'SHARE_ACCEPT_LATE',
        SHARE_ANSWERS,
      );
    },

    revoke(grantId: string, by: ShareActor): Promise<RevokeResult> {
      return grants.update(workflowIds.shareGrant(grantId), revokeUpdate, { by });
    },

    /** Tells the workflow its recipient session went idle (fire-and-forget: the API already ended it). */
    async reportIdle(grantId: string): Promise<void> {
      await temporal.workflow
        .getHandle(workflowIds.shareGrant(grantId))
        .signal(sessionIdleSignal)
        .catch(() => undefined);
    },
  };
}

export type ShareGrantClient = ReturnType<typeof shareGrantClient>;
