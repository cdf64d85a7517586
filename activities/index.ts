import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/orm.js';
import { createCatalogueActivities } from './catalogue.js';
import { createJourneyActivities } from './journeys.js';

export interface ActivityDeps {
  config: Config;
  db: Database;
  logger: Logger;
}

/** Every activity, built once per worker over its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createCatalogueActivities(deps),
    ...createJourneyActivities(deps),
  };
}
