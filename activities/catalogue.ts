import type { ActivityDeps } from './index.js';

export function createCatalogueActivities({ db }: ActivityDeps) {
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
