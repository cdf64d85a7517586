import type { Config } from '../../config/index.js';
import { adminCredentials } from '../../db/queries/admins.js';
import type { Database } from '../../db/orm.js';
import { closeAdminSession, openAdminSession } from '../../db/writes/admin-sessions.js';
import { ownAccountAudit, recordAudit } from '../../db/writes/audit.js';
import { passSecondFactor } from '../../db/writes/second-factor.js';
import {
  effectivePermissions,
  secondFactorMandatory,
  type AdminPermission,
  type AdminRole,
} from '../../domain/permissions.js';
import { Refusal } from '../http/errors.js';
import type { AdminPrincipal } from './admin-auth.js';
import { proofToSpend, unlessRefused, type SecondFactorProof } from './admin-second-factor.js';
import type { IssuedAdminSession, RequestOrigin } from './admin-session.js';
import { hashPassword, passwordMatches, unknownAccountHash } from './passwords.js';
import { newSessionSecrets } from './secrets.js';

/**
 * Administration sign-in: e-mail and password (argon2id), then, when the account needs it, a TOTP
 * code or a recovery code. A wrong password, an unknown e-mail and a disabled account all get the
 * same 401 INVALID_CREDENTIALS, and an unknown e-mail still costs one argon2 verification, so
 * neither the answer nor its timing tells whether an address has an account.
 */
type Deps = {
  db: Database;
  config: Pick<
    Config,
    'ADMIN_SESSION_TTL_HOURS' | 'ADMIN_SESSION_IDLE_MINUTES' | 'COOKIE_SECURE' | 'NODE_ENV'
  >;
};

export interface SignedInAdmin {
  session: IssuedAdminSession;
  admin: { id: string; email: string; name: string; role: AdminRole; permissions: AdminPermission[] };
  secondFactorRequired: boolean;
  /** The account must set up an authenticator before anything else. */
  enrolmentRequired: boolean;
}

export const invalidCredentials = () =>
  new Refusal(401, 'INVALID_CREDENTIALS', 'The e-mail or password is not correct');

export const hashAdminPassword = hashPassword;

export async function signInAdmin(
  deps: Deps,
  input: { email: string; password: string },
  origin: RequestOrigin,
): Promise<SignedInAdmin> {
  const account = await adminCredentials(deps.db, input.email);
  const matches = await passwordMatches(
    account?.passwordHash ?? (await unknownAccountHash()),
    input.password,
  );
  if (!account || !matches || account.status !== 'ACTIVE') {
    if (account) await recordFailedSignIn(deps.db, account.id, origin);
    throw invalidCredentials();
  }
  const access = { ...account, grantedPermissions: account.permissions };
  const secondFactorRequired =
    secondFactorMandatory(access, deps.config.NODE_ENV === 'production') || account.totpEnabled;
  const secrets = newSessionSecrets();
  const stored = await openAdminSession(
    deps.db,
    { adminId: account.id, ...secrets.hashes, ttlHours: deps.config.ADMIN_SESSION_TTL_HOURS },
    origin,
    secondFactorRequired,
  );
  // Disabled while the password was checked: refused as a disabled account's sign-in is.
  if (!stored) {
    await recordFailedSignIn(deps.db, account.id, origin);
    throw invalidCredentials();
  }
  return {
    session: secrets.issued(stored.sessionId, stored.expiresAt),
    admin: {
      id: account.id,
      email: account.email,
      name: account.name,
      role: account.role,
      permissions: effectivePermissions(account.role, account.permissions),
    },
    secondFactorRequired,
    enrolmentRequired: secondFactorRequired && !account.totpEnabled,
  };
}

/** A refused sign-in of an existing account, in the audit log (auth.login_failed). */
async function recordFailedSignIn(db: Database, adminId: string, origin: RequestOrigin): Promise<void> {
  await recordAudit(db.pool, { ...ownAccountAudit(adminId, origin), action: 'auth.login_failed' });
}

/**
 * Completes a limited session with a TOTP code or a recovery code. A refused code is recorded
 * (auth.second_factor_failed) before the 400 INVALID_SECOND_FACTOR answer.
 */
export async function completeSecondFactor(
  deps: Deps,
  admin: AdminPrincipal,
  proof: SecondFactorProof,
  origin: RequestOrigin,
): Promise<IssuedAdminSession> {
  if (!admin.secondFactorPending) {
    throw new Refusal(409, 'SECOND_FACTOR_NOT_PENDING', 'This session has already given its second factor');
  }
  if (!admin.totpEnabled) {
    throw new Refusal(
      409,
      'SECOND_FACTOR_ENROLMENT_REQUIRED',
      'Set up an authenticator first (POST /security/2fa, then PATCH /security/2fa)',
    );
  }
  const secrets = newSessionSecrets();
  const passed = await passSecondFactor(deps.db, admin, proofToSpend(proof), secrets.hashes, origin);
  return secrets.issued(admin.sessionId, unlessRefused(passed).expiresAt);
}

export async function signOutAdmin(
  db: Database,
  admin: AdminPrincipal,
  origin: RequestOrigin,
): Promise<void> {
  await closeAdminSession(db, admin, origin);
}
