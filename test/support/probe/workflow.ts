import { proxyActivities } from '@temporalio/workflow';
import type { createProbeActivities } from './activities.js';

const { countCatalogue } = proxyActivities<ReturnType<typeof createProbeActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export interface CatalogueProbeResult {
  cities: number;
  companies: number;
  trips: number;
}

/**
 * Test-only: proves the whole Temporal path end to end (client → server → worker → activity →
 * PostgreSQL) without any product workflow's rules in the way.
 */
export async function catalogueProbe(_input: { requestedBy: string }): Promise<CatalogueProbeResult> {
  return countCatalogue();
}
