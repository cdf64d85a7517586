import type { Context } from 'koa';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import type { AuditActor } from '../../db/writes/audit.js';
import {
  adminSessionEnded,
  effectivePermissions,
  permissionDenied,
  secondFactorMandatory,
  type AdminPermission,
  type AdminRole,
} from '../../domain/permissions.js';
import { Refusal } from '../http/errors.js';
import type { Authenticator } from '../http/route.js';
import {
  ADMIN_COOKIE,
  ADMIN_CSRF_HEADER,
  secondFactorPending,
  touchAdminSession,
  type AdminSessionRecord,
} from './admin-session.js';
import { checkSessionCsrf } from './csrf.js';
import { requiredSessionCookie } from './session-cookie.js';
import { requestOrigin } from '../http/request-origin.js';

/** The signed-in administrator of a request on the administration surface. */
export interface AdminPrincipal {
  adminId: string;
  sessionId: string;
  email: string;
  name: string;
  role: AdminRole;
  grantedPermissions: string[];
  /** The role's permissions plus the granted ones. */
  permissions: AdminPermission[];
  totpRequired: boolean;
  totpEnabled: boolean;
  /** The account needs a second factor this session has not given yet. */
  secondFactorPending: boolean;
}

declare module 'koa' {
  interface DefaultState {
    admin?: AdminPrincipal;
  }
}

/**
 * The administration surface's authenticator. Every route but sign-in needs a live session
 * (cookie bb_admin; none → 401 AUTH_REQUIRED, unknown, revoked, expired, idle or disabled → 401
 * INVALID_CREDENTIAL). Writes need X-CSRF-Token matching the session (403 CSRF_TOKEN_INVALID).
 * While the account owes its second factor only 'administratorFirstFactor' routes answer; the
 * rest say 403 SECOND_FACTOR_REQUIRED. Traveller tokens and dashboard cookies are not read here.
 */
export function adminAuthenticator(deps: { db: Database; config: Config }): Authenticator {
  return async (ctx, route) => {
    ctx.state.admin = undefined;
    if (route.security === 'public') return;
    const token = requiredSessionCookie(ctx, ADMIN_COOKIE, 'Sign in to the administration');
    const session = await touchAdminSession(deps.db, deps.config, token);
    if (!session) throw adminSessionEnded();
    if (route.csrf) {
      checkSessionCsrf(
        ctx,
        ADMIN_CSRF_HEADER,
        session.csrfTokenHash,
        'Send the X-CSRF-Token header with the value given at sign-in',
      );
    }
    const admin = principal(session, deps.config.NODE_ENV === 'production');
    if (admin.secondFactorPending && route.security !== 'administratorFirstFactor') {
      throw secondFactorRequired(admin);
    }
    ctx.state.admin = admin;
  };
}

function principal(stored: AdminSessionRecord, production: boolean): AdminPrincipal {
  const session = { ...stored, totpRequired: secondFactorMandatory(stored, production) };
  return {
    adminId: session.adminId,
    sessionId: session.sessionId,
    email: session.email,
    name: session.name,
    role: session.role,
    grantedPermissions: session.grantedPermissions,
    permissions: effectivePermissions(session.role, session.grantedPermissions),
    totpRequired: session.totpRequired,
    totpEnabled: session.totpEnabled,
    secondFactorPending: secondFactorPending(session),
  };
}

export function secondFactorRequired(admin: Pick<AdminPrincipal, 'totpEnabled'>): Refusal {
  return admin.totpEnabled
    ? new Refusal(
        403,
        'SECOND_FACTOR_REQUIRED',
        'Confirm this session with a code from your authenticator (POST /auth/2fa)',
        {
          enrolmentRequired: false,
        },
      )
    : new Refusal(
        403,
        'SECOND_FACTOR_REQUIRED',
        'This account must set up an authenticator first (POST /security/2fa)',
        {
          enrolmentRequired: true,
        },
      );
}

/** The administrator the authenticator admitted; only routes with administrator security call it. */
export function currentAdmin(ctx: Context): AdminPrincipal {
  const admin = ctx.state.admin;
  if (!admin) throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to the administration');
  return admin;
}

/** The current administrator, when they hold `permission`; else 403 PERMISSION_DENIED naming it. */
export function requirePermission(ctx: Context, permission: AdminPermission): AdminPrincipal {
  const admin = currentAdmin(ctx);
  if (!admin.permissions.includes(permission)) throw permissionDenied(permission);
  return admin;
}

/** Who and where, for an audit row written on behalf of the current administrator. */
export function adminAuditActor(ctx: Context): AuditActor {
  return {
    actorKind: 'ADMIN',
    actorId: ctx.state.admin?.adminId ?? null,
    ...requestOrigin(ctx),
  };
}
