import type { PoolClient } from 'pg';

/**
 * The clock now (clock_timestamp(), to the microsecond, as timestamptz text), read once a write holds
 * its locks, to stamp everything it changes with one instant: not its transaction's start (now()). A
 * request that waited for a lock acts on rows others committed meanwhile (a booking made, a shift
 * opened, a traveller checked in) and must not date its change before theirs. Used by the trip
 * actions (db/writes/trip-operations), a refund (db/writes/payment-decisions.ts) and a traveller's
 * cancel (db/writes/booking-changes/cancel.ts).
 */
export async function writeTime(client: Pick<PoolClient, 'query'>): Promise<string> {
  const { rows } = await client.query<{ at: string }>(`select clock_timestamp()::text as at`);
  return rows[0]!.at;
}
