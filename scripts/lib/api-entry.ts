import { deploymentSettings } from '../../config/deployment.js';

/** The API process count an environment asks for (API_PROCESSES; unset: one per core). */
export function apiProcessCount(env: NodeJS.ProcessEnv): number {
  return deploymentSettings.API_PROCESSES.parse(env.API_PROCESSES || undefined);
}

/**
 * The script that runs the API: `api/server.ts` itself for one process (exactly the single process
 * of before), else `api/cluster.ts`, the primary that forks that many `api/server.ts` workers.
 */
export function apiEntry(env: NodeJS.ProcessEnv): string {
  return apiProcessCount(env) === 1 ? 'api/server.ts' : 'api/cluster.ts';
}
