import type { Server } from 'node:http';
import { loadConfig, type Config } from '../config/index.js';
import { createLogger } from '../config/logger.js';
import { lazyTemporalClient } from '../config/temporal.js';
import { initDatabase } from '../db/orm.js';
import { createApp } from './app.js';
import { drainable } from './shutdown.js';
import { startRelayOnceReachable, webhookClient } from './temporal/webhook-client.js';

/** Starts the API; tests call this with port 0 and stop it with the returned function. */
export async function startWebServer(config: Config = loadConfig()) {
  const logger = createLogger(config, 'api');
  const db = await initDatabase(config);
  // Connected by the first request that needs Temporal: the process starts and serves what needs no
  // Temporal while it does not answer, and what needs it answers 503 meanwhile.
  const { client, connection } = lazyTemporalClient(config);
  const app = createApp({ config, db, logger, temporal: client });
  // The webhook relay (workflow webhook-outbox): started once per namespace, kept when running;
  // in the background, tried again while Temporal does not answer.
  const stopRelayStart = startRelayOnceReachable(webhookClient(client, config), logger);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(config.PORT, config.HOST, () => resolve(listening));
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
      await connection.close();
      await db.close();
      logger.info('api stopped');
      return { cutOff };
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const running = await startWebServer();
  // SIGTERM (a deploy, a scale-down) or SIGINT: drain, then exit 0; 1 if requests had to be cut off.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void running.stop().then(
        ({ cutOff }) => process.exit(cutOff > 0 ? 1 : 0),
        () => process.exit(1),
      );
    });
  }
}
