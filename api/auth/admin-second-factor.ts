import { randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { recordAudit } from '../../db/writes/audit.js';
import { base32Decode, base32Encode, matchTotp, otpauthUrl } from '../../domain/totp.js';
import { Refusal } from '../http/errors.js';
import { ownAccountAudit, secondFactorRequired, type AdminPrincipal } from './admin-auth.js';
import {
  elevateAdminSession,
  revokeOtherAdminSessions,
  type IssuedAdminSession,
  type RequestOrigin,
} from './admin-session.js';
import { hashSecret } from './secrets.js';

/**
 * An administrator's second factor: a TOTP authenticator (secret kept as base32, because checking
 * a code needs it) and ten one-use recovery codes (only their hashes are kept). Checking a proof
 * uses it up: the TOTP step becomes the last accepted one, a recovery code is deleted.
 */
export type SecondFactorProof = { code: string } | { recoveryCode: string };

export const RECOVERY_CODE_COUNT = 10;

export const invalidSecondFactor = () =>
  new Refusal(400, 'INVALID_SECOND_FACTOR', 'The code is not correct, was already used, or has expired');

export interface AcceptedProof {
  method: 'totp' | 'recovery_code';
  recoveryCodesLeft: number;
}

/** A new authenticator secret: 160 random bits (RFC 4226's recommended length), base32. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** Ten recovery codes like `k3v9q-7mxa2` (50 random bits each), shown to the administrator once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const text = base32Encode(randomBytes(7)).slice(0, 10).toLowerCase();
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
}

/** Typed by hand, a code may come with other case, spaces or without its dash. */
export function hashRecoveryCode(code: string): string {
  return hashSecret(code.toLowerCase().replace(/[\s-]/g, ''));
}

interface FactorRow {
  totp_secret: string | null;
  totp_confirmed_at: Date | null;
  totp_last_step: string | null;
  recovery_code_hashes: string[];
}

/**
 * Checks a proof against the account's confirmed authenticator or its recovery codes and uses it
 * up, inside the caller's transaction (the administrator row stays locked until it ends, so two
 * requests cannot both spend one code). Null when the proof is wrong, replayed or already used.
 */
export async function consumeSecondFactor(
  client: Pick<PoolClient, 'query'>,
  adminId: string,
  proof: SecondFactorProof,
  nowMs: number,
): Promise<AcceptedProof | null> {
  const { rows } = await client.query<FactorRow>(
    'select totp_secret, totp_confirmed_at, totp_last_step, recovery_code_hashes from admins where id = $1 for update',
    [adminId],
  );
  const row = rows[0];
  if (!row?.totp_secret || !row.totp_confirmed_at) return null;
  if ('recoveryCode' in proof) {
    const hash = hashRecoveryCode(proof.recoveryCode);
    if (!row.recovery_code_hashes.includes(hash)) return null;
    await client.query(
      'update admins set recovery_code_hashes = array_remove(recovery_code_hashes, $2) where id = $1',
      [adminId, hash],
    );
    return { method: 'recovery_code', recoveryCodesLeft: row.recovery_code_hashes.length - 1 };
  }
  const key = base32Decode(row.totp_secret);
  const lastStep = row.totp_last_step === null ? null : Number(row.totp_last_step);
  const step = key ? matchTotp(key, proof.code, nowMs, lastStep) : null;
  if (step === null) return null;
  await client.query('update admins set totp_last_step = $2 where id = $1', [adminId, step]);
  return { method: 'totp', recoveryCodesLeft: row.recovery_code_hashes.length };
}

/** The step a code from a not yet confirmed secret matches, or null. */
export function matchPendingSecret(secret: string, code: string, nowMs: number): number | null {
  const key = base32Decode(secret);
  return key ? matchTotp(key, code, nowMs) : null;
}

/** A refused code is written to the audit log (auth.second_factor_failed) in the caller's transaction. */
export async function recordSecondFactorFailure(
  client: Pick<PoolClient, 'query'>,
  adminId: string,
  origin: RequestOrigin,
  details: Record<string, unknown>,
): Promise<void> {
  await recordAudit(client, {
    ...ownAccountAudit(adminId, origin),
    action: 'auth.second_factor_failed',
    details,
  });
}

/**
 * Checks a proof and uses it up (consumeSecondFactor); a wrong one is recorded with `failure` as
 * the audit details. Null when it was refused.
 */
export async function spendSecondFactor(
  client: Pick<PoolClient, 'query'>,
  adminId: string,
  proof: SecondFactorProof,
  origin: RequestOrigin,
  failure: Record<string, unknown>,
): Promise<AcceptedProof | null> {
  const accepted = await consumeSecondFactor(client, adminId, proof, Date.now());
  if (!accepted) await recordSecondFactorFailure(client, adminId, origin, failure);
  return accepted;
}

/**
 * Runs `work` in one transaction. A refused code answers null: the transaction still commits, so
 * its audit row stays, and then the caller gets 400 INVALID_SECOND_FACTOR.
 */
export async function unlessCodeRefused<T>(
  db: Database,
  work: (client: PoolClient) => Promise<T | null>,
): Promise<T> {
  const outcome = await db.transaction(work);
  if (outcome === null) throw invalidSecondFactor();
  return outcome;
}

type Deps = { db: Database; config: Pick<Config, 'ADMIN_TOTP_ISSUER'> };

/** How long a new authenticator secret waits for its first code before it has to be started again. */
export const ENROLMENT_TTL_MINUTES = 15;

export interface StartedEnrolment {
  secret: string;
  otpauthUrl: string;
  /** Unix epoch seconds. */
  expiresAt: number;
}

/**
 * Starts setting up an authenticator, or replacing the one in use. Replacing needs a proof from
 * the current one (a signed-in session alone must not be enough to move the second factor to
 * another device). The new secret waits, apart from the one in use, until a code confirms it.
 */
export async function startEnrolment(
  deps: Deps,
  admin: AdminPrincipal,
  proof: SecondFactorProof | null,
  origin: RequestOrigin,
): Promise<StartedEnrolment> {
  if (admin.totpEnabled && admin.secondFactorPending) throw secondFactorRequired(admin);
  if (admin.totpEnabled && !proof) {
    throw new Refusal(
      400,
      'SECOND_FACTOR_PROOF_REQUIRED',
      'Replacing the authenticator needs a code from the current one, or a recovery code',
    );
  }
  const secret = newTotpSecret();
  const expiresAt = await unlessCodeRefused(deps.db, async (client) => {
    if (admin.totpEnabled && proof) {
      const purpose = { purpose: 'change_authenticator' };
      if (!(await spendSecondFactor(client, admin.adminId, proof, origin, purpose))) return null;
    }
    const { rows } = await client.query<PendingExpiryRow>(
      `update admins set totp_pending_secret = $2, totp_pending_expires_at = now() + make_interval(mins => $3), updated_at = now()
       where id = $1 returning floor(extract(epoch from totp_pending_expires_at))::float8 as expires_at`,
      [admin.adminId, secret, ENROLMENT_TTL_MINUTES],
    );
    await recordAudit(client, {
      ...ownAccountAudit(admin.adminId, origin),
      action: 'security.2fa_enrolment_started',
      details: { replacing: admin.totpEnabled },
    });
    return rows[0]!.expires_at;
  });
  return {
    secret,
    otpauthUrl: otpauthUrl({ issuer: deps.config.ADMIN_TOTP_ISSUER, accountName: admin.email, secret }),
    expiresAt,
  };
}

interface PendingExpiryRow {
  /** Unix epoch seconds (cast in SQL). */
  expires_at: number;
}

export interface ConfirmedEnrolment {
  recoveryCodes: string[];
  session: IssuedAdminSession;
}

/**
 * Confirms the waiting secret with a code from it: it becomes the authenticator in use, ten new
 * recovery codes replace the old ones, this session counts as having given its second factor
 * (new session and CSRF secrets) and every other session of the administrator ends.
 */
export async function confirmEnrolment(
  deps: Deps,
  admin: AdminPrincipal,
  code: string,
  origin: RequestOrigin,
): Promise<ConfirmedEnrolment> {
  if (admin.totpEnabled && admin.secondFactorPending) throw secondFactorRequired(admin);
  const recoveryCodes = newRecoveryCodes();
  const session = await unlessCodeRefused(deps.db, async (client) => {
    const { rows } = await client.query<PendingSecretRow>(
      `select totp_pending_secret, totp_pending_expires_at > now() as waiting, totp_confirmed_at is not null as replacing
       from admins where id = $1 for update`,
      [admin.adminId],
    );
    const row = rows[0];
    if (!row?.totp_pending_secret || !row.waiting) {
      throw new Refusal(
        409,
        'SECOND_FACTOR_ENROLMENT_NOT_STARTED',
        'No authenticator set-up is waiting: start one with POST /security/2fa',
      );
    }
    const step = matchPendingSecret(row.totp_pending_secret, code, Date.now());
    if (step === null) {
      await recordSecondFactorFailure(client, admin.adminId, origin, { purpose: 'confirm_authenticator' });
      return null;
    }
    await client.query(
      `update admins set totp_secret = totp_pending_secret, totp_confirmed_at = now(), totp_pending_secret = null,
         totp_pending_expires_at = null, totp_last_step = $2, recovery_code_hashes = $3, updated_at = now()
       where id = $1`,
      [admin.adminId, step, recoveryCodes.map(hashRecoveryCode)],
    );
    await revokeOtherAdminSessions(client, admin.adminId, admin.sessionId);
    const elevated = await elevateAdminSession(client, admin.sessionId);
    await recordAudit(client, {
      ...ownAccountAudit(admin.adminId, origin),
      action: row.replacing ? 'security.2fa_changed' : 'security.2fa_enabled',
    });
    return elevated;
  });
  return { recoveryCodes, session };
}

interface PendingSecretRow {
  totp_pending_secret: string | null;
  waiting: boolean;
  replacing: boolean;
}

/**
 * Removes the authenticator and the recovery codes, given a current code or a recovery code.
 * Refused (409 SECOND_FACTOR_REQUIRED_BY_POLICY) while the account's totp_required is set: such
 * an account replaces its authenticator instead.
 */
export async function removeSecondFactor(
  deps: Deps,
  admin: AdminPrincipal,
  proof: SecondFactorProof,
  origin: RequestOrigin,
): Promise<void> {
  await unlessCodeRefused(deps.db, async (client) => {
    const { rows } = await client.query<FactorPolicyRow>(
      'select totp_required, totp_confirmed_at is not null as enabled from admins where id = $1 for update',
      [admin.adminId],
    );
    const row = rows[0]!;
    if (!row.enabled)
      throw new Refusal(409, 'SECOND_FACTOR_NOT_ENABLED', 'This account has no authenticator set up');
    if (row.totp_required) {
      throw new Refusal(
        409,
        'SECOND_FACTOR_REQUIRED_BY_POLICY',
        'This account must keep a second factor; replace the authenticator instead',
      );
    }
    const purpose = { purpose: 'remove_authenticator' };
    const accepted = await spendSecondFactor(client, admin.adminId, proof, origin, purpose);
    if (!accepted) return null;
    await client.query(
      `update admins set totp_secret = null, totp_confirmed_at = null, totp_pending_secret = null, totp_pending_expires_at = null,
         totp_last_step = null, recovery_code_hashes = '{}', updated_at = now()
       where id = $1`,
      [admin.adminId],
    );
    await recordAudit(client, {
      ...ownAccountAudit(admin.adminId, origin),
      action: 'security.2fa_removed',
      details: { method: accepted.method },
    });
    return true;
  });
}

interface FactorPolicyRow {
  totp_required: boolean;
  enabled: boolean;
}
