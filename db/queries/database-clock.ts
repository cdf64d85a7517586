import type { Database } from '../orm.js';

/** The database's clock now (epoch ms, clock_timestamp(): not the transaction's start). */
export async function databaseClock(db: Database): Promise<number> {
  const [row] = await db.query<{ at: string }>(`select extract(epoch from clock_timestamp()) * 1000 as at`);
  return Number(row!.at);
}
