import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';

const { countCatalogue } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export interface CatalogueProbeInput {
  /** Who asked (readiness check, smoke test); shows in the Temporal UI. */
  requestedBy: string;
}

export interface CatalogueProbeResult {
  cities: number;
  companies: number;
  trips: number;
}

/**
 * Proves the whole Temporal path end to end: client → server → worker → activity → PostgreSQL.
 * Used by the start-up smoke check and the test suite.
 */
export async function catalogueProbe(_input: CatalogueProbeInput): Promise<CatalogueProbeResult> {
  return countCatalogue();
}
