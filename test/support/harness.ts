import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import { createApp } from '../../api/app.js';
import { createTravellerTokens, type TravellerIdentity } from '../../api/auth/traveller-token.js';
import { loadConfig, type Config } from '../../config/index.js';
import { createLogger } from '../../config/logger.js';
import { connectTemporalClient } from '../../config/temporal.js';
import { initDatabase, type Database } from '../../db/orm.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';

export interface TestApp {
  config: Config;
  db: Database;
  temporal: Client;
  baseUrl: string;
  /** Fetch against the running app: `app.request('/api/cities')`. */
  request(path: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<TestResponse>;
  /** A signed traveller access token for the given scope. */
  tokenFor(scope: InventoryScope, options?: { userId?: string; ttlSeconds?: number }): Promise<string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * Boots the real API in-process on a random port against the run's test database and Temporal
 * dev server, for the duration of one test file.
 */
export function useTestApp(overrides: Partial<Config> = {}): TestApp {
  const handle = {} as TestApp & { server?: Server; connection?: Connection };
  beforeAll(async () => {
    const config = { ...loadConfig(), ...overrides };
    const db = await initDatabase(config);
    const { client, connection } = await connectTemporalClient(config);
    const app = createApp({ config, db, logger: createLogger(config, 'api'), temporal: client });
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const tokens = createTravellerTokens(config);
    Object.assign(handle, {
      config,
      db,
      temporal: client,
      server,
      connection,
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      async request(path: string, init: RequestInit & { json?: unknown; token?: string } = {}) {
        const headers = new Headers(init.headers);
        if (init.json !== undefined) headers.set('Content-Type', 'application/json');
        if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
        const response = await fetch(handle.baseUrl + path, {
          ...init,
          headers,
          body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
        });
        const text = await response.text();
        let body: unknown = undefined;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        return { status: response.status, headers: response.headers, body, text };
      },
      async tokenFor(scope: InventoryScope, options: { userId?: string; ttlSeconds?: number } = {}) {
        const identity: TravellerIdentity = { userId: options.userId ?? crypto.randomUUID(), sessionId: null, scope };
        return (await tokens.sign(identity, options.ttlSeconds ?? 900)).token;
      },
    });
  });
  afterAll(async () => {
    if (handle.server) {
      await new Promise<void>((resolve) => handle.server!.close(() => resolve()));
      handle.server.closeAllConnections();
    }
    await handle.connection?.close();
    await handle.db?.close();
  });
  return handle;
}
