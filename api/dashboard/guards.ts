import { companyNotVerified, companySuspended } from '../../domain/company-moderation.js';
import { roleNotAllowed } from '../../domain/company-actor.js';
import type { ActingMember } from '../../db/writes/acting-member.js';
import type { Context } from 'koa';
import type { CompanyRole, StaffPrincipal } from '../auth/staff-session.js';
import { Refusal } from '../http/errors.js';

/**
 * Access rules of the company dashboard (SPEC "General access rules"), each a small check on the
 * signed-in company user that throws an explicit failure:
 *   reads   the resource belongs to the session's company, else 404 (another company's ids are
 *           not confirmed to exist)                                  -> ownedByCompany
 *   writes  the company is active and not suspended                   -> requireActiveCompany
 *           (the staff authenticator checks it for every dashboard write before its input is
 *           read, api/auth/staff-auth.ts; a route may still name it)
 *   some writes need a verified company                               -> requireVerifiedCompany
 *   sensitive operations need certain roles                           -> requireRole(...)
 * A route calls `authorize(ctx, ...guards)` first; guards run in the order given. The company is
 * always the one of the session's membership, never a company id from the request.
 */
export type StaffGuard = (staff: StaffPrincipal) => void;

/** SPEC: sensitive areas require OWNER, ADMIN or ACCOUNTANT. */
export const SENSITIVE_ROLES = ['OWNER', 'ADMIN', 'ACCOUNTANT'] as const satisfies readonly CompanyRole[];
/** SPEC: company settings, loyalty program writes and analytics are for OWNER and ADMIN. */
export const MANAGEMENT_ROLES = ['OWNER', 'ADMIN'] as const satisfies readonly CompanyRole[];

/** The signed-in company user; only routes declared `companyStaff` have one. */
export function currentStaff(ctx: Context): StaffPrincipal {
  const staff = ctx.state.staff;
  if (!staff) throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to the company dashboard');
  return staff;
}

/** Runs the guards on the signed-in company user and returns it. */
export function authorize(ctx: Context, ...guards: StaffGuard[]): StaffPrincipal {
  const staff = currentStaff(ctx);
  for (const guard of guards) guard(staff);
  return staff;
}

/** A route's guard (see staff-route.ts): `authorize` with these checks. */
export const allow =
  (...guards: StaffGuard[]) =>
  (ctx: Context): StaffPrincipal =>
    authorize(ctx, ...guards);

export function requireRole(...roles: readonly CompanyRole[]): StaffGuard {
  return (staff) => {
    if (!roles.includes(staff.role)) throw roleNotAllowed(staff.role, roles);
  };
}

/**
 * The signed-in user as a company write checks them again in its transaction (companyTransaction's
 * actor, db/writes/acting-member.ts): their session and membership, still allowed `roles` (the
 * roles the route's guard let in).
 */
export const actingMember = (staff: StaffPrincipal, roles: readonly CompanyRole[]): ActingMember => ({
  sessionId: staff.sessionId,
  membershipId: staff.membershipId,
  staffUserId: staff.staffUserId,
  allowedRoles: roles,
});

/** Also checks a driver's membership (share issuing): only the company's status is read. */
export const requireActiveCompany = (staff: Pick<StaffPrincipal, 'company'>): void => {
  if (staff.company.status !== 'ACTIVE') {
    throw companySuspended();
  }
};

/** Reads for OWNER and ADMIN (MANAGEMENT_ROLES). */
export const managerRead = (ctx: Context): StaffPrincipal => authorize(ctx, requireRole(...MANAGEMENT_ROLES));

/** Writes for OWNER and ADMIN of an active company. */
export const managerWrite = (ctx: Context): StaffPrincipal =>
  authorize(ctx, requireRole(...MANAGEMENT_ROLES), requireActiveCompany);

export const requireVerifiedCompany: StaffGuard = (staff) => {
  if (!staff.company.verified) {
    throw companyNotVerified();
  }
};

/**
 * A resource as the session's company may see it: the row when its company_id is the session's
 * company, else `notFound()`, the resource's own 404 (BOOKING_NOT_FOUND, BUS_NOT_FOUND, ...), the
 * same answer as for an id that does not exist and as the resource's other routes give.
 */
export function ownedByCompany<Row extends { company_id: string | null }>(
  staff: StaffPrincipal,
  row: Row | undefined | null,
  notFound: () => Refusal,
): Row {
  if (!row || row.company_id !== staff.companyId) throw notFound();
  return row;
}
