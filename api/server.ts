import type { Server } from 'node:http';
import { loadConfig, type Config } from '../config/index.js';
import { createLogger, type Logger } from '../config/logger.js';
import { exitOnUncaughtError } from '../config/process-failures.js';
import { lazyTemporalClient } from '../config/temporal.js';
import { initDatabase } from '../db/orm.js';
import { createApp } from './app.js';
import { answerNodeRefusals } from './http/node-answers.js';
import { unavailableKind } from './http/unavailable.js';
import { drainable } from './shutdown.js';
import { startRelayOnceReachable, webhookClient } from './temporal/webhook-client.js';

/**
 * After requests were cut off, how long closing the connections may take: a cut-off request's
 * statement may still run (waiting on a lock, as long as it is held), and closing the pool waits
 * for it. The process exits then anyway; its connections close with it, and PostgreSQL rolls back
 * the transactions they had open.
 */
const CLOSE_AFTER_CUT_OFF_MS = 1000;

/** Starts the API; tests call this with port 0 and stop it with the returned function. */
export async function startWebServer(
  config: Config = loadConfig(),
  logger: Logger = createLogger(config, 'api'),
) {
  // Started while PostgreSQL does not answer (a process replaced during an outage), the process
  // listens all the same: what needs PostgreSQL answers 503 until it is back, with no restart. A
  // wrong setting (a password, TLS) still stops the start.
  const db = await initDatabase(config, {
    unreachable: (error) => {
      const kind = unavailableKind(error);
      if (kind === null) return false;
      logger.warn({ kind, reason: (error as Error).message }, 'PostgreSQL does not answer; starting anyway');
      return true;
    },
  });
  // Connected by the first request that needs Temporal: the process starts and serves what needs no
  // Temporal while it does not answer, and what needs it answers 503 meanwhile.
  const { client, connection } = lazyTemporalClient(config);
  const app = createApp({ config, db, logger, temporal: client });
  // The webhook relay (workflow webhook-outbox): started once per namespace, kept when running;
  // in the background, tried again while Temporal does not answer.
  const stopRelayStart = startRelayOnceReachable(webhookClient(client, config), logger);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(config.PORT, config.HOST, () => resolve(listening));
    outlastBalancerIdleTimeout(listening, config.HTTP_KEEP_ALIVE_SECONDS);
    // What Node answers itself (too large headers, an unreadable request) gets the app's envelope too.
    answerNodeRefusals(listening, logger);
  });
  const draining = drainable(server);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port }, 'api listening');
  return {
    port,
    /** Refuses new connections, lets in-flight requests finish within SHUTDOWN_GRACE_MS, then closes. */
    async stop(): Promise<{ cutOff: number }> {
      stopRelayStart();
      const { cutOff } = await draining.stop(config.SHUTDOWN_GRACE_MS);
      if (cutOff > 0) logger.warn({ cutOff }, 'shutdown grace over; requests cut off');
      const closing = (async () => {
        await connection.close();
        await db.close();
      })();
      if (cutOff === 0) await closing;
      else await within(closing, CLOSE_AFTER_CUT_OFF_MS);
      logger.info('api stopped');
      return { cutOff };
    },
  };
}

/**
 * A load balancer keeps its idle connections to the API for its own idle timeout (AWS ALB and nginx
 * 60 s) and sends the next request on one of them. With Node's default of 5 s the API closed them
 * first, and a request sent on one as it closed came back 502: the API keeps them `seconds`
 * (HTTP_KEEP_ALIVE_SECONDS), and its Keep-Alive header says so. headersTimeout stays Node's 60 s:
 * since Node 18 it runs only while a request's headers arrive, never on an idle connection, so the
 * advice to raise it above keepAliveTimeout (from Node 12) no longer applies.
 */
function outlastBalancerIdleTimeout(server: Server, seconds: number): void {
  server.keepAliveTimeout = seconds * 1000;
}

/** Waits for `work`, at most `ms` (whatever it still does then is left to the process's exit). */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const config = loadConfig();
  const logger = createLogger(config, 'api');
  exitOnUncaughtError(logger);
  const running = await startWebServer(config, logger);
  // SIGTERM (a deploy, a scale-down) or SIGINT: drain, then exit 0; 1 if requests had to be cut off.
  // A second signal while stopping changes nothing: Ctrl-C reaches api/cluster.ts's processes from
  // the terminal and again from the primary.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void running.stop().then(
        ({ cutOff }) => process.exit(cutOff > 0 ? 1 : 0),
        () => process.exit(1),
      );
    });
  }
}
