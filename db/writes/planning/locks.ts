import type { PoolClient } from 'pg';

/**
 * Every write that gives a bus or a driver a trip (POST /trips, a schedule's claim and each of its
 * batches) first locks the bus rows, then the driver, then the route, always in that order (buses
 * by id), so two plans for the same bus, driver or route run one after the other and each re-reads
 * what the other committed: a bus or driver is never double-booked, a departure of a route never
 * planned twice. FOR NO KEY UPDATE leaves inserts that only reference these rows (a trip, a
 * session) unblocked.
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
