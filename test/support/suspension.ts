import type { Database, TransactionClient } from '../../db/orm.js';
import { answeredOrWaiting } from '../drills/support/blocking.js';

/**
 * A dashboard write meeting an administrator's suspension in flight. The suspension, as
 * db/writes/company-moderation.ts makes it, holds the company row FOR UPDATE when `write` starts,
 * so the write passes the session's check of the company (api/auth/staff-auth.ts); once the write
 * waits on the row (or has answered), the suspension sets SUSPENDED and commits. Answers the
 * write's answer: a write that takes the company row first (db/writes/active-company.ts) sees the
 * committed suspension and is refused 403 COMPANY_SUSPENDED, writing nothing.
 */
export function suspendedWhileWriting<T>(
  db: Database,
  companyId: string,
  write: () => Promise<T>,
): Promise<T> {
  return whileWriting(db, companyId, write, async (client) => {
    await client.query(`update companies set status = 'SUSPENDED' where id = $1`, [companyId]);
  });
}

/**
 * A dashboard write meeting an administrator's unverification in flight (UNVERIFY, made as
 * suspendedWhileWriting makes a suspension): the write passes the session's check of `verified`,
 * then the company stops being verified while it waits on the company row.
 */
export function unverifiedWhileWriting<T>(
  db: Database,
  companyId: string,
  write: () => Promise<T>,
): Promise<T> {
  return whileWriting(db, companyId, write, async (client) => {
    await client.query('update companies set verified = false where id = $1', [companyId]);
  });
}

/**
 * A dashboard write meeting its own member's demotion in flight, as db/writes/team.ts makes it: the
 * company row held FOR UPDATE when `write` starts, so the write passes the session guard with the
 * old role; once the write waits on the row (or has answered), the membership becomes `role` and
 * the demotion commits. A write that checks its actor again (db/writes/acting-member.ts) is then
 * judged on `role`.
 */
export function demotedWhileWriting<T>(
  db: Database,
  companyId: string,
  membershipId: string,
  role: string,
  write: () => Promise<T>,
): Promise<T> {
  return whileWriting(db, companyId, write, async (client) => {
    await client.query('update company_memberships set role = $2 where id = $1', [membershipId, role]);
  });
}

/**
 * A dashboard write meeting its own member's sign-out in flight (the session revoked, as
 * POST /dashboard/api/auth/logout does), made the way demotedWhileWriting makes a demotion.
 */
export function signedOutWhileWriting<T>(
  db: Database,
  companyId: string,
  sessionId: string,
  write: () => Promise<T>,
): Promise<T> {
  return whileWriting(db, companyId, write, async (client) => {
    await client.query('update staff_sessions set revoked_at = now() where id = $1', [sessionId]);
  });
}

/**
 * `write` started while the company row is held FOR UPDATE; once it waits on the row (or has
 * answered), `change` runs in the holding transaction, which then commits. Answers the write's answer.
 */
async function whileWriting<T>(
  db: Database,
  companyId: string,
  write: () => Promise<T>,
  change: (client: TransactionClient) => Promise<void>,
): Promise<T> {
  const { answer } = await db.transaction(async (client) => {
    await client.query('select status from companies where id = $1 for update', [companyId]);
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const answer = write();
    await answeredOrWaiting(answer, db, rows[0]!.pid);
    await change(client);
    // Wrapped: a promise returned as is would be awaited before the change commits.
    return { answer };
  });
  return answer;
}
