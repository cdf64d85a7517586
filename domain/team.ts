import { Refusal } from './refusal.js';

/**
 * Who in a company may change whose membership, and how (PATCH /dashboard/api/team/{membershipId}).
 * SPEC says companies manage their team; the rules are the project's:
 *   - nobody changes their own membership                          403 TEAM_SELF_CHANGE
 *   - only an OWNER changes an OWNER's membership or makes an OWNER  403 ROLE_NOT_ALLOWED
 *   - staff roles change among OWNER, ADMIN, DISPATCHER, STAFF and ACCOUNTANT; a DRIVER membership is
 *     only deactivated or reactivated and nobody becomes a DRIVER here (drivers sign in through the
 *     driver app and are made by POST /drivers)                     422 TEAM_ROLE_CHANGE_NOT_ALLOWED
 *   - the company keeps at least one active OWNER membership whose account is active
 *                                                                    409 LAST_OWNER
 */
export const TEAM_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT', 'DRIVER'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/**
 * Where a company user's session was opened (staff_sessions.surface): the dashboard's sign-in or the
 * driver app's. The dashboard takes only its own sessions; the driver app takes both.
 */
export const STAFF_SESSION_SURFACES = ['DASHBOARD', 'DRIVER_APP'] as const;
export type StaffSessionSurface = (typeof STAFF_SESSION_SURFACES)[number];

/** What a PATCH asks for: a new role, a new active flag, or both. */
export interface TeamChange {
  role?: TeamRole;
  active?: boolean;
}

/** A membership as the rules read it. */
export interface MembershipState {
  membershipId: string;
  role: TeamRole;
  active: boolean;
}

/** The member acting: their membership and its role (an OWNER or ADMIN: the route's guard). */
export interface TeamActor {
  membershipId: string;
  role: string;
}

export class TeamRefusal extends Refusal {}

/** The membership once `change` is applied. */
export function applyTeamChange(target: MembershipState, change: TeamChange): MembershipState {
  return { ...target, role: change.role ?? target.role, active: change.active ?? target.active };
}

/** Whether `change` leaves the membership as it is (answered 200, nothing written). */
export function changesNothing(target: MembershipState, change: TeamChange): boolean {
  const next = applyTeamChange(target, change);
  return next.role === target.role && next.active === target.active;
}

/**
 * The refusal of `actor` changing `target` by `change` on who may change whom and between which
 * roles, or null when these rules allow it. Checked before anything is written; whether an owner is
 * left is ownerLeftRefusal, against the company's owners as they are under its lock.
 */
export function teamChangeRefusal(
  actor: TeamActor,
  target: MembershipState,
  change: TeamChange,
): TeamRefusal | null {
  if (actor.membershipId === target.membershipId) {
    return new TeamRefusal(403, 'TEAM_SELF_CHANGE', 'Nobody changes their own membership; ask another owner');
  }
  const touchesOwner = target.role === 'OWNER' || change.role === 'OWNER';
  if (touchesOwner && actor.role !== 'OWNER') {
    return new TeamRefusal(
      403,
      'ROLE_NOT_ALLOWED',
      "Only an OWNER changes an OWNER's membership or makes an OWNER",
      {
        role: actor.role,
        allowedRoles: ['OWNER'],
      },
    );
  }
  const roleChanges = change.role !== undefined && change.role !== target.role;
  if (roleChanges && (target.role === 'DRIVER' || change.role === 'DRIVER')) {
    return new TeamRefusal(
      422,
      'TEAM_ROLE_CHANGE_NOT_ALLOWED',
      'A driver membership is only deactivated or reactivated, and nobody becomes a driver here',
      { from: target.role, to: change.role },
    );
  }
  return null;
}

/** Whether the membership counts as one of the company's owners (its user account active too). */
export const keepsCompany = (member: { role: string; active: boolean; accountActive: boolean }): boolean =>
  member.role === 'OWNER' && member.active && member.accountActive;

/**
 * The refusal of a change that would leave the company without an owner, or null. `otherOwners`
 * counts the company's active OWNER memberships with active accounts besides the target's.
 */
export function ownerLeftRefusal(
  target: MembershipState & { accountActive: boolean },
  change: TeamChange,
  otherOwners: number,
): TeamRefusal | null {
  const next = applyTeamChange(target, change);
  const removesOwner =
    keepsCompany(target) && !keepsCompany({ ...next, accountActive: target.accountActive });
  if (removesOwner && otherOwners === 0) {
    return new TeamRefusal(
      409,
      'LAST_OWNER',
      'The company keeps at least one active OWNER; make another member OWNER first',
    );
  }
  return null;
}
