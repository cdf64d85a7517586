import {
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  acceptUpdate,
  type AcceptRequest,
  grantStateQuery,
  openUpdate,
  revokeUpdate,
  SHARE_REFUSAL_STATUS,
  sessionIdleSignal,
  shareSearchAttributeKeys,
  type GrantPhase,
  type GrantState,
  type ShareGrantInput,
  type ShareRefusalCode,
} from './share-grant.contract.js';
import { accepted, ANSWERING_STEP, ENFORCING_STEP, refusal, StepQueue } from './steps.js';

type Activities = ReturnType<typeof createActivities>;

/** Steps a caller waits for (open, accept, revoke): a few quick retries, then the Update fails. */
const answering = proxyActivities<Activities>(ANSWERING_STEP);

/** Steps that enforce time (link and session expiry): retried until they happen. */
const enforcing = proxyActivities<Activities>(ENFORCING_STEP);

const refuse = (type: ShareRefusalCode, message: string) =>
  refusal(type, message, SHARE_REFUSAL_STATUS[type]);

/**
 * The grant's state and a lock: Updates and the timers' follow-ups each run their step alone, in
 * arrival order, so an accept and the link's expiry (or a revoke) never overlap.
 */
class ShareGrantState extends StepQueue {
  phase: GrantPhase = 'NEW';
  linkExpiresAt: string | null = null;
  sessionExpiresAt: string | null = null;
  openAttempted = false;
  idleEnded = false;
  enter(phase: GrantPhase): void {
    if (this.phase === phase) return;
    this.phase = phase;
    upsertSearchAttributes([{ key: shareSearchAttributeKeys.processStatus, value: phase }]);
  }

  snapshot(): GrantState {
    return { phase: this.phase, linkExpiresAt: this.linkExpiresAt, sessionExpiresAt: this.sessionExpiresAt };
  }
}

/** Milliseconds from now (workflow time) until an ISO instant; at least 1 so a timer is set. */
const until = (instant: string) => Math.max(1, Date.parse(instant) - Date.now());

/**
 * One shared document (id share-grant/{grantId}): created by update-with-start (open), then
 * waits for accept, revoke, or the link's expiry (5 minutes); once accepted, for revoke, the
 * session's hard end (30 minutes) or the API reporting it idle. Each transition is one activity
 * (one transaction). The idle limit itself is enforced by the API on every recipient request.
 */
export async function shareGrant(input: ShareGrantInput): Promise<GrantState> {
  const state = new ShareGrantState();
  const grantId = input.grantId;

  setHandler(grantStateQuery, () => state.snapshot());
  setHandler(sessionIdleSignal, () => {
    state.idleEnded = true;
  });

  setHandler(openUpdate, () => {
    state.openAttempted = true;
    return state.exclusive(async () => {
      if (state.phase !== 'NEW') return { grantId, linkExpiresAt: state.linkExpiresAt! };
      const opened = await answering.openShareGrant(input);
      state.linkExpiresAt = opened.linkExpiresAt;
      state.enter('CREATED');
      return opened;
    });
  });

  setHandler(
    acceptUpdate,
    (request) =>
      state.exclusive(async () => {
        requireAcceptable(state, input, request.secretHash);
        const session = accepted(
          await answering.acceptShareGrant({
            grantId,
            sessionTokenHash: request.sessionTokenHash,
            sessionMilliseconds: input.sessionMilliseconds,
          }),
        );
        state.sessionExpiresAt = session.expiresAt;
        state.enter('ACCEPTED');
        return session;
      }),
    { validator: (request: AcceptRequest) => requireAcceptable(state, input, request.secretHash) },
  );

  setHandler(
    revokeUpdate,
    (request) =>
      state.exclusive(async () => {
        requireRevocable(state);
        const result = accepted(await answering.revokeShareGrant({ grantId, by: request.by }));
        state.enter('REVOKED');
        return result;
      }),
    { validator: (_request) => requireRevocable(state) },
  );

  await condition(() => state.phase !== 'NEW' || (state.openAttempted && state.idle));
  if (state.phase === 'CREATED') {
    await condition(() => state.phase !== 'CREATED', until(state.linkExpiresAt!));
    await expireIf(state, 'CREATED', grantId);
  }
  if (state.phase === 'ACCEPTED') {
    await condition(() => state.phase !== 'ACCEPTED' || state.idleEnded, until(state.sessionExpiresAt!));
    await expireIf(state, 'ACCEPTED', grantId);
  }
  await condition(allHandlersFinished);
  return state.snapshot();
}

/** Expires the grant if it is still in `phase` once any running Update has finished. */
async function expireIf(state: ShareGrantState, phase: GrantPhase, grantId: string): Promise<void> {
  await state.exclusive(async () => {
    if (state.phase !== phase) return;
    await enforcing.expireShareGrant({ grantId });
    state.enter('EXPIRED');
  });
}

function requireAcceptable(state: ShareGrantState, input: ShareGrantInput, secretHash: string): void {
  // A wrong secret is refused exactly like an unknown grant: no oracle for guessing.
  if (secretHash !== input.secretHash) throw refuse('SHARE_NOT_FOUND', 'No such share');
  if (state.phase === 'ACCEPTED') throw refuse('SHARE_ALREADY_ACCEPTED', 'This link was already used');
  if (state.phase === 'REVOKED') throw refuse('SHARE_REVOKED', 'This share was revoked');
  if (state.phase !== 'CREATED') throw refuse('SHARE_EXPIRED', 'This link has expired');
}

function requireRevocable(state: ShareGrantState): void {
  if (state.phase === 'EXPIRED') throw refuse('SHARE_EXPIRED', 'This share has already expired');
  if (state.phase === 'NEW') throw refuse('SHARE_NOT_FOUND', 'No such share');
}
