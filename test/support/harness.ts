import { randomInt } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import { createApp } from '../../api/app.js';
import { issueTravellerSession } from '../../api/auth/traveller-session.js';
import { createTravellerTokens } from '../../api/auth/traveller-token.js';
import { loadConfig, type Config } from '../../config/index.js';
import { createLogger } from '../../config/logger.js';
import { connectTemporalClient } from '../../config/temporal.js';
import { initDatabase, type Database } from '../../db/orm.js';
import { scopeToAppMetadata, type InventoryScope } from '../../domain/inventory-scope.js';

export interface TestApp {
  config: Config;
  db: Database;
  temporal: Client;
  baseUrl: string;
  /** Fetch against the running app: `app.request('/api/cities')`. */
  request(path: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<TestResponse>;
  /**
   * A bearer access token of a new traveller (a real user, passenger profile and session) whose
   * server-side metadata gives the scope.
   */
  tokenFor(scope: InventoryScope, options?: { ttlSeconds?: number }): Promise<string>;
  /** A signed-in web traveller: cookies to send (access + CSRF) and the CSRF value for writes. */
  signIn(scope?: InventoryScope, options?: { phone?: string | null }): Promise<SignedInTraveller>;
}

export interface SignedInTraveller {
  userId: string;
  passengerId: string;
  sessionId: string;
  token: string;
  refreshToken: string;
  csrf: string;
  /** Cookie header value carrying the access and CSRF cookies. */
  cookie: string;
  /** Headers for a cookie-authenticated state-changing request. */
  writeHeaders: Record<string, string>;
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
    Object.assign(
      handle,
      { server, connection },
      testAppAt({
        config,
        db,
        temporal: client,
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      }),
    );
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

/**
 * The TestApp of an API that is already listening at baseUrl (in this process, or a child process
 * such as the fault drills start), with its configuration, database and Temporal client.
 */
export function testAppAt(parts: Pick<TestApp, 'config' | 'db' | 'temporal' | 'baseUrl'>): TestApp {
  const { config, db, baseUrl } = parts;
  const tokens = createTravellerTokens(config);
  return {
    ...parts,
    async request(path: string, init: RequestInit & { json?: unknown; token?: string } = {}) {
      const headers = new Headers(init.headers);
      if (init.json !== undefined) headers.set('Content-Type', 'application/json');
      if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
      const response = await fetch(baseUrl + path, {
        ...init,
        headers,
        body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON (a PDF, an HTML page): tests read `text` instead.
      }
      return { status: response.status, headers: response.headers, body, text };
    },
    async tokenFor(scope: InventoryScope, options: { ttlSeconds?: number } = {}) {
      const signedIn = await createTraveller(
        db,
        tokens,
        { ...config, TRAVELLER_ACCESS_TTL_SECONDS: options.ttlSeconds ?? 900 },
        scope,
      );
      return signedIn.token;
    },
    async signIn(scope: InventoryScope = { kind: 'PRODUCTION' }, options: { phone?: string | null } = {}) {
      return createTraveller(db, tokens, config, scope, options.phone);
    },
  };
}

/**
 * A phone number no other test traveller has: test files share one database and a worker process
 * runs several files, so a per-process counter would repeat; ten random digits do not in practice.
 */
const uniqueTestPhone = () => `+96399${String(randomInt(0, 10_000_000_000)).padStart(10, '0')}`;

/** A traveller as the sign-in flows leave one: passenger profile, user, live session. */
async function createTraveller(
  db: Database,
  tokens: ReturnType<typeof createTravellerTokens>,
  config: Config,
  scope: InventoryScope,
  phone: string | null = uniqueTestPhone(),
): Promise<SignedInTraveller> {
  const [passenger] = await db.query<{ id: string }>(
    `insert into passengers (phone, name) values ($1, 'Test Traveller') returning id`,
    [phone],
  );
  const [user] = await db.query<{ id: string }>(
    `insert into users (phone, name, passenger_id, app_metadata) values ($1, 'Test Traveller', $2, $3) returning id`,
    [phone, passenger!.id, JSON.stringify(scopeToAppMetadata(scope))],
  );
  const session = await issueTravellerSession({ config, db, tokens }, user!.id, 'web');
  const csrf = crypto.randomUUID();
  return {
    userId: user!.id,
    passengerId: passenger!.id,
    sessionId: session.sessionId,
    token: session.token,
    refreshToken: session.refreshToken,
    csrf,
    cookie: `bb_access=${session.token}; bb_csrf=${csrf}`,
    writeHeaders: { Cookie: `bb_access=${session.token}; bb_csrf=${csrf}`, 'X-CSRF-Token': csrf },
  };
}
