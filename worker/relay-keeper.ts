import { Client, type ConnectionLike } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import { latestRunStatus } from '../config/temporal.js';
import { workflowIds } from '../workflows/shared.js';
import { relayStart, WEBHOOK_OUTBOX_WORKFLOW } from '../workflows/webhook-outbox.contract.js';
import { startPeriodicCheck } from './periodic.js';

/**
 * Keeps the webhook relay (`webhook-outbox`, one per namespace) running. The API starts it when it
 * boots, but a relay whose run closes afterwards (terminated in the Temporal UI because it looked
 * stuck, or failed) would otherwise leave every company's webhooks waiting in the outbox until an
 * API process starts again. So every KEEP_CHECK_MS each worker asks Temporal about the relay and
 * starts it again when its latest run has closed, or when Temporal knows none (a worker that came
 * up before any API). A run an operator cancelled is their stop, as for trip schedules: it is left
 * closed (an API process that starts still starts it again). Several workers may check at once:
 * the start joins a run already open, so there is one relay. A relay it starts hands out the
 * worker's WEBHOOK_RETRY_HOURS until an API process starts and signals its own (ensureRelay).
 */
const KEEP_CHECK_MS = 5_000;

export type RelayKeeperConfig = Pick<
  Config,
  'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE' | 'WEBHOOK_RETRY_HOURS' | 'TIME_SCALE'
>;

export interface RelayKeeperDeps {
  config: RelayKeeperConfig;
  logger: Logger;
  /** The worker's connection to Temporal. */
  connection: ConnectionLike;
  /** False once the worker is shutting down: the checks stop. */
  running: () => boolean;
}

/**
 * One check: starts the relay when its latest run has closed other than by a cancel, or when there
 * is none. Answers the status it found (null: none).
 */
export async function keepRelay(
  client: Client,
  config: RelayKeeperConfig,
  logger: Logger,
): Promise<string | null> {
  const status = await latestRunStatus(client, workflowIds.webhookOutbox());
  if (status === 'RUNNING' || status === 'CANCELLED') return status;
  await client.workflow.start(WEBHOOK_OUTBOX_WORKFLOW, relayStart(config));
  logger.warn({ previousRun: status ?? 'NONE' }, 'webhook relay started again: it was not running');
  return status;
}

/** Starts the periodic check; answers its stop. */
export function startRelayKeeper(deps: RelayKeeperDeps): () => void {
  const client = new Client({ connection: deps.connection, namespace: deps.config.TEMPORAL_NAMESPACE });
  return startPeriodicCheck({
    everyMs: KEEP_CHECK_MS,
    running: deps.running,
    check: () => keepRelay(client, deps.config, deps.logger),
    logger: deps.logger,
    // Temporal is away, or another worker's start won: the next check looks again.
    skipped: 'webhook relay check skipped',
  });
}
