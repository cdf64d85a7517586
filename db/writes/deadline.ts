import type { PoolClient } from 'pg';
import type { Refusal } from '../../domain/refusal.js';

/**
 * A write the API waits for only so long (UPDATE_DEADLINE_MS, api/temporal/workflow-updates.ts)
 * carries a deadline the API gave it, so that it commits while the request still waits: a
 * schedule's claim (`claimBy`), a cash-shift step (`stepBy`), a share's accept (`acceptBy`). Past
 * it, the API has answered 503 and the write must not commit after that answer.
 */

/**
 * Throws `late()` (the transaction then writes nothing) when the database's clock is already past
 * `deadline` (epoch ms); no deadline, no check. Run last, after the locks and the writes, so that a
 * write held up by a lock is judged by when it would commit.
 */
export async function refuseWhenLate(
  client: Pick<PoolClient, 'query'>,
  deadline: number | undefined,
  late: () => Refusal,
): Promise<void> {
  if (deadline === undefined) return;
  const { rows } = await client.query<{ late: boolean }>('select clock_timestamp() > $1 as late', [
    new Date(deadline),
  ]);
  if (rows[0]!.late) throw late();
}
