import type { PoolClient } from 'pg';
import type { ConfirmationScope } from '../../../domain/journey-confirmation.js';
import type { Database } from '../../orm.js';
import { expireHold } from './release.js';
import { closeHoldBatch, setScopeStatus, type LockedScope } from './scope.js';

/**
 * A journey or order hold ends at its batch's expires_at with no process waiting on a timer: the
 * expiry is enforced lazily, as seat locks' is. Every availability read already counts an expired
 * hold's seats as free (db/queries/inventory.ts); the next writer of the scope (a new hold), any read
 * of its projection and the worker's sweep (worker/hold-sweeper.ts) write the EXPIRED state, each in
 * one transaction under the scope lock (release.ts `expireHold`, idempotent).
 */

/**
 * A read of the scope: its overdue hold (for a journey of an order, the order's) is written EXPIRED
 * first, so the projection shows it so. Answers whether it expired one.
 */
export async function expireOverdueHold(db: Database, scope: ConfirmationScope): Promise<boolean> {
  const [batch] = await db.query<{ id: string; scope_kind: 'JOURNEY' | 'ORDER'; scope_id: string }>(
    `select b.id, b.scope_kind, b.scope_id from hold_batches b
     where b.status = 'ACTIVE' and b.expires_at <= now()
       and ((b.scope_kind = $1 and b.scope_id = $2)
            or ($1 = 'JOURNEY' and b.scope_kind = 'ORDER' and b.scope_id = (select order_id from journeys where id = $2)))`,
    [scope.kind, scope.id],
  );
  if (!batch) return false;
  const owning = { kind: batch.scope_kind, id: batch.scope_id };
  return (await expireHold(db, { scope: owning, holdBatchId: batch.id })).expired;
}

/**
 * Inside a writer's transaction that holds the scope lock (a new hold): an overdue ACTIVE batch
 * becomes EXPIRED with its seats and the scope, and `locked` reads EXPIRED from then on.
 */
export async function expireOverdueInLockedScope(
  client: PoolClient,
  scope: ConfirmationScope,
  locked: LockedScope,
): Promise<void> {
  if (locked.status !== 'HELD') return;
  const { rows } = await client.query<{ id: string }>(
    `select id from hold_batches where scope_kind = $1 and scope_id = $2 and status = 'ACTIVE' and expires_at <= now()
     for update`,
    [scope.kind, scope.id],
  );
  if (!rows[0]) return;
  await closeHoldBatch(client, rows[0].id, 'EXPIRED');
  await setScopeStatus(client, scope, { status: 'EXPIRED' });
  locked.status = 'EXPIRED';
}

/**
 * The background sweep: up to `limit` overdue journey and order holds written EXPIRED, one
 * transaction each (batches another sweeper is expiring are skipped). Answers how many it expired.
 */
export async function sweepOverdueHolds(db: Database, limit = 200): Promise<number> {
  const overdue = await db.query<{ id: string; scope_kind: 'JOURNEY' | 'ORDER'; scope_id: string }>(
    `select id, scope_kind, scope_id from hold_batches
     where status = 'ACTIVE' and scope_kind in ('JOURNEY', 'ORDER') and expires_at <= now()
     order by expires_at limit $1`,
    [limit],
  );
  let expired = 0;
  for (const batch of overdue) {
    const scope = { kind: batch.scope_kind, id: batch.scope_id };
    if ((await expireHold(db, { scope, holdBatchId: batch.id })).expired) expired += 1;
  }
  return expired;
}
