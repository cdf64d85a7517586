import type { PoolClient } from 'pg';
import { adminSessionEnded, secondFactorMandatory, type AdminRole } from '../../domain/permissions.js';
import { base32Decode, matchTotp } from '../../domain/totp.js';
import type { Database } from '../orm.js';
import { rowById } from '../sql-runner.js';
import { lockOwnAccount } from './acting-admin.js';
import { elevateAdminSession, revokeOtherAdminSessions, type SessionSecretHashes } from './admin-sessions.js';
import { ownAccountAudit, recordAudit, type RequestOrigin } from './audit.js';

/**
 * An administrator's second factor (the totp_* and recovery_code_hashes columns of admins). Each
 * transaction first locks the administrator row and checks the account is still ACTIVE and the
 * session still live (lockOwnAccount: else 401 INVALID_CREDENTIAL and nothing is written), so two
 * requests cannot both spend one code, and writes its audit row. A refused code still commits: its
 * auth.second_factor_failed row stays.
 */
type Sql = Pick<PoolClient, 'query'>;

/** The administrator and the session a write of their own second factor comes from. */
interface OwnSession {
  adminId: string;
  sessionId: string;
}

/**
 * One transaction writing the administrator's own second factor, begun by lockOwnAccount: the
 * account row locked, still ACTIVE, the session still live, else 401 INVALID_CREDENTIAL and nothing
 * written.
 */
function ownFactorWrite<T>(
  db: Database,
  session: OwnSession,
  write: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return db.transaction(async (client) => {
    await lockOwnAccount(client, session);
    return write(client);
  });
}

/** A code from the authenticator, or the hash of a recovery code (only hashes are kept). */
export type ProofToSpend = { code: string } | { recoveryCodeHash: string };

export interface AcceptedProof {
  method: 'totp' | 'recovery_code';
  recoveryCodesLeft: number;
}

/**
 * Why a second-factor write changed nothing but, for a refused code, its audit row: the code was
 * wrong, replayed or used; no set-up was waiting; there is no authenticator to remove; or the
 * account's policy keeps it.
 */
export type SecondFactorRefusal = 'CODE_REFUSED' | 'NOT_STARTED' | 'NOT_ENABLED' | 'REQUIRED_BY_POLICY';

/** Unix epoch seconds. */
interface Expiry {
  expiresAt: number;
}

export const proofMethod = (proof: ProofToSpend): AcceptedProof['method'] =>
  'code' in proof ? 'totp' : 'recovery_code';

interface FactorRow {
  totp_secret: string | null;
  /** timestamptz as text: only whether it is set matters here. */
  totp_confirmed_at: string | null;
  /** int8 as text. */
  totp_last_step: string | null;
  recovery_code_hashes: string[];
}

const FACTOR_COLUMNS = 'totp_secret, totp_confirmed_at, totp_last_step, recovery_code_hashes';

/** The TOTP step a code from `secret` (base32) matches, later than `lastStep`; or null. */
function matchCode(
  secret: string,
  code: string,
  nowMs: number,
  lastStep: number | null = null,
): number | null {
  const key = base32Decode(secret);
  return key ? matchTotp(key, code, nowMs, lastStep) : null;
}

/**
 * Checks a proof against the account's confirmed authenticator or its recovery codes and uses it
 * up: the TOTP step becomes the last accepted one, a recovery code is deleted. Null when the proof
 * is wrong, replayed or already used.
 */
async function consumeSecondFactor(
  sql: Sql,
  adminId: string,
  proof: ProofToSpend,
  nowMs: number,
): Promise<AcceptedProof | null> {
  const row = await rowById<FactorRow>(sql, FACTOR_COLUMNS, 'admins', adminId, true);
  if (!row?.totp_secret || !row.totp_confirmed_at) return null;
  if ('recoveryCodeHash' in proof) {
    if (!row.recovery_code_hashes.includes(proof.recoveryCodeHash)) return null;
    await sql.query(
      'update admins set recovery_code_hashes = array_remove(recovery_code_hashes, $2) where id = $1',
      [adminId, proof.recoveryCodeHash],
    );
    return { method: 'recovery_code', recoveryCodesLeft: row.recovery_code_hashes.length - 1 };
  }
  const lastStep = row.totp_last_step === null ? null : Number(row.totp_last_step);
  const step = matchCode(row.totp_secret, proof.code, nowMs, lastStep);
  if (step === null) return null;
  await sql.query('update admins set totp_last_step = $2 where id = $1', [adminId, step]);
  return { method: 'totp', recoveryCodesLeft: row.recovery_code_hashes.length };
}

/** A refused code, written to the audit log (auth.second_factor_failed). */
async function recordFailure(
  sql: Sql,
  adminId: string,
  origin: RequestOrigin,
  details: Record<string, unknown>,
): Promise<void> {
  await recordAudit(sql, {
    ...ownAccountAudit(adminId, origin),
    action: 'auth.second_factor_failed',
    details,
  });
}

/** Checks a proof and uses it up; a wrong one is recorded with `failure` as the audit details. */
async function spendSecondFactor(
  sql: Sql,
  adminId: string,
  proof: ProofToSpend,
  origin: RequestOrigin,
  failure: Record<string, unknown>,
): Promise<AcceptedProof | null> {
  const accepted = await consumeSecondFactor(sql, adminId, proof, Date.now());
  if (!accepted) await recordFailure(sql, adminId, origin, failure);
  return accepted;
}

/**
 * The session marked as having given its second factor (elevateAdminSession); answers its end.
 * A session that ended while the request ran throws 401 INVALID_CREDENTIAL, the answer its next
 * request would get: the transaction rolls back, so the proof is not spent.
 */
async function sessionElevated(sql: Sql, sessionId: string, secrets: SessionSecretHashes): Promise<number> {
  const expiresAt = await elevateAdminSession(sql, sessionId, secrets);
  if (expiresAt === null) throw adminSessionEnded();
  return expiresAt;
}

/**
 * Completes a limited session with a proof (auth.second_factor): the session is marked and gets
 * the new secrets. Answers the session's end.
 */
export async function passSecondFactor(
  db: Database,
  session: OwnSession,
  proof: ProofToSpend,
  secrets: SessionSecretHashes,
  origin: RequestOrigin,
): Promise<Expiry | SecondFactorRefusal> {
  return ownFactorWrite(db, session, async (client) => {
    const failure = { method: proofMethod(proof) };
    const accepted = await spendSecondFactor(client, session.adminId, proof, origin, failure);
    if (!accepted) return 'CODE_REFUSED';
    const expiresAt = await sessionElevated(client, session.sessionId, secrets);
    await recordAudit(client, {
      ...ownAccountAudit(session.adminId, origin),
      action: 'auth.second_factor',
      details: { sessionId: session.sessionId, ...accepted },
    });
    return { expiresAt };
  });
}

interface PendingExpiryRow {
  /** Unix epoch seconds (cast in SQL). */
  expires_at: number;
}

/**
 * Keeps a new authenticator secret waiting for `ttlMinutes` beside the one in use
 * (security.2fa_enrolment_started). Replacing a confirmed one spends `proof` from it first.
 * Answers when the secret stops waiting.
 */
export async function startAuthenticatorEnrolment(
  db: Database,
  session: OwnSession,
  enrolment: { secret: string; ttlMinutes: number; replacing: boolean; proof: ProofToSpend | null },
  origin: RequestOrigin,
): Promise<Expiry | SecondFactorRefusal> {
  const { adminId } = session;
  return ownFactorWrite(db, session, async (client) => {
    if (enrolment.proof) {
      const purpose = { purpose: 'change_authenticator' };
      if (!(await spendSecondFactor(client, adminId, enrolment.proof, origin, purpose)))
        return 'CODE_REFUSED';
    }
    const { rows } = await client.query<PendingExpiryRow>(
      `update admins set totp_pending_secret = $2, totp_pending_expires_at = now() + make_interval(mins => $3), updated_at = now()
       where id = $1 returning floor(extract(epoch from totp_pending_expires_at))::float8 as expires_at`,
      [adminId, enrolment.secret, enrolment.ttlMinutes],
    );
    await recordAudit(client, {
      ...ownAccountAudit(adminId, origin),
      action: 'security.2fa_enrolment_started',
      details: { replacing: enrolment.replacing },
    });
    return { expiresAt: rows[0]!.expires_at };
  });
}

interface PendingSecretRow {
  totp_pending_secret: string | null;
  waiting: boolean;
  replacing: boolean;
}

/**
 * Confirms the waiting secret with a code from it: it becomes the authenticator in use, the new
 * recovery code hashes replace the old ones, the session is marked as having given its second
 * factor (with the new secrets) and every other session of the administrator ends
 * (security.2fa_enabled, or security.2fa_changed when it replaces one).
 */
export async function confirmAuthenticator(
  db: Database,
  session: OwnSession,
  confirmation: { code: string; recoveryCodeHashes: string[]; secrets: SessionSecretHashes },
  origin: RequestOrigin,
): Promise<Expiry | SecondFactorRefusal> {
  const { adminId, sessionId } = session;
  return ownFactorWrite(db, session, async (client) => {
    const { rows } = await client.query<PendingSecretRow>(
      `select totp_pending_secret, totp_pending_expires_at > now() as waiting, totp_confirmed_at is not null as replacing
       from admins where id = $1 for update`,
      [adminId],
    );
    const row = rows[0];
    if (!row?.totp_pending_secret || !row.waiting) return 'NOT_STARTED';
    const step = matchCode(row.totp_pending_secret, confirmation.code, Date.now());
    if (step === null) {
      await recordFailure(client, adminId, origin, { purpose: 'confirm_authenticator' });
      return 'CODE_REFUSED';
    }
    await client.query(
      `update admins set totp_secret = totp_pending_secret, totp_confirmed_at = now(), totp_pending_secret = null,
         totp_pending_expires_at = null, totp_last_step = $2, recovery_code_hashes = $3, updated_at = now()
       where id = $1`,
      [adminId, step, confirmation.recoveryCodeHashes],
    );
    await revokeOtherAdminSessions(client, adminId, sessionId);
    const expiresAt = await sessionElevated(client, sessionId, confirmation.secrets);
    await recordAudit(client, {
      ...ownAccountAudit(adminId, origin),
      action: row.replacing ? 'security.2fa_changed' : 'security.2fa_enabled',
    });
    return { expiresAt };
  });
}

interface FactorPolicyRow {
  role: AdminRole;
  permissions: string[];
  totp_required: boolean;
  enabled: boolean;
}

/**
 * Removes the authenticator and the recovery codes, given a proof from them
 * (security.2fa_removed), and ends every other session of the administrator, as confirming one
 * does: a session still owing the factor would otherwise find nothing owed and act in full. An
 * account that must sign in with a second factor keeps them: its totp_required is set, or, in
 * `production`, it holds a permission that always needs one (secondFactorMandatory). Answers the
 * proof spent.
 */
export async function removeAuthenticator(
  db: Database,
  session: OwnSession,
  proof: ProofToSpend,
  origin: RequestOrigin,
  production: boolean,
): Promise<AcceptedProof | SecondFactorRefusal> {
  const { adminId, sessionId } = session;
  return ownFactorWrite(db, session, async (client) => {
    const { rows } = await client.query<FactorPolicyRow>(
      `select role, permissions, totp_required, totp_confirmed_at is not null as enabled
       from admins where id = $1 for update`,
      [adminId],
    );
    const row = rows[0]!;
    if (!row.enabled) return 'NOT_ENABLED';
    const access = { role: row.role, grantedPermissions: row.permissions, totpRequired: row.totp_required };
    if (secondFactorMandatory(access, production)) return 'REQUIRED_BY_POLICY';
    const purpose = { purpose: 'remove_authenticator' };
    const accepted = await spendSecondFactor(client, adminId, proof, origin, purpose);
    if (!accepted) return 'CODE_REFUSED';
    await client.query(
      `update admins set totp_secret = null, totp_confirmed_at = null, totp_pending_secret = null, totp_pending_expires_at = null,
         totp_last_step = null, recovery_code_hashes = '{}', updated_at = now()
       where id = $1`,
      [adminId],
    );
    await revokeOtherAdminSessions(client, adminId, sessionId);
    await recordAudit(client, {
      ...ownAccountAudit(adminId, origin),
      action: 'security.2fa_removed',
      details: { method: accepted.method },
    });
    return accepted;
  });
}
