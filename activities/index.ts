import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/orm.js';
import { createCashShiftActivities } from './cash-shifts.js';
import { createAnalyticsActivities } from './analytics.js';
import { createDocumentActivities } from './document-activities.js';
import type { BrowserPool } from './documents/browser-pool.js';
import { createDocumentShareActivities } from './document-shares.js';
import { createJourneyActivities } from './journeys.js';
import { createTripScheduleActivities } from './trip-schedules.js';
import { createWebhookActivities } from './webhooks.js';

export interface ActivityDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** The worker process's PDF browser (worker/create-worker.ts); a worker without one renders no documents. */
  browserPool?: BrowserPool;
}

/** Every activity, built once per worker over its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createJourneyActivities(deps),
    ...createDocumentActivities(deps),
    ...createDocumentShareActivities(deps),
    ...createTripScheduleActivities(deps),
    ...createWebhookActivities(deps),
    ...createCashShiftActivities(deps),
    ...createAnalyticsActivities(deps),
  };
}
