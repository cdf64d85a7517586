import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from './index.js';

type TemporalConfig = Pick<
  Config,
  | 'TEMPORAL_ADDRESS'
  | 'TEMPORAL_NAMESPACE'
  | 'TEMPORAL_TLS'
  | 'TEMPORAL_API_KEY'
  | 'TEMPORAL_TLS_CA_PEM'
  | 'TEMPORAL_TLS_CERT_PEM'
  | 'TEMPORAL_TLS_KEY_PEM'
  | 'TEMPORAL_TLS_SERVER_NAME'
>;

/** TLS options shared by the client (API) and the worker's native connection; undefined = plaintext. */
function tlsOptions(config: TemporalConfig) {
  const ca = config.TEMPORAL_TLS_CA_PEM;
  const crt = config.TEMPORAL_TLS_CERT_PEM;
  const key = config.TEMPORAL_TLS_KEY_PEM;
  const serverName = config.TEMPORAL_TLS_SERVER_NAME;
  if (!config.TEMPORAL_TLS && !ca && !crt && !serverName) return undefined;
  return {
    ...(ca ? { serverRootCACertificate: Buffer.from(ca) } : {}),
    ...(crt && key ? { clientCertPair: { crt: Buffer.from(crt), key: Buffer.from(key) } } : {}),
    ...(serverName ? { serverNameOverride: serverName } : {}),
  };
}

export function connectionOptions(config: TemporalConfig) {
  return {
    address: config.TEMPORAL_ADDRESS,
    tls: tlsOptions(config),
    ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}),
  };
}

/**
 * One client per process, created at start-up and closed on shutdown. Connects first: the start
 * fails while Temporal does not answer (the worker, which cannot work without it; tests).
 */
export async function connectTemporalClient(
  config: TemporalConfig,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect(connectionOptions(config));
  return { client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }), connection };
}

/**
 * The API's client: the connection is made by the first call that needs it and remade after an
 * outage, so a process starts and serves what needs no Temporal while Temporal does not answer;
 * each call that needs it fails with gRPC UNAVAILABLE meanwhile (503, api/http/unavailable.ts).
 */
export function lazyTemporalClient(config: TemporalConfig): { client: Client; connection: Connection } {
  const connection = Connection.lazy(connectionOptions(config));
  return { client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }), connection };
}

/**
 * The status of the latest run under `workflowId` (RUNNING, COMPLETED, TERMINATED, CANCELLED, ...),
 * or null when Temporal knows no run of it (never started, or past the namespace's retention).
 */
export async function latestRunStatus(client: Client, workflowId: string): Promise<string | null> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}
