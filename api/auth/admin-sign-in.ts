import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { recordAudit } from '../../db/writes/audit.js';
import { effectivePermissions, type AdminPermission, type AdminRole } from '../../domain/permissions.js';
import { Refusal } from '../http/errors.js';
import { ownAccountAudit, type AdminPrincipal } from './admin-auth.js';
import { spendSecondFactor, unlessCodeRefused, type SecondFactorProof } from './admin-second-factor.js';
import {
  elevateAdminSession,
  issueAdminSession,
  revokeAdminSession,
  type IssuedAdminSession,
  type RequestOrigin,
} from './admin-session.js';
import { hashPassword, passwordMatches, unknownAccountHash } from './passwords.js';

/**
 * Administration sign-in: e-mail and password (argon2id), then, when the account needs it, a TOTP
 * code or a recovery code. A wrong password, an unknown e-mail and a disabled account all get the
 * same 401 INVALID_CREDENTIALS, and an unknown e-mail still costs one argon2 verification, so
 * neither the answer nor its timing tells whether an address has an account.
 */
type Deps = {
  db: Database;
  config: Pick<Config, 'ADMIN_SESSION_TTL_HOURS' | 'ADMIN_SESSION_IDLE_MINUTES' | 'COOKIE_SECURE'>;
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

interface AdminRow {
  id: string;
  email: string;
  name: string;
  role: AdminRole;
  permissions: string[];
  password_hash: string;
  status: 'ACTIVE' | 'DISABLED';
  totp_required: boolean;
  totp_enabled: boolean;
}

export async function signInAdmin(
  deps: Deps,
  input: { email: string; password: string },
  origin: RequestOrigin,
): Promise<SignedInAdmin> {
  const [row] = await deps.db.query<AdminRow>(
    `select id, email, name, role, permissions, password_hash, status, totp_required, totp_confirmed_at is not null as totp_enabled
     from admins where lower(email) = lower($1)`,
    [input.email],
  );
  const matches = await passwordMatches(row?.password_hash ?? (await unknownAccountHash()), input.password);
  if (!row || !matches || row.status !== 'ACTIVE') {
    if (row)
      await recordAudit(deps.db.pool, { ...ownAccountAudit(row.id, origin), action: 'auth.login_failed' });
    throw invalidCredentials();
  }
  const secondFactorRequired = row.totp_required || row.totp_enabled;
  const session = await deps.db.transaction(async (client) => {
    const issued = await issueAdminSession(client, deps.config, row.id);
    await recordAudit(client, {
      ...ownAccountAudit(row.id, origin),
      action: 'auth.login',
      details: { sessionId: issued.sessionId, secondFactorRequired },
    });
    return issued;
  });
  return {
    session,
    admin: {
      id: row.id,
      email: row.email,
      name: row.name,
      role: row.role,
      permissions: effectivePermissions(row.role, row.permissions),
    },
    secondFactorRequired,
    enrolmentRequired: secondFactorRequired && !row.totp_enabled,
  };
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
  return unlessCodeRefused(deps.db, async (client) => {
    const failure = { method: methodOf(proof) };
    const accepted = await spendSecondFactor(client, admin.adminId, proof, origin, failure);
    if (!accepted) return null;
    const session = await elevateAdminSession(client, admin.sessionId);
    await recordAudit(client, {
      ...ownAccountAudit(admin.adminId, origin),
      action: 'auth.second_factor',
      details: { sessionId: admin.sessionId, ...accepted },
    });
    return session;
  });
}

export async function signOutAdmin(
  db: Database,
  admin: AdminPrincipal,
  origin: RequestOrigin,
): Promise<void> {
  await db.transaction(async (client) => {
    await revokeAdminSession(client, admin.sessionId);
    await recordAudit(client, {
      ...ownAccountAudit(admin.adminId, origin),
      action: 'auth.logout',
      details: { sessionId: admin.sessionId },
    });
  });
}

export function methodOf(proof: SecondFactorProof): 'totp' | 'recovery_code' {
  return 'code' in proof ? 'totp' : 'recovery_code';
}
