import { randomBytes } from 'node:crypto';
import type { Config } from '../../config/index.js';
import { adminPasswordHash } from '../../db/queries/admins.js';
import type { Database } from '../../db/orm.js';
import { ownAccountAudit, recordAudit, type RequestOrigin } from '../../db/writes/audit.js';
import {
  confirmAuthenticator,
  removeAuthenticator,
  startAuthenticatorEnrolment,
  type ProofToSpend,
  type SecondFactorRefusal,
} from '../../db/writes/second-factor.js';
import { base32Encode, otpauthUrl } from '../../domain/totp.js';
import { Refusal } from '../http/errors.js';
import { secondFactorRequired, type AdminPrincipal } from './admin-auth.js';
import type { IssuedAdminSession } from './admin-session.js';
import { passwordMatches } from './passwords.js';
import { hashSecret, newSessionSecrets } from './secrets.js';

/**
 * An administrator's second factor: a TOTP authenticator (secret kept as base32, because checking
 * a code needs it) and ten one-use recovery codes (only their hashes are kept). Checking a proof
 * uses it up: the TOTP step becomes the last accepted one, a recovery code is deleted
 * (db/writes/second-factor.ts). A refused code is recorded and then answered 400
 * INVALID_SECOND_FACTOR.
 */
export type SecondFactorProof = { code: string } | { recoveryCode: string };

export const RECOVERY_CODE_COUNT = 10;

export const invalidSecondFactor = () =>
  new Refusal(400, 'INVALID_SECOND_FACTOR', 'The code is not correct, was already used, or has expired');

/** What each refusal of a second-factor write tells the client. */
const REFUSALS: Record<SecondFactorRefusal, () => Refusal> = {
  CODE_REFUSED: invalidSecondFactor,
  NOT_STARTED: () =>
    new Refusal(
      409,
      'SECOND_FACTOR_ENROLMENT_NOT_STARTED',
      'No authenticator set-up is waiting: start one with POST /security/2fa',
    ),
  NOT_ENABLED: () =>
    new Refusal(409, 'SECOND_FACTOR_NOT_ENABLED', 'This account has no authenticator set up'),
  REQUIRED_BY_POLICY: () =>
    new Refusal(
      409,
      'SECOND_FACTOR_REQUIRED_BY_POLICY',
      'This account must keep a second factor; replace the authenticator instead',
    ),
};

const isRefusal = (outcome: unknown): outcome is SecondFactorRefusal =>
  typeof outcome === 'string' && Object.hasOwn(REFUSALS, outcome);

/** A second-factor write's result, or the refusal it answered thrown (400 INVALID_SECOND_FACTOR, 409 ...). */
export function unlessRefused<T extends object>(outcome: T | SecondFactorRefusal): T {
  if (isRefusal(outcome)) throw REFUSALS[outcome]();
  return outcome;
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

/** The proof as the database checks it: a recovery code only as its hash. */
export function proofToSpend(proof: SecondFactorProof): ProofToSpend {
  return 'recoveryCode' in proof ? { recoveryCodeHash: hashRecoveryCode(proof.recoveryCode) } : proof;
}

type Deps = { db: Database; config: Pick<Config, 'ADMIN_TOTP_ISSUER' | 'NODE_ENV'> };

/** How long a new authenticator secret waits for its first code before it has to be started again. */
export const ENROLMENT_TTL_MINUTES = 15;

export interface StartedEnrolment {
  secret: string;
  otpauthUrl: string;
  /** Unix epoch seconds. */
  expiresAt: number;
}

/**
 * What a session shows before it may start an enrolment: replacing the authenticator in use needs a
 * proof from it, setting up the first one the account's password.
 */
export interface EnrolmentProof {
  proof: SecondFactorProof | null;
  password: string | undefined;
}

/**
 * Starts setting up an authenticator, or replacing the one in use. A signed-in session alone is
 * not enough for either: it could be someone else's cookie, and the authenticator confirmed ends
 * every other session of the account and is then asked for at each sign-in. Replacing needs a
 * proof from the current authenticator (so it cannot move to another device); setting up the
 * first one needs the account's password. The new secret waits, apart from the one in use, until
 * a code confirms it.
 */
export async function startEnrolment(
  deps: Deps,
  admin: AdminPrincipal,
  { proof, password }: EnrolmentProof,
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
  if (!admin.totpEnabled) await checkPassword(deps, admin, password, origin);
  const secret = newTotpSecret();
  const started = await startAuthenticatorEnrolment(
    deps.db,
    admin,
    {
      secret,
      ttlMinutes: ENROLMENT_TTL_MINUTES,
      replacing: admin.totpEnabled,
      proof: admin.totpEnabled && proof ? proofToSpend(proof) : null,
    },
    origin,
  );
  return {
    secret,
    otpauthUrl: otpauthUrl({ issuer: deps.config.ADMIN_TOTP_ISSUER, accountName: admin.email, secret }),
    expiresAt: unlessRefused(started).expiresAt,
  };
}

/**
 * The account's password, before its first authenticator is set up: 400 SECOND_FACTOR_PROOF_REQUIRED
 * without one, and a wrong one is recorded (auth.login_failed, purpose set_up_authenticator) and
 * answered 401 INVALID_CREDENTIALS, sign-in's answer to a wrong password.
 */
async function checkPassword(
  deps: Deps,
  admin: AdminPrincipal,
  password: string | undefined,
  origin: RequestOrigin,
): Promise<void> {
  if (password === undefined) {
    throw new Refusal(
      400,
      'SECOND_FACTOR_PROOF_REQUIRED',
      "Setting up the first authenticator needs the account's password",
    );
  }
  const passwordHash = await adminPasswordHash(deps.db, admin.adminId);
  if (passwordHash && (await passwordMatches(passwordHash, password))) return;
  await recordAudit(deps.db.pool, {
    ...ownAccountAudit(admin.adminId, origin),
    action: 'auth.login_failed',
    details: { purpose: 'set_up_authenticator' },
  });
  throw new Refusal(401, 'INVALID_CREDENTIALS', 'The password is not correct');
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
  const secrets = newSessionSecrets();
  const confirmed = await confirmAuthenticator(
    deps.db,
    admin,
    { code, recoveryCodeHashes: recoveryCodes.map(hashRecoveryCode), secrets: secrets.hashes },
    origin,
  );
  const { expiresAt } = unlessRefused(confirmed);
  return { recoveryCodes, session: secrets.issued(admin.sessionId, expiresAt) };
}

/**
 * Removes the authenticator and the recovery codes, given a current code or a recovery code;
 * every other session of the administrator ends (one still owing the second factor must not
 * outlive it). Refused (409 SECOND_FACTOR_REQUIRED_BY_POLICY) while the account must use a second factor (its
 * totp_required, or in production the permissions it holds: secondFactorMandatory): such an
 * account replaces its authenticator instead.
 */
export async function removeSecondFactor(
  deps: Deps,
  admin: AdminPrincipal,
  proof: SecondFactorProof,
  origin: RequestOrigin,
): Promise<void> {
  const production = deps.config.NODE_ENV === 'production';
  unlessRefused(await removeAuthenticator(deps.db, admin, proofToSpend(proof), origin, production));
}
