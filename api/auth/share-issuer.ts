import type { Context } from 'koa';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { bookingTraveller } from '../../db/queries/booking-ownership.js';
import { PUBLIC_SCOPE } from '../../domain/inventory-scope.js';
import type { ShareIssuer } from '../../domain/document-sharing.js';
import { requireActiveCompany } from '../dashboard/guards.js';
import { Refusal } from '../http/errors.js';
import type { Authenticator } from '../http/route.js';
import { touchAdminSession, ADMIN_COOKIE } from './admin-session.js';
import { checkCsrf } from './customer-auth.js';
import { checkStaffCsrf } from './staff-auth.js';
import { findMembershipSession, recordStaffActivity, STAFF_SESSION_COOKIE } from './staff-session.js';
import { identityStands } from './traveller-session.js';
import { InvalidCredential, ACCESS_COOKIE, type TravellerTokens } from './traveller-token.js';

/**
 * Who may issue (and revoke) document shares, resolved from the session alone: the client never
 * names an actor, a role or a company (SPEC "Document sharing"); domain/document-sharing.ts says
 * what each ShareIssuer may share and revoke.
 *   a traveller session (bearer JWT or the bb_access cookie)           → TRAVELLER (and the canonical
 *                                                                         passenger their bookings may name)
 *   a company user session (bb_staff cookie, or its token as bearer)    → STAFF with the membership role
 *   the same with a DRIVER membership (the driver app's bearer token)   → DRIVER
 *   an administrator session (bb_admin cookie)                          → 403 SHARE_ISSUER_FORBIDDEN:
 *                                                                         platform roles, SUPPORT
 *                                                                         included, have no issuer scope
 * No credential → 401 AUTH_REQUIRED; a dead or invalid one → 401 INVALID_CREDENTIAL; staff or a
 * driver of a suspended company → 403 COMPANY_SUSPENDED. A cookie
 * session's write needs its CSRF header; bearer calls need none.
 */
declare module 'koa' {
  interface DefaultState {
    /** The issuer behind a 'shareIssuer' route. */
    shareIssuer?: ShareIssuer | null;
  }
}

export function currentShareIssuer(ctx: Context): ShareIssuer {
  const issuer = ctx.state.shareIssuer;
  if (!issuer) throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to share a document');
  return issuer;
}

interface IssuerDeps {
  db: Database;
  tokens: TravellerTokens;
  config: Pick<
    Config,
    'STAFF_SESSION_IDLE_MINUTES' | 'ADMIN_SESSION_IDLE_MINUTES' | 'ADMIN_SESSION_TTL_HOURS' | 'COOKIE_SECURE'
  >;
}

const invalid = () =>
  new Refusal(401, 'INVALID_CREDENTIAL', 'The session or authorization header is invalid or expired');

/**
 * The customer surface's authenticator extended with the two share kinds: 'shareIssuer' resolves
 * the issuer as above; 'shareRecipient' reads no user credential at all (the route checks the
 * recipient cookie of its grant), so a signed-in traveller's stale cookie never breaks the share
 * page. Every other kind goes to the customer authenticator.
 */
export function withShareSecurity(customer: Authenticator, deps: IssuerDeps): Authenticator {
  return async (ctx, route) => {
    if (route.security !== 'shareRecipient' && route.security !== 'shareIssuer') return customer(ctx, route);
    ctx.state.traveller = null;
    ctx.state.scope = PUBLIC_SCOPE;
    if (route.security === 'shareIssuer') ctx.state.shareIssuer = await resolveIssuer(ctx, deps, route.csrf);
  };
}

async function resolveIssuer(ctx: Context, deps: IssuerDeps, csrf: boolean): Promise<ShareIssuer> {
  const authorization = ctx.get('Authorization');
  if (authorization) {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1];
    if (!token) throw invalid();
    // Traveller access tokens are JWTs; company and driver session tokens are opaque.
    return token.split('.').length === 3 ? travellerIssuer(deps, token) : staffIssuer(deps, token, null);
  }
  const access = ctx.cookies.get(ACCESS_COOKIE);
  if (access) {
    const issuer = await travellerIssuer(deps, access);
    if (csrf) checkCsrf(ctx);
    return issuer;
  }
  const staff = ctx.cookies.get(STAFF_SESSION_COOKIE);
  if (staff) return staffIssuer(deps, staff, csrf ? ctx : null);
  const admin = ctx.cookies.get(ADMIN_COOKIE);
  if (admin) {
    if (!(await touchAdminSession(deps.db, deps.config, admin))) throw invalid();
    throw new Refusal(
      403,
      'SHARE_ISSUER_FORBIDDEN',
      'Platform administrators cannot share booking documents; the traveller or the company can',
    );
  }
  throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to share a document');
}

async function travellerIssuer(deps: IssuerDeps, token: string): Promise<ShareIssuer> {
  let identity;
  try {
    identity = await deps.tokens.verify(token);
  } catch (error) {
    if (error instanceof InvalidCredential) throw invalid();
    throw error;
  }
  if (!(await identityStands(deps.db, identity))) throw invalid();
  return { kind: 'TRAVELLER', ...(await bookingTraveller(deps.db, identity.userId)) };
}

/** A company user's live session; `csrfOf` is the request when its CSRF header must be checked. */
async function staffIssuer(deps: IssuerDeps, token: string, csrfOf: Context | null): Promise<ShareIssuer> {
  const live = await findMembershipSession(deps.db, token, deps.config.STAFF_SESSION_IDLE_MINUTES);
  if (!live) throw invalid();
  if (csrfOf) checkStaffCsrf(csrfOf, live.csrfTokenHash);
  // A suspended company's staff and drivers neither issue nor revoke shares (as every dashboard write).
  requireActiveCompany(live.staff);
  if (live.stale) await recordStaffActivity(deps.db, live.staff.sessionId);
  const { staffUserId, companyId, role, sessionId, membershipId } = live.staff;
  return {
    kind: role === 'DRIVER' ? 'DRIVER' : 'STAFF',
    staffUserId,
    companyId,
    role,
    sessionId,
    membershipId,
  };
}
