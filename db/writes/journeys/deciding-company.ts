import type { PoolClient } from 'pg';
import { lockActingMember, type ActingMember } from '../acting-member.js';
import { lockActiveCompany } from '../active-company.js';
import { JourneyRefusal } from './scope.js';

/**
 * What a decision's transaction (./decide.ts) checks again of the company deciding, after the
 * trips and the scope are locked: the member who decides for it and the company's standing. The
 * company row is only ever taken FOR SHARE here, as a confirm takes it.
 */

/**
 * The company member deciding (PATCH /dashboard/api/bookings/{id}/status), read again as every
 * other company write reads its actor (db/writes/active-company.ts `companyTransaction`): signed
 * out or deactivated meanwhile is 401 INVALID_CREDENTIAL, a role no longer allowed 403
 * ROLE_NOT_ALLOWED, and the decision writes nothing. The company row first (FOR SHARE), then the
 * member: a team change takes the company row, then the membership (db/writes/team.ts), so one in
 * flight is waited for and its demotion or deactivation seen here, and one that comes later waits
 * for this decision; taking the member first would hold the membership a team change waits on
 * while this decision waits on its company row.
 */
export async function lockDecidingMember(
  client: PoolClient,
  companyId: string,
  member: ActingMember,
): Promise<void> {
  // A suspended company decides nothing, REJECT included: a suspension committed while the decision
  // waited refuses it (403 COMPANY_SUSPENDED, as every company write), and the platform ends the
  // request as COMPANY_SUSPENDED.
  await lockActiveCompany(client, companyId, 'share');
  await lockActingMember(client, companyId, member);
}

/**
 * A suspended company decides nothing; only the platform ends its requests. The company row is
 * taken FOR SHARE, as the confirm takes it: a suspension waits for an approval in flight and then
 * finds the request decided, or commits first and the approval is refused.
 */
export async function refuseSuspendedApproval(client: PoolClient, companyId: string): Promise<void> {
  if ((await lockedCompanyStatus(client, companyId)) !== 'ACTIVE') {
    throw new JourneyRefusal(
      403,
      'COMPANY_SUSPENDED',
      'The company is suspended; it cannot approve requests',
    );
  }
}

/**
 * The platform ends a request for a suspension only while the company is still suspended: an
 * unsuspension committed since leaves it pending (409 COMPANY_NOT_SUSPENDED, nothing written). The
 * company row FOR SHARE, as for an approval: an unsuspension in flight is waited for.
 */
export async function requireStillSuspended(client: PoolClient, companyId: string): Promise<void> {
  if ((await lockedCompanyStatus(client, companyId)) !== 'SUSPENDED') {
    throw new JourneyRefusal(409, 'COMPANY_NOT_SUSPENDED', 'The company is no longer suspended');
  }
}

/** The company's status, its row held FOR SHARE: a suspension or unsuspension in flight is waited for. */
async function lockedCompanyStatus(client: PoolClient, companyId: string): Promise<string | undefined> {
  const { rows } = await client.query<{ status: string }>(
    `select status from companies where id = $1 for share`,
    [companyId],
  );
  return rows[0]?.status;
}
