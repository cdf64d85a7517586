import type { PoolClient } from 'pg';

/**
 * Every write that gives a bus or a driver a trip (POST /trips, a schedule's claim and each of its
 * batches) first locks the bus rows, then the driver, then the route, always in that order (buses
 * by id), so two plans for the same bus, driver or route run one after the other and each re-reads
 * what the other committed: a bus or driver is never double-booked, a departure of a route never
 * planned twice. FOR NO KEY UPDATE leaves inserts that only reference these rows (a trip, a
 * session row's foreign key) unblocked; a read of the driver as the one acting (FOR SHARE: their
 * sign-in opening a session, their scan or position report, db/writes/acting-member.ts) waits for
 * the plan's transaction to end, and a plan for that driver waits for it. Both take the driver's row
 * before any trip row, so neither waits in a ring.
 */
export async function lockPlanningResources(
  client: Pick<PoolClient, 'query'>,
  resources: { busIds: string[]; driverId: string | null; routeId: string },
): Promise<void> {
  const busIds = [...new Set(resources.busIds)].sort();
  await client.query('select id from buses where id = any($1::uuid[]) order by id for no key update', [
    busIds,
  ]);
  if (resources.driverId !== null) {
    await client.query('select id from staff_users where id = $1 for no key update', [resources.driverId]);
  }
  await client.query('select id from routes where id = $1 for no key update', [resources.routeId]);
}
