import { Refusal } from '../../domain/refusal.js';
import {
  applyTeamChange,
  changesNothing,
  ownerLeftRefusal,
  teamChangeRefusal,
  type MembershipState,
  type TeamChange,
  type TeamRole,
} from '../../domain/team.js';
import type { Database, TransactionClient } from '../orm.js';
import { findTeamMember, tripsStillAssigned, type AssignedTrip, type TeamMember } from '../queries/team.js';
import { lockActingMember, type ActingMember } from './acting-member.js';
import { companyTransaction } from './active-company.js';
import { recordStaffAudit, type RequestOrigin } from './audit.js';

/**
 * A company's OWNER or ADMIN changes a member's role or deactivates or reactivates the membership
 * (PATCH /dashboard/api/team/{membershipId}), under the rules of domain/team.ts. One transaction:
 * the membership, the end of its sessions when it is deactivated, and the audit row.
 */

export interface TeamMemberUpdate {
  companyId: string;
  /**
   * The acting member's session and the roles the route lets in: their role is read again under the
   * company lock (lockActingMember), as a change committed while the request waited may have
   * demoted or deactivated them.
   */
  actor: ActingMember;
  membershipId: string;
  change: TeamChange;
}

interface TargetRow {
  role: TeamRole;
  active: boolean;
  account_active: boolean;
}

/** The membership of the company, locked for the change, or null (another company's too). */
async function lockMembership(
  client: TransactionClient,
  companyId: string,
  membershipId: string,
): Promise<(MembershipState & { accountActive: boolean }) | null> {
  const { rows } = await client.query<TargetRow>(
    `select m.role, m.active, u.status = 'ACTIVE' as account_active
     from company_memberships m join staff_users u on u.id = m.staff_user_id
     where m.id = $1 and m.company_id = $2
     for update of m`,
    [membershipId, companyId],
  );
  const row = rows[0];
  return row ? { membershipId, role: row.role, active: row.active, accountActive: row.account_active } : null;
}

/** The company's active OWNER memberships with active accounts, besides `membershipId`. */
async function otherOwners(
  client: TransactionClient,
  companyId: string,
  membershipId: string,
): Promise<number> {
  const { rows } = await client.query<{ owners: number }>(
    `select count(*)::int as owners
     from company_memberships m join staff_users u on u.id = m.staff_user_id
     where m.company_id = $1 and m.id <> $2 and m.role = 'OWNER' and m.active and u.status = 'ACTIVE'`,
    [companyId, membershipId],
  );
  return rows[0]!.owners;
}

/**
 * Ends every unrevoked session of the membership at once: the dashboard's and the driver app's,
 * which are the same staff_sessions rows. A reactivation later does not bring them back.
 */
async function revokeMembershipSessions(client: TransactionClient, membershipId: string): Promise<number> {
  const { rowCount } = await client.query(
    'update staff_sessions set revoked_at = now() where membership_id = $1 and revoked_at is null',
    [membershipId],
  );
  return rowCount ?? 0;
}

/** The member as GET /team shows it; a DRIVER also with the trips still to run that name them. */
export type ChangedTeamMember = TeamMember & {
  assignedTrips?: { total: number; trips: AssignedTrip[] };
};

/**
 * The member after the change, read in its transaction. A driver's trips are never unassigned
 * here: a dispatcher gives each another driver (its readiness shows DRIVER_INACTIVE meanwhile).
 */
async function changedMember(
  client: TransactionClient,
  companyId: string,
  membershipId: string,
): Promise<ChangedTeamMember> {
  const member = (await findTeamMember(client, companyId, membershipId))!;
  if (member.role !== 'DRIVER') return member;
  return { ...member, assignedTrips: await tripsStillAssigned(client, companyId, member.userId) };
}

/**
 * Applies the change and answers the member as GET /team shows it (a DRIVER with their trips still
 * to run); a change that changes nothing answers the member and writes nothing. Refusals
 * (domain/team.ts) write nothing either.
 */
export async function updateTeamMember(
  db: Database,
  update: TeamMemberUpdate,
  origin: RequestOrigin,
): Promise<ChangedTeamMember> {
  const { companyId, actor, membershipId, change } = update;
  // Team changes of one company take turns, so two owners demoting each other at the same moment
  // cannot both count the other as the owner who stays; a suspension committed meanwhile refuses
  // the change (db/writes/active-company.ts). NO KEY: rows that reference the company (bookings,
  // trips...) are still inserted meanwhile.
  return companyTransaction(db, companyId, 'no key update', async (client) => {
    const role = await lockActingMember(client, companyId, actor);
    const target = await lockMembership(client, companyId, membershipId);
    if (!target) throw new Refusal(404, 'NOT_FOUND', 'Not found');
    const refusal = teamChangeRefusal({ membershipId: actor.membershipId, role }, target, change);
    if (refusal) throw refusal;
    if (!changesNothing(target, change)) {
      const ownerless = ownerLeftRefusal(target, change, await otherOwners(client, companyId, membershipId));
      if (ownerless) throw ownerless;
      const next = applyTeamChange(target, change);
      await client.query('update company_memberships set role = $2, active = $3 where id = $1', [
        membershipId,
        next.role,
        next.active,
      ]);
      const sessionsRevoked =
        target.active && !next.active ? await revokeMembershipSessions(client, membershipId) : 0;
      await recordStaffAudit(
        client,
        { staffUserId: actor.staffUserId, companyId, ...origin },
        'team.update',
        { kind: 'company_membership', id: membershipId },
        {
          from: { role: target.role, active: target.active },
          to: { role: next.role, active: next.active },
          sessionsRevoked,
        },
      );
    }
    return changedMember(client, companyId, membershipId);
  });
}
