import { Client, Connection } from '@temporalio/client';
import type { Config } from './index.js';

type TemporalConfig = Pick<
  Config,
  'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TLS' | 'TEMPORAL_API_KEY'
>;

export function connectionOptions(config: TemporalConfig) {
  return {
    address: config.TEMPORAL_ADDRESS,
    tls: config.TEMPORAL_TLS ? {} : undefined,
    ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}),
  };
}

/** One client per process, created at start-up and closed on shutdown. */
export async function connectTemporalClient(
  config: TemporalConfig,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect(connectionOptions(config));
  return { client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }), connection };
}
