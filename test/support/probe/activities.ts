import type { Database } from '../../../db/orm.js';

/** Test-only activity of the catalogue probe: one read of the test database. */
export function createProbeActivities(db: Database) {
  return {
    async countCatalogue() {
      const [row] = await db.query<{ cities: number; companies: number; trips: number }>(
        `select (select count(*)::int from cities) as cities,
                (select count(*)::int from companies) as companies,
                (select count(*)::int from trips) as trips`,
      );
      return row!;
    },
  };
}
