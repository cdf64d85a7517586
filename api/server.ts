import type { Server } from 'node:http';
import { loadConfig, type Config } from '../config/index.js';
import { createLogger } from '../config/logger.js';
import { connectTemporalClient } from '../config/temporal.js';
import { initDatabase } from '../db/orm.js';
import { createApp } from './app.js';
import { webhookClient } from './temporal/webhook-client.js';

/** Starts the API; tests call this with port 0 and stop it with the returned function. */
export async function startWebServer(config: Config = loadConfig()) {
  const logger = createLogger(config, 'api');
  const db = await initDatabase(config);
  const { client, connection } = await connectTemporalClient(config);
  const app = createApp({ config, db, logger, temporal: client });
  // The webhook relay (workflow webhook-outbox): started once per namespace, kept when running.
  await webhookClient(client, config)
    .ensureRelay()
    .catch((error: unknown) => logger.error({ err: error }, 'webhook relay not started'));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(config.PORT, config.HOST, () => resolve(listening));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port }, 'api listening');
  return {
    port,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await connection.close();
      await db.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const running = await startWebServer();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void running.stop().then(() => process.exit(0));
    });
  }
}
