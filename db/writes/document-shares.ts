import type { PoolClient } from 'pg';
import {
  sessionEnd,
  shareAcceptLate,
  ShareRefusal,
  unacceptable,
  type AcceptResult,
  type GrantStatus,
  type OpenResult,
  type RevokeResult,
  type SessionEnd,
  type ShareActor,
  type ShareGrantInput,
} from '../../domain/document-sharing.js';
import type { Database } from '../orm.js';
import { epochMs } from '../queries/document-shares.js';
import { withDeadlockRetry } from '../pg-errors.js';
import { refuseWhenLate } from './deadline.js';
import { recordAccess, type DocumentAction } from './documents.js';
import { lockIssuer } from './share-issuer.js';

/**
 * The transitions of a document share grant. The share-grant workflow runs each one as an activity
 * (one transaction, idempotent under retry); the API ends an idle recipient session, logs what the
 * recipient received, and runs accept and revoke itself only for a grant whose workflow an operator
 * ended (revokeUnattendedGrant). Instants are selected as epoch milliseconds (epochMs).
 */

const seconds = (milliseconds: number) => milliseconds / 1000;
const iso = (milliseconds: number) => new Date(milliseconds).toISOString();

interface LinkExpiryRow {
  link_expires_at: number;
}

/**
 * Writes the grant as CREATED; a retry finds the row already there and answers the same. A staff
 * or driver issuer's grant is a write of the company: the issuer was let through when the request
 * arrived (api/auth/share-issuer.ts, api/auth/staff-auth.ts), and the document was rendered since,
 * so the company and the issuer are read again here (lockIssuer, db/writes/share-issuer.ts) and a
 * suspension, a deactivation or a sign-out committed meanwhile refuses the grant (403
 * COMPANY_SUSPENDED, 401 INVALID_CREDENTIAL, 403 ROLE_NOT_ALLOWED), as does a driver's trip
 * re-planned with another driver (404 BOOKING_NOT_FOUND), nothing written. A traveller's share of their own
 * booking is not the company's, and is written as it comes.
 */
export async function openGrant(db: Database, input: ShareGrantInput): Promise<OpenResult> {
  return withDeadlockRetry(() =>
    db.transaction(async (client) => {
      const written = await linkExpiry(client, input.grantId);
      if (written !== null) return opened(input, written);
      if (input.issuer.kind !== 'TRAVELLER') await lockIssuer(client, input);
      return opened(input, await insertGrant(client, input));
    }),
  );
}

const opened = (input: ShareGrantInput, linkExpiresAt: number): OpenResult => ({
  grantId: input.grantId,
  linkExpiresAt: iso(linkExpiresAt),
});

async function linkExpiry(client: PoolClient, grantId: string): Promise<number | null> {
  const { rows } = await client.query<LinkExpiryRow>(
    `select ${epochMs('link_expires_at')} as link_expires_at from document_share_grants where id = $1`,
    [grantId],
  );
  return rows[0]?.link_expires_at ?? null;
}

async function insertGrant(client: PoolClient, input: ShareGrantInput): Promise<number> {
  const { rows } = await client.query<LinkExpiryRow>(
    `with inserted as (
       insert into document_share_grants (id, booking_id, company_id, document_kind, presentation, issuer_kind,
                                          issuer_id, issuer_role, secret_hash, link_expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10))
       on conflict (id) do nothing
       returning link_expires_at)
     select ${epochMs('link_expires_at')} as link_expires_at from inserted
     union all
     select ${epochMs('link_expires_at')} from document_share_grants where id = $1`,
    [
      input.grantId,
      input.bookingId,
      input.companyId,
      input.documentKind,
      input.presentation,
      input.issuer.kind,
      input.issuer.id,
      input.issuer.role,
      input.secretHash,
      seconds(input.linkMilliseconds),
    ],
  );
  if (!rows[0]) throw new Error(`share grant ${input.grantId} vanished after its insert`);
  return rows[0].link_expires_at;
}

interface GrantLinkRow {
  status: GrantStatus;
  /** The link can still be accepted by the clock (status aside). */
  link_open: boolean;
}

async function lockGrant(
  client: PoolClient,
  grantId: string,
): Promise<{ status: GrantStatus; linkOpen: boolean } | null> {
  const { rows } = await client.query<GrantLinkRow>(
    `select status, link_expires_at > now() as link_open from document_share_grants where id = $1 for update`,
    [grantId],
  );
  const row = rows[0];
  return row ? { status: row.status, linkOpen: row.link_open } : null;
}

interface SessionRow {
  id: string;
  expires_at: number;
}

const toAcceptResult = (row: SessionRow): AcceptResult => ({
  sessionId: row.id,
  expiresAt: iso(row.expires_at),
});

export interface AcceptGrantInput {
  grantId: string;
  sessionTokenHash: string;
  sessionMilliseconds: number;
  /** The API's deadline (refuseWhenLate); absent when the API runs the accept itself, or sent none. */
  acceptBy?: number;
}

/**
 * Accepts the link once: the recipient session is created and the grant becomes ACCEPTED in one
 * transaction. The unique grant_id of sessions refuses a second session even if two accepts ever
 * got this far together. A retry of the same accept (same token) answers with its own session. An
 * accept given a deadline (`acceptBy`) that would commit after it writes nothing (SHARE_ACCEPT_LATE,
 * refuseWhenLate, db/writes/deadline.ts): the request that made its session token has answered
 * 503 and is gone, and the link stays unused for the retry. Only an attempt that wrote is checked.
 */
export async function acceptGrant(db: Database, input: AcceptGrantInput): Promise<AcceptResult> {
  return db.transaction(async (client) => {
    const grant = await lockGrant(client, input.grantId);
    const { rows: existing } = await client.query<SessionRow>(
      `select id, ${epochMs('expires_at')} as expires_at from share_recipient_sessions
        where grant_id = $1 and token_hash = $2`,
      [input.grantId, input.sessionTokenHash],
    );
    if (existing[0]) return toAcceptResult(existing[0]);
    const refusal = unacceptable(grant);
    if (refusal) throw refusal;
    const { rows } = await client.query<SessionRow>(
      `insert into share_recipient_sessions (grant_id, token_hash, expires_at)
       values ($1, $2, now() + make_interval(secs => $3))
       returning id, ${epochMs('expires_at')} as expires_at`,
      [input.grantId, input.sessionTokenHash, seconds(input.sessionMilliseconds)],
    );
    await client.query(
      `update document_share_grants set status = 'ACCEPTED', accepted_at = now() where id = $1`,
      [input.grantId],
    );
    await refuseWhenLate(client, input.acceptBy, shareAcceptLate);
    return toAcceptResult(rows[0]!);
  });
}

/**
 * Revokes a CREATED or ACCEPTED grant and ends its recipient session at once; a repeat answers the
 * same. The session is locked first, so a document request in flight finishes before the revoke, and
 * revoked_at is read then (clock_timestamp): no access is logged after the revocation's time.
 */
export async function revokeGrant(
  db: Database,
  input: { grantId: string; by: ShareActor },
): Promise<RevokeResult> {
  return db.transaction(async (client) => {
    await lockSessions(client, input.grantId);
    return revokeLocked(client, input);
  });
}

/** revokeGrant's writes, the grant's sessions locked by the caller's transaction. */
async function revokeLocked(
  client: PoolClient,
  input: { grantId: string; by: ShareActor },
): Promise<RevokeResult> {
  const { rows } = await client.query<RevokedAtRow>(
    `update document_share_grants
        set status = 'REVOKED', revoked_at = clock_timestamp(), revoked_by = $2, revoked_by_kind = $3
      where id = $1 and status in ('CREATED', 'ACCEPTED')
     returning ${epochMs('revoked_at')} as revoked_at`,
    [input.grantId, input.by.id, input.by.kind],
  );
  await endSession(client, input.grantId, 'REVOKED');
  const revokedAt = rows[0]?.revoked_at ?? (await revokedBefore(client, input.grantId));
  if (!revokedAt) throw new ShareRefusal('SHARE_EXPIRED', 'This share has already expired');
  return { status: 'REVOKED', revokedAt: iso(revokedAt) };
}

interface GrantClockRow {
  status: GrantStatus;
  /** CREATED with its link open, or ACCEPTED with its recipient session neither ended nor past its end. */
  live: boolean;
}

/**
 * A revoke of a grant whose share-grant process has ended while its row may still be CREATED or
 * ACCEPTED: an operator terminated or cancelled the process (its own ends write the row first).
 * The row and the database's clock then judge, as the process would have: a grant still live is
 * revoked by revokeGrant's writes, and a repeat answers the same; one whose link or session has run
 * out is written EXPIRED (the process's expiry, late) and refused SHARE_EXPIRED.
 */
export async function revokeUnattendedGrant(
  db: Database,
  input: { grantId: string; by: ShareActor },
): Promise<RevokeResult> {
  const revoked = await db.transaction(async (client) => {
    await lockSessions(client, input.grantId);
    await client.query(`select 1 from document_share_grants where id = $1 for update`, [input.grantId]);
    // Read after the lock, in a statement of its own: an accept that committed while this waited
    // shows its session here too.
    const { rows } = await client.query<GrantClockRow>(
      `select g.status,
              (g.status = 'CREATED' and g.link_expires_at > now())
              or (g.status = 'ACCEPTED' and exists (
                    select 1 from share_recipient_sessions s
                     where s.grant_id = g.id and s.ended_at is null and s.expires_at > now())) as live
         from document_share_grants g where g.id = $1`,
      [input.grantId],
    );
    const grant = rows[0];
    if (grant && (grant.status === 'CREATED' || grant.status === 'ACCEPTED') && !grant.live) {
      // Committed: the refusal below answers a grant that is now EXPIRED in the row too.
      await expireLocked(client, input.grantId);
      return null;
    }
    return revokeLocked(client, input);
  });
  if (!revoked) throw new ShareRefusal('SHARE_EXPIRED', 'This share has already expired');
  return revoked;
}

interface RevokedAtRow {
  revoked_at: number | null;
}

/** When an earlier revoke revoked the grant (a repeat answers with it); null when it never was. */
async function revokedBefore(client: PoolClient, grantId: string): Promise<number | null> {
  const { rows } = await client.query<RevokedAtRow>(
    `select ${epochMs('revoked_at')} as revoked_at from document_share_grants where id = $1`,
    [grantId],
  );
  return rows[0]?.revoked_at ?? null;
}

interface GrantStatusRow {
  status: GrantStatus;
}

/** The link or the recipient session ran out: the grant is EXPIRED and its session ended. */
export async function expireGrant(db: Database, input: { grantId: string }): Promise<{ status: string }> {
  return db.transaction(async (client) => {
    await lockSessions(client, input.grantId);
    await expireLocked(client, input.grantId);
    const { rows } = await client.query<GrantStatusRow>(
      `select status from document_share_grants where id = $1`,
      [input.grantId],
    );
    return { status: rows[0]?.status ?? 'EXPIRED' };
  });
}

/** expireGrant's writes, the grant's sessions locked by the caller's transaction. */
async function expireLocked(client: PoolClient, grantId: string): Promise<void> {
  await client.query(
    `update document_share_grants set status = 'EXPIRED', expired_at = now()
      where id = $1 and status in ('CREATED', 'ACCEPTED')`,
    [grantId],
  );
  await endSession(client, grantId, 'EXPIRED');
}

/**
 * A revoke and an expiry lock the grant's recipient session before the grant, as a document request
 * does (useRecipientSession), so the two orders never meet and a request in flight finishes first.
 */
async function lockSessions(client: Pick<PoolClient, 'query'>, grantId: string): Promise<void> {
  await client.query(`select id from share_recipient_sessions where grant_id = $1 for update`, [grantId]);
}

async function endSession(
  client: Pick<PoolClient, 'query'>,
  grantId: string,
  reason: SessionEnd,
): Promise<void> {
  await client.query(
    `update share_recipient_sessions set ended_at = now(), ended_reason = $2 where grant_id = $1 and ended_at is null`,
    [grantId, reason],
  );
}

interface LiveCheckRow {
  session_id: string;
  ended_reason: SessionEnd | null;
  grant_status: GrantStatus;
  past_end: boolean;
  idle: boolean;
}

/**
 * Checks the recipient session under a row lock and, when it is live, counts the request as
 * activity. An idle or timed-out session is ended here and then: correctness never waits for the
 * workflow's timer. Returns the session id, or why it is over.
 */
export async function useRecipientSession(
  runner: Pick<PoolClient, 'query'>,
  input: { grantId: string; sessionTokenHash: string; idleMilliseconds: number },
): Promise<{ sessionId: string } | { ended: SessionEnd } | null> {
  const { rows } = await runner.query<LiveCheckRow>(
    `select s.id as session_id, s.ended_reason, g.status as grant_status,
            s.expires_at <= now() as past_end,
            s.last_seen_at <= now() - make_interval(secs => $3) as idle
       from share_recipient_sessions s
       join document_share_grants g on g.id = s.grant_id
      where s.grant_id = $1 and s.token_hash = $2
      for update of s`,
    [input.grantId, input.sessionTokenHash, seconds(input.idleMilliseconds)],
  );
  const row = rows[0];
  if (!row) return null;
  const end = sessionEnd({
    endedReason: row.ended_reason,
    grantStatus: row.grant_status,
    pastEnd: row.past_end,
    idle: row.idle,
  });
  if (end) {
    // A revoke ends the session in its own transaction; a session ended before stays as it ended.
    if (row.ended_reason === null && end !== 'REVOKED') await endSession(runner, input.grantId, end);
    return { ended: end };
  }
  await runner.query(`update share_recipient_sessions set last_seen_at = now() where id = $1`, [
    row.session_id,
  ]);
  return { sessionId: row.session_id };
}

/** One request of the recipient: checks and touches the session in its own transaction. */
export function touchRecipientSession(
  db: Database,
  input: { grantId: string; sessionTokenHash: string; idleMilliseconds: number },
) {
  return db.transaction((client) => useRecipientSession(client, input));
}

/**
 * The last step before bytes leave: re-checks the session (it may have been revoked, run out or
 * gone idle while the document was rendered) and logs the view or download with the checksum and
 * size of exactly the bytes about to be sent, in one transaction. Nothing is logged for a refusal.
 */
export function recordRecipientAccess(
  db: Database,
  input: {
    grantId: string;
    sessionTokenHash: string;
    idleMilliseconds: number;
    snapshotId: string;
    action: DocumentAction;
    sha256: string;
    size: number;
    requestId: string;
  },
) {
  return db.transaction(async (client) => {
    const session = await useRecipientSession(client, input);
    if (!session || 'ended' in session) return session;
    await recordAccess(client, {
      snapshotId: input.snapshotId,
      actorKind: 'SHARE_RECIPIENT',
      actorId: input.grantId,
      action: input.action,
      sha256: input.sha256,
      size: input.size,
      requestId: input.requestId,
    });
    return session;
  });
}
