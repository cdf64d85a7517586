import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import type { Context } from 'koa';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { appContext } from '../../../api/app.js';
import { registerDashboardRoutes } from '../../../api/dashboard/index.js';
import { Refusal } from '../../../api/http/errors.js';
import { Surface, type RegisteredRoute } from '../../../api/http/route.js';
import type { Database } from '../../../db/orm.js';
import { loadConfig } from '../../../config/index.js';
import { createLogger } from '../../../config/logger.js';

/**
 * The role matrix of the dashboard against SPEC ("Company dashboard API" rows; "sensitive areas
 * require OWNER, ADMIN or ACCOUNTANT"). Each route's handler is taken from its declaration and run
 * with a signed-in company user of each role. Guards run before anything is read, so a refused role
 * gets 403 ROLE_NOT_ALLOWED at once; the database here is unreachable, and a role let through fails
 * later on it. The guards' other checks (session, CSRF, suspension, tenant) are in guards.test.ts.
 */
const ROLES = ['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const;
const ALL = [...ROLES];
const OPERATING = ['OWNER', 'ADMIN', 'DISPATCHER'];
const MANAGEMENT = ['OWNER', 'ADMIN'];
const FINANCIAL = ['OWNER', 'ADMIN', 'ACCOUNTANT'];

/** SPEC's roles per route (the documented rule where SPEC leaves a route open); reads for every role are not listed. */
const EXPECTED: Record<string, string[]> = {
  'POST /auth/logout': ALL,
  'GET /team': ALL,
  'PATCH /team/{membershipId}': MANAGEMENT,
  'PUT /settings/booking-confirmation': MANAGEMENT,
  'PATCH /bookings/{id}/status': OPERATING,
  'POST /trips/{id}/dispatch': OPERATING,
  'POST /trips/bulk': OPERATING,
  'PATCH /trips/{id}': OPERATING,
  'GET /api-keys': MANAGEMENT,
  'POST /api-keys': MANAGEMENT,
  'DELETE /api-keys/{id}': MANAGEMENT,
  'GET /payments/cash-shifts': MANAGEMENT,
  'POST /payments/cash-shifts': MANAGEMENT,
  'GET /payments/receipts/{source}/{id}': FINANCIAL,
  'POST /payments': FINANCIAL,
  'PATCH /payments/{id}': FINANCIAL,
  'POST /payments/{id}/verify': FINANCIAL,
  'POST /payments/{id}/cancel': FINANCIAL,
  'POST /payments/{id}/refund': FINANCIAL,
  'POST /buses': OPERATING,
  'PUT /buses/{id}/layout': OPERATING,
  'DELETE /buses/{id}/layout': OPERATING,
  'POST /drivers': MANAGEMENT,
  'POST /cities': OPERATING,
  'POST /routes': OPERATING,
  'POST /pickup-locations': OPERATING,
  'POST /trips': OPERATING,
  'GET /trip-schedules': OPERATING,
  'POST /trip-schedules': OPERATING,
  'PATCH /settings': MANAGEMENT,
  'GET /loyalty': FINANCIAL,
  'PUT /loyalty': MANAGEMENT,
  'POST /loyalty/tiers': MANAGEMENT,
  'PUT /loyalty/tiers/{id}': MANAGEMENT,
  'POST /loyalty/accounts/{id}/adjust': MANAGEMENT,
  'POST /loyalty/rewards': MANAGEMENT,
  'PUT /loyalty/rewards/{id}': MANAGEMENT,
  'DELETE /loyalty/rewards/{id}': MANAGEMENT,
  'GET /analytics': MANAGEMENT,
  'GET /analytics/advanced': MANAGEMENT,
};

type RouteSpec = RegisteredRoute['spec'];

/** Writes whose access is not one role list, and where it is tested. */
const OWN_RULE: Record<string, string> = {
  'POST /auth/login': 'public (auth.test.ts)',
  'POST /document-shares': 'roles per document kind (test/api/customer/document-share-roles.test.ts)',
  'POST /document-shares/{grantId}/revoke':
    'the issuer, the booking owner or an OWNER or ADMIN (document-share-roles.test.ts)',
};

function dashboardRoutes(): RegisteredRoute['spec'][] {
  const config = loadConfig();
  const db = { pool: new pg.Pool({ port: 1, connectionTimeoutMillis: 200 }) } as unknown as Database;
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const logger = createLogger({ ...config, LOG_LEVEL: 'silent' }, 'role-matrix');
  const surface = new Surface('/dashboard/api');
  registerDashboardRoutes(surface, appContext({ config, db, logger, temporal }));
  return surface.routes.map((route) => route.spec);
}

const key = (spec: RouteSpec) => `${spec.method.toUpperCase()} ${spec.path}`;

function principal(role: string, verified = true) {
  return {
    sessionId: randomUUID(),
    staffUserId: randomUUID(),
    email: 'member@company.test',
    name: 'Member',
    membershipId: randomUUID(),
    companyId: randomUUID(),
    role,
    company: { id: randomUUID(), name_en: 'C', name_ar: 'C', status: 'ACTIVE', verified, published: true },
  };
}

/** The route run for a company user: the Refusal its guard or handler throws, or null when it got past the guard. */
async function refusalOf(spec: RouteSpec, staff: ReturnType<typeof principal>): Promise<Refusal | null> {
  const ctx = {
    state: { staff, requestId: 'role-matrix' },
    ip: '127.0.0.1',
    request: { ip: '127.0.0.1' },
    get: () => '',
    set: () => undefined,
    cookies: { get: () => undefined, set: () => undefined },
  } as unknown as Context;
  const input = {
    params: { id: randomUUID(), grantId: randomUUID(), source: 'transaction' },
    query: { limit: 20, offset: 0, period: 'monthly', days: 7, locale: 'en' },
    body: {},
  } as Parameters<RouteSpec['handler']>[1];
  // The guard (the route's admit) before the input, then the handler with what it let through.
  const settled = (async () => spec.handler(ctx, input, await spec.admit?.(ctx)))().then(
    () => null,
    (error: unknown) => (error instanceof Refusal ? error : null),
  );
  // A guard refuses before the handler's first await; a role let through goes on to the
  // unreachable database or Temporal, which is not waited for.
  return Promise.race([settled, setTimeout(100, null)]);
}

describe('dashboard role matrix', () => {
  const routes = dashboardRoutes();

  it('every route with a role rule admits exactly the roles SPEC names', async () => {
    const admitted: Record<string, string[]> = {};
    for (const spec of routes.filter((route) => key(route) in EXPECTED)) {
      admitted[key(spec)] = [];
      for (const role of ROLES) {
        const refusal = await refusalOf(spec, principal(role));
        if (refusal?.status !== 403 || refusal.code !== 'ROLE_NOT_ALLOWED') admitted[key(spec)]!.push(role);
      }
    }
    const sorted = (table: Record<string, string[]>) =>
      Object.fromEntries(Object.entries(table).map(([route, roles]) => [route, [...roles].sort()]));
    expect(sorted(admitted)).toEqual(sorted(EXPECTED));
  }, 120_000);

  it('every dashboard write has its row in the matrix, or a rule of its own', () => {
    const writes = routes.filter((spec) => spec.method !== 'get').map(key);
    expect(writes.filter((write) => !(write in EXPECTED) && !(write in OWN_RULE))).toEqual([]);
  });

  it('verified-only writes refuse an OWNER of an unverified company with 403 COMPANY_NOT_VERIFIED', async () => {
    const verifiedOnly = ['PUT /settings/booking-confirmation', 'PUT /loyalty', 'POST /loyalty/rewards'];
    for (const route of verifiedOnly) {
      const spec = routes.find((candidate) => key(candidate) === route)!;
      const refusal = await refusalOf(spec, principal('OWNER', false));
      expect({ route, status: refusal?.status, code: refusal?.code }).toEqual({
        route,
        status: 403,
        code: 'COMPANY_NOT_VERIFIED',
      });
    }
  });
});
