import type { PoolClient } from 'pg';
import { holdClosed, type ConfirmationScope } from '../../../domain/journey-confirmation.js';
import type { Database } from '../../orm.js';
import { closeHoldBatch, inLockedScope, JourneyRefusal, lockBatch, setScopeStatus } from './scope.js';

/** Ends an ACTIVE hold batch: its HELD allocations and the scope take `status` (RELEASED or EXPIRED). */
async function closeBatch(
  client: PoolClient,
  scope: ConfirmationScope,
  holdBatchId: string,
  status: 'RELEASED' | 'EXPIRED',
): Promise<void> {
  await closeHoldBatch(client, holdBatchId, status);
  await setScopeStatus(client, scope, { status });
}

/**
 * DELETE .../holds/{holdBatchId}: frees the seats of an ACTIVE batch (allocations and batch
 * RELEASED, scope RELEASED). A batch already released answers the same (a retry); a consumed or
 * expired one is 409 HOLD_CLOSED. An ACTIVE batch past its time that nothing has written EXPIRED
 * yet ends as what it is: EXPIRED, answered so (the caller refuses the release), not RELEASED.
 */
export async function releaseHold(
  db: Database,
  input: { scope: ConfirmationScope; holdBatchId: string },
): Promise<{ holdBatchId: string; status: 'RELEASED' | 'EXPIRED' }> {
  return inLockedScope(db, input.scope, async (client) => {
    const batch = await lockBatch(client, input.scope, input.holdBatchId);
    if (batch.status === 'ACTIVE') {
      const status = batch.live ? 'RELEASED' : 'EXPIRED';
      await closeBatch(client, input.scope, batch.id, status);
      return { holdBatchId: batch.id, status };
    }
    if (batch.status !== 'RELEASED') throw JourneyRefusal.of(holdClosed(batch.status));
    return { holdBatchId: batch.id, status: 'RELEASED' as const };
  });
}

/** The hold's time ran out unconfirmed: an ACTIVE batch becomes EXPIRED with its allocations and the scope. */
export async function expireHold(
  db: Database,
  input: { scope: ConfirmationScope; holdBatchId: string },
): Promise<{ expired: boolean }> {
  return inLockedScope(db, input.scope, async (client) => {
    const batch = await lockBatch(client, input.scope, input.holdBatchId);
    if (batch.status !== 'ACTIVE') return { expired: false };
    await closeBatch(client, input.scope, batch.id, 'EXPIRED');
    return { expired: true };
  });
}
