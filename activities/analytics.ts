import {
  foldBookingStats,
  frequencyRecountsDue,
  recountTravelFrequency,
  type Folded,
} from '../db/writes/analytics-rollup.js';
import { damascusDate } from '../domain/time.js';
import type { ActivityDeps } from './index.js';

/** The analytics-rollup workflow's effects (db/writes/analytics-rollup.ts), each safe to retry. */
export function createAnalyticsActivities({ db }: ActivityDeps) {
  return {
    foldBookingStats(input: { companyIds?: string[] }): Promise<Folded> {
      return foldBookingStats(db, input.companyIds);
    },
    frequencyRecountsDue(input: { changedCompanyIds: string[]; only?: string[] }): Promise<string[]> {
      return frequencyRecountsDue(db, { ...input, today: damascusDate(new Date()) });
    },
    recountTravelFrequency(input: { companyIds: string[] }): Promise<number> {
      return recountTravelFrequency(db, input.companyIds, damascusDate(new Date()));
    },
  };
}
