import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staffAuthenticator } from '../../../api/auth/staff-auth.js';
import { createStaffSession } from '../../../api/auth/staff-session.js';
import {
  authorize,
  MANAGEMENT_ROLES,
  ownedByCompany,
  requireActiveCompany,
  requireRole,
  requireVerifiedCompany,
  SENSITIVE_ROLES,
} from '../../../api/dashboard/guards.js';
import { jsonBody, requestLifecycle, responseHeaders } from '../../../api/http/middleware.js';
import { Surface } from '../../../api/http/route.js';
import { IdParams } from '../../../api/http/schemas.js';
import { createLogger } from '../../../config/logger.js';
import { notFound } from '../../../domain/trip-planning.js';
import { createBus, createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { createStaffMember, type StaffRole } from '../../support/staff.js';

/**
 * The dashboard guards on a small surface of their own, built like the real one (same
 * authenticator, middleware and route declarations): reading and renaming a bus, the kind of
 * company resource later dashboard features guard the same way.
 */
function busSurface(deps: Parameters<typeof staffAuthenticator>[0]): Surface {
  const surface = new Surface('/dashboard/api', staffAuthenticator(deps));
  const loadBus = async (id: string) =>
    (
      await deps.db.query<{ id: string; company_id: string; model: string }>(
        'select id, company_id, model from buses where id = $1',
        [id],
      )
    )[0];
  const rename = async (id: string, model: string) => {
    await deps.db.query('update buses set model = $2 where id = $1', [id, model]);
  };
  const common = {
    tags: ['test'],
    security: 'companyStaff' as const,
    params: IdParams,
    responses: { 200: { description: 'ok' } },
  };
  const Body = z.object({ model: z.string().min(1) }).strict();
  const busNotFound = () => notFound('BUS');

  surface.route({
    ...common,
    method: 'get',
    path: '/buses/{id}',
    operationId: 'readBus',
    summary: 'read a bus (member of the owning company)',
    handler: async (ctx, { params }) => {
      const staff = authorize(ctx);
      const bus = ownedByCompany(staff, await loadBus(params.id), busNotFound);
      ctx.body = { success: true, data: { id: bus.id, model: bus.model } };
    },
  });
  surface.route({
    ...common,
    method: 'post',
    path: '/buses/{id}/model',
    operationId: 'renameBus',
    summary: 'a write: the company must be active and not suspended',
    body: Body,
    handler: async (ctx, { params, body }) => {
      const staff = authorize(ctx, requireActiveCompany);
      const bus = ownedByCompany(staff, await loadBus(params.id), busNotFound);
      await rename(bus.id, body.model);
      ctx.body = { success: true };
    },
  });
  surface.route({
    ...common,
    method: 'post',
    path: '/buses/{id}/registered-model',
    operationId: 'renameBusOfficially',
    summary: 'a write for OWNER or ADMIN of a verified company',
    body: Body,
    handler: async (ctx, { params, body }) => {
      const staff = authorize(
        ctx,
        requireActiveCompany,
        requireVerifiedCompany,
        requireRole(...MANAGEMENT_ROLES),
      );
      const bus = ownedByCompany(staff, await loadBus(params.id), busNotFound);
      await rename(bus.id, body.model);
      ctx.body = { success: true };
    },
  });
  surface.route({
    ...common,
    method: 'get',
    path: '/buses/{id}/costs',
    operationId: 'readBusCosts',
    summary: 'a sensitive read for OWNER, ADMIN or ACCOUNTANT',
    handler: async (ctx, { params }) => {
      const staff = authorize(ctx, requireRole(...SENSITIVE_ROLES));
      ownedByCompany(staff, await loadBus(params.id), busNotFound);
      ctx.body = { success: true };
    },
  });
  return surface;
}

describe('company dashboard guards', () => {
  const app = useTestApp();
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    const surface = busSurface({ db: app.db, config: app.config });
    const koa = new Koa();
    koa.use(requestLifecycle(createLogger({ ...app.config, LOG_LEVEL: 'silent' }, 'guards-test')));
    koa.use(responseHeaders());
    koa.use(jsonBody());
    koa.use(surface.router.routes());
    server = koa.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
  });

  /** A signed-in member of the company (a session as POST /auth/login opens one). */
  async function member(companyId: string, role: StaffRole) {
    const staff = await createStaffMember(app.db, companyId, role);
    const session = await createStaffSession(
      { db: app.db, config: app.config },
      { staffUserId: staff.userId, membershipId: staff.membershipId },
    );
    const cookie = `bb_staff=${session.token}; bb_staff_csrf=${session.csrfToken}`;
    return {
      cookie,
      read: (path: string) => call(path, { headers: { Cookie: cookie } }),
      write: (path: string, json: unknown) =>
        call(path, {
          method: 'POST',
          headers: { Cookie: cookie, 'X-CSRF-Token': session.csrfToken, 'Content-Type': 'application/json' },
          body: JSON.stringify(json),
        }),
    };
  }

  async function call(path: string, init: RequestInit) {
    const response = await fetch(`${baseUrl}/dashboard/api${path}`, init);
    return { status: response.status, body: await response.json() };
  }

  const modelOf = async (busId: string) =>
    (await app.db.query<{ model: string }>('select model from buses where id = $1', [busId]))[0]!.model;

  describe('member of the owning company', () => {
    it('reads its own company’s bus; another company’s bus is 404, as if it did not exist', async () => {
      const mine = await createCompany(app.db);
      const theirs = await createCompany(app.db);
      const myBus = await createBus(app.db, mine.id);
      const theirBus = await createBus(app.db, theirs.id);
      const dispatcher = await member(mine.id, 'DISPATCHER');

      expect(await dispatcher.read(`/buses/${myBus.id}`)).toMatchObject({
        status: 200,
        body: { data: { id: myBus.id } },
      });
      const foreign = await dispatcher.read(`/buses/${theirBus.id}`);
      const missing = await dispatcher.read(`/buses/${crypto.randomUUID()}`);
      expect(foreign.status).toBe(404);
      // The resource's own code, the one its routes document.
      expect(foreign.body.errorCode).toBe('BUS_NOT_FOUND');
      expect({ ...foreign.body, requestId: null }).toEqual({ ...missing.body, requestId: null });
    });

    it('cannot write to another company’s resource, and nothing changes', async () => {
      const mine = await createCompany(app.db);
      const theirs = await createCompany(app.db);
      const theirBus = await createBus(app.db, theirs.id);
      const owner = await member(mine.id, 'OWNER');

      const response = await owner.write(`/buses/${theirBus.id}/model`, { model: 'Hijacked' });
      expect(response.status).toBe(404);
      expect(await modelOf(theirBus.id)).toBe('Test coach');
    });
  });

  describe('company active and not suspended', () => {
    it('refuses a write of a suspended company with 403 COMPANY_SUSPENDED and writes nothing; reads still work', async () => {
      const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
      const bus = await createBus(app.db, suspended.id);
      const owner = await member(suspended.id, 'OWNER');

      const response = await owner.write(`/buses/${bus.id}/model`, { model: 'Renamed' });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ success: false, errorCode: 'COMPANY_SUSPENDED' });
      expect(await modelOf(bus.id)).toBe('Test coach');
      expect((await owner.read(`/buses/${bus.id}`)).status).toBe(200);
    });

    it('lets an active company write', async () => {
      const active = await createCompany(app.db);
      const bus = await createBus(app.db, active.id);
      const staff = await member(active.id, 'STAFF');
      expect((await staff.write(`/buses/${bus.id}/model`, { model: 'Renamed' })).status).toBe(200);
      expect(await modelOf(bus.id)).toBe('Renamed');
    });
  });

  describe('company verified', () => {
    it('refuses a verified-only write of an unverified company with 403 COMPANY_NOT_VERIFIED and writes nothing', async () => {
      const unverified = await createCompany(app.db, { verified: false });
      const bus = await createBus(app.db, unverified.id);
      const owner = await member(unverified.id, 'OWNER');

      const response = await owner.write(`/buses/${bus.id}/registered-model`, { model: 'Registered' });
      expect(response.status).toBe(403);
      expect(response.body.errorCode).toBe('COMPANY_NOT_VERIFIED');
      expect(await modelOf(bus.id)).toBe('Test coach');
      // Writes that do not need verification still work.
      expect((await owner.write(`/buses/${bus.id}/model`, { model: 'Everyday' })).status).toBe(200);
    });
  });

  describe('role in set', () => {
    it('refuses roles outside the set with 403 ROLE_NOT_ALLOWED and writes nothing', async () => {
      const company = await createCompany(app.db);
      const bus = await createBus(app.db, company.id);
      for (const role of ['DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const) {
        const response = await (
          await member(company.id, role)
        ).write(`/buses/${bus.id}/registered-model`, { model: role });
        expect(response.status).toBe(403);
        expect(response.body).toMatchObject({
          errorCode: 'ROLE_NOT_ALLOWED',
          details: { role, allowedRoles: ['OWNER', 'ADMIN'] },
        });
      }
      expect(await modelOf(bus.id)).toBe('Test coach');
      for (const role of ['OWNER', 'ADMIN'] as const) {
        expect(
          (await (await member(company.id, role)).write(`/buses/${bus.id}/registered-model`, { model: role }))
            .status,
        ).toBe(200);
        expect(await modelOf(bus.id)).toBe(role);
      }
    });

    it('keeps sensitive areas to OWNER, ADMIN and ACCOUNTANT', async () => {
      const company = await createCompany(app.db);
      const bus = await createBus(app.db, company.id);
      const statuses = await Promise.all(
        (['OWNER', 'ADMIN', 'ACCOUNTANT', 'DISPATCHER', 'STAFF'] as const).map(
          async (role) =>
            [role, (await (await member(company.id, role)).read(`/buses/${bus.id}/costs`)).status] as const,
        ),
      );
      expect(Object.fromEntries(statuses)).toEqual({
        OWNER: 200,
        ADMIN: 200,
        ACCOUNTANT: 200,
        DISPATCHER: 403,
        STAFF: 403,
      });
    });
  });

  describe('order of checks', () => {
    it('checks the session, then CSRF, before any guard', async () => {
      const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
      const bus = await createBus(app.db, suspended.id);
      const owner = await member(suspended.id, 'OWNER');
      const post = (headers: Record<string, string>) =>
        call(`/buses/${bus.id}/model`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify({ model: 'x' }),
        });
      expect((await post({})).body.errorCode).toBe('AUTH_REQUIRED');
      expect((await post({ Cookie: owner.cookie })).body.errorCode).toBe('CSRF_TOKEN_INVALID');
      expect(await modelOf(bus.id)).toBe('Test coach');
    });
  });
});
