import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import {
  acceptUpdate,
  grantStateQuery,
  openUpdate,
  revokeUpdate,
  SHARE_REFUSAL_STATUS,
  sessionIdleSignal,
  type AcceptRequest,
  type AcceptResult,
  type GrantPhase,
  type GrantState,
  type OpenResult,
  type RevokeRequest,
  type RevokeResult,
  type ShareGrantInput,
  type ShareRefusalCode,
} from './share-grant.contract.js';
import type { Refusable } from '../domain/refusal.js';
import { accepted, answering, enforcing, millisecondsUntil, OpenedProcess } from './steps.js';

/**
 * The open step's grant, or its refusal thrown on to the caller (a staff or driver issuer's company
 * suspended, or their session ended, while the share was made): the process stays NEW and ends.
 * Histories recorded before the step could refuse completed it with the bare OpenResult; it replays
 * as it was (same commands, same result).
 */
function openAnswer(result: Refusable<OpenResult> | OpenResult): OpenResult {
  return 'grantId' in result ? result : accepted(result);
}

/**
 * The grant's state and the bodies of its handlers. Updates and the deadlines' follow-ups each
 * run their step alone, in arrival order, so an accept and the link's expiry (or a revoke) never
 * overlap. The deadlines are the stored instants, waited for with `condition(…, remaining)`.
 */
class ShareGrant extends OpenedProcess<GrantPhase, ShareRefusalCode> {
  private linkExpiresAt: string | null = null;
  private sessionExpiresAt: string | null = null;
  private idleEnded = false;

  constructor(private readonly input: ShareGrantInput) {
    super(SHARE_REFUSAL_STATUS);
  }

  private get grantId(): string {
    return this.input.grantId;
  }

  snapshot(): GrantState {
    return { phase: this.phase, linkExpiresAt: this.linkExpiresAt, sessionExpiresAt: this.sessionExpiresAt };
  }

  /** Creates the grant's row; a repeated open answers what the first one did. */
  open(): Promise<OpenResult> {
    this.noteOpenAttempt();
    return this.exclusive(async () => {
      if (this.phase !== 'NEW') return { grantId: this.grantId, linkExpiresAt: this.linkExpiresAt! };
      const opened = openAnswer(await answering.openShareGrant(this.input));
      this.linkExpiresAt = opened.linkExpiresAt;
      this.enter('CREATED');
      return opened;
    });
  }

  requireAcceptable(secretHash: string): void {
    // A wrong secret is refused exactly like an unknown grant: no oracle for guessing.
    if (secretHash !== this.input.secretHash) throw this.refuse('SHARE_NOT_FOUND', 'No such share');
    if (this.phase === 'ACCEPTED') throw this.refuse('SHARE_ALREADY_ACCEPTED', 'This link was already used');
    if (this.phase === 'REVOKED') throw this.refuse('SHARE_REVOKED', 'This share was revoked');
    if (this.phase !== 'CREATED') throw this.refuse('SHARE_EXPIRED', 'This link has expired');
  }

  /**
   * The accept's transaction, with the API's deadline when the request carries one (acceptBy): an
   * accept that would commit after it refuses (SHARE_ACCEPT_LATE), nothing written, and the grant
   * stays CREATED for the retry. An accept without it (sent before it was carried) has no deadline,
   * and its step's input is the one recorded before: histories replay as they were.
   */
  accept(request: AcceptRequest): Promise<AcceptResult> {
    return this.exclusive(async () => {
      this.requireAcceptable(request.secretHash);
      const session = accepted(
        await answering.acceptShareGrant({
          grantId: this.grantId,
          sessionTokenHash: request.sessionTokenHash,
          sessionMilliseconds: this.input.sessionMilliseconds,
          ...(request.acceptBy === undefined ? {} : { acceptBy: request.acceptBy }),
        }),
      );
      this.sessionExpiresAt = session.expiresAt;
      this.enter('ACCEPTED');
      return session;
    });
  }

  requireRevocable(): void {
    if (this.phase === 'EXPIRED') throw this.refuse('SHARE_EXPIRED', 'This share has already expired');
    if (this.phase === 'NEW') throw this.refuse('SHARE_NOT_FOUND', 'No such share');
  }

  revoke(request: RevokeRequest): Promise<RevokeResult> {
    return this.exclusive(async () => {
      this.requireRevocable();
      const result = accepted(await answering.revokeShareGrant({ grantId: this.grantId, by: request.by }));
      this.enter('REVOKED');
      return result;
    });
  }

  /** The API ended the recipient session for idleness. */
  sessionIdle(): void {
    this.idleEnded = true;
  }

  /** CREATED: waits for an accept or a revoke until the link's expiry, then expires the grant. */
  async awaitLinkEnd(): Promise<void> {
    await condition(() => this.phase !== 'CREATED', millisecondsUntil(Date.parse(this.linkExpiresAt!)));
    await this.expireIf('CREATED');
  }

  /** ACCEPTED: waits for a revoke, the idle end or the session's hard end, then expires the grant. */
  async awaitSessionEnd(): Promise<void> {
    await condition(
      () => this.phase !== 'ACCEPTED' || this.idleEnded,
      millisecondsUntil(Date.parse(this.sessionExpiresAt!)),
    );
    await this.expireIf('ACCEPTED');
  }

  /** Expires the grant if it is still in `phase` once any running Update has finished. */
  private async expireIf(phase: GrantPhase): Promise<void> {
    await this.exclusive(async () => {
      if (this.phase !== phase) return;
      await enforcing.expireShareGrant({ grantId: this.grantId });
      this.enter('EXPIRED');
    });
  }
}

/**
 * One shared document (id share-grant/{grantId}): created by update-with-start (open), then
 * waits for accept, revoke, or the link's expiry (5 minutes); once accepted, for revoke, the
 * session's hard end (30 minutes) or the API reporting it idle. Each transition is one activity
 * (one transaction). The idle limit itself is enforced by the API on every recipient request.
 */
export async function shareGrant(input: ShareGrantInput): Promise<GrantState> {
  const grant = new ShareGrant(input);

  setHandler(grantStateQuery, () => grant.snapshot());
  setHandler(sessionIdleSignal, () => grant.sessionIdle());
  setHandler(openUpdate, () => grant.open());
  setHandler(acceptUpdate, (request) => grant.accept(request), {
    validator: (request: AcceptRequest) => grant.requireAcceptable(request.secretHash),
  });
  setHandler(revokeUpdate, (request) => grant.revoke(request), {
    validator: (_request) => grant.requireRevocable(),
  });

  await grant.openSettled();
  if (grant.phase === 'CREATED') await grant.awaitLinkEnd();
  if (grant.phase === 'ACCEPTED') await grant.awaitSessionEnd();
  await condition(allHandlersFinished);
  return grant.snapshot();
}
