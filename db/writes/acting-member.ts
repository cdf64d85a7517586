import {
  apiKeyInvalid,
  roleNotAllowed,
  staffSessionEnded,
  type ActingKey,
  type ActingMember,
  type CompanyActor,
} from '../../domain/company-actor.js';
import type { TransactionClient } from '../orm.js';

/**
 * Who acts in a company write, as the write checks them again. The request was let through (the
 * dashboard's session guard, api/auth/staff-auth.ts; the API key's, api/auth/company-api-key.ts)
 * before its transaction began, and the write may then have waited for the company row. Whatever
 * changed the actor meanwhile (a team change or deactivation, db/writes/team.ts, which takes the
 * company row first too; a sign-out; a key's revocation, db/writes/api-keys.ts) either committed
 * before the write read the actor here and the write is refused as the actor's next request would
 * be, or waits for the write to commit: the rows read are held FOR SHARE to the transaction's end.
 * Always read right after the company row (lockActiveCompany), before any other row is locked.
 */

export type { ActingKey, ActingMember, CompanyActor };

interface MemberRow {
  role: string;
  live: boolean;
}

/**
 * The acting member's role now: their membership (in `companyId`), account and session read under
 * a share lock. A revoked or expired session, an inactive membership or a disabled account is the
 * 401 INVALID_CREDENTIAL the session guard answers; a role the route does not let in, its 403
 * ROLE_NOT_ALLOWED.
 */
export async function lockActingMember(
  client: Pick<TransactionClient, 'query'>,
  companyId: string,
  actor: ActingMember,
): Promise<string> {
  const { rows } = await client.query<MemberRow>(
    `select m.role,
            m.active and u.status = 'ACTIVE' and s.revoked_at is null and s.expires_at > now() as live
     from staff_sessions s
     join company_memberships m on m.id = s.membership_id
     join staff_users u on u.id = m.staff_user_id and u.id = s.staff_user_id
     where s.id = $1 and m.id = $2 and u.id = $3 and m.company_id = $4
     for share of m, u, s`,
    [actor.sessionId, actor.membershipId, actor.staffUserId, companyId],
  );
  const row = rows[0];
  if (!row?.live) throw staffSessionEnded();
  if (!actor.allowedRoles.includes(row.role)) throw roleNotAllowed(row.role, actor.allowedRoles);
  return row.role;
}

/** The acting API key, still unrevoked and the company's, under a share lock; else 401 INVALID_CREDENTIAL. */
export async function lockActingKey(
  client: Pick<TransactionClient, 'query'>,
  companyId: string,
  actor: ActingKey,
): Promise<void> {
  const { rows } = await client.query(
    `select 1 from company_api_keys where id = $1 and company_id = $2 and revoked_at is null for share`,
    [actor.keyId, companyId],
  );
  if (!rows[0]) throw apiKeyInvalid();
}

/** Checks `actor` again (lockActingMember or lockActingKey). */
export async function lockActor(
  client: Pick<TransactionClient, 'query'>,
  companyId: string,
  actor: CompanyActor,
): Promise<void> {
  if ('keyId' in actor) await lockActingKey(client, companyId, actor);
  else await lockActingMember(client, companyId, actor);
}
