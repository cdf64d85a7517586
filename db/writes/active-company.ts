import { companyNotVerified, companySuspended } from '../../domain/company-moderation.js';
import type { Database, TransactionClient } from '../orm.js';
import { lockActor, type CompanyActor } from './acting-member.js';

/** How strongly a write holds its company row (see lockActiveCompany). */
export type CompanyLock = 'update' | 'no key update' | 'share';

/**
 * The company of a dashboard write, locked until the write's transaction ends and still ACTIVE.
 * The dashboard refuses a suspended company's writes when the request arrives
 * (api/auth/staff-auth.ts); a suspension commits under the company row's update lock
 * (db/writes/company-moderation.ts), so a write that takes this lock first either commits before
 * the suspension or waits for it and is refused (403 COMPANY_SUSPENDED), its transaction writing
 * nothing. `update` for a write that serializes the company's own changes on the row,
 * `no key update` for one that serializes a company's changes to its other rows while rows that
 * reference the company (bookings, trips...) are still inserted meanwhile, else `share`.
 * `requireVerified` for a write only a verified company may make: an unverification commits under
 * the same update lock, so one committed while the write waited refuses it (403
 * COMPANY_NOT_VERIFIED, the dashboard guard's answer) as the suspension does.
 */
export async function lockActiveCompany(
  client: Pick<TransactionClient, 'query'>,
  companyId: string,
  mode: CompanyLock,
  { requireVerified = false }: { requireVerified?: boolean | undefined } = {},
): Promise<void> {
  // `mode` is one of the three lock strengths its type names, spelled as SQL spells them.
  const { rows } = await client.query<{ status: string; verified: boolean }>(
    `select status, verified from companies where id = $1 for ${mode}`,
    [companyId],
  );
  if (rows[0]?.status !== 'ACTIVE') {
    throw companySuspended();
  }
  if (requireVerified && !rows[0].verified) {
    throw companyNotVerified();
  }
}

/**
 * The company of a write: its id, or its id and who acts in it (a dashboard member, an API key),
 * read again right after the company row (db/writes/acting-member.ts), and whether the write needs
 * the company verified (lockActiveCompany).
 */
export type WriteCompany =
  string | { companyId: string; actor?: CompanyActor | undefined; requireVerified?: boolean | undefined };

/**
 * `work` as one transaction of the company's data that takes the company row first
 * (lockActiveCompany): a suspension committed meanwhile refuses it (403 COMPANY_SUSPENDED) before
 * it writes anything (as does an unverification, 403 COMPANY_NOT_VERIFIED, for a write that
 * requires a verified company), and its other locks always come after the company's, the order the
 * suspension takes them in. With an actor, the member or API key acting is read again right after
 * the company row and held until the write ends (lockActor): one whose session, membership, role or
 * key changed while the write waited is refused as their next request would be.
 */
export function companyTransaction<T>(
  db: Database,
  company: WriteCompany,
  mode: CompanyLock,
  work: (client: TransactionClient) => Promise<T>,
): Promise<T> {
  const { companyId, actor, requireVerified } =
    typeof company === 'string' ? { companyId: company, actor: undefined, requireVerified: false } : company;
  return db.transaction(async (client) => {
    await lockActiveCompany(client, companyId, mode, { requireVerified });
    if (actor) await lockActor(client, companyId, actor);
    return work(client);
  });
}
