import type { Context } from 'koa';
import { listApiKeys } from '../../db/queries/webhooks.js';
import { revokeApiKey } from '../../db/writes/api-keys.js';
import type { AppContext } from '../app.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { issueApiKey } from '../use-cases/webhooks.js';
import { ApiKeyBody, docs } from './api-keys.openapi.js';
import { authorize, MANAGEMENT_ROLES, requireActiveCompany, requireRole } from './guards.js';

const originOf = (ctx: Context) => ({ ip: ctx.ip, requestId: ctx.state.requestId });

/** GET, POST /api-keys and DELETE /api-keys/{id}: the company's keys for the webhook set-up. */
export function registerApiKeyRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.listCompanyApiKeys,
    method: 'get',
    path: '/api-keys',
    security: 'companyStaff',
    handler: async (ctx) => {
      const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES));
      ctx.set('Cache-Control', 'private, no-store');
      ok(ctx, await listApiKeys(db, staff.companyId));
    },
  });

  surface.route({
    ...docs.createCompanyApiKey,
    method: 'post',
    path: '/api-keys',
    security: 'companyStaff',
    body: ApiKeyBody,
    handler: async (ctx, { body }) => {
      const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES), requireActiveCompany);
      const key = await issueApiKey(db, staff, body.name, originOf(ctx));
      ctx.set('Cache-Control', 'private, no-store');
      created(ctx, key);
    },
  });

  surface.route({
    ...docs.revokeCompanyApiKey,
    method: 'delete',
    path: '/api-keys/{id}',
    security: 'companyStaff',
    params: IdParams,
    handler: async (ctx, { params }) => {
      const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES), requireActiveCompany);
      const revoked = await revokeApiKey(
        db,
        { companyId: staff.companyId, staffUserId: staff.staffUserId, keyId: params.id },
        originOf(ctx),
      );
      ok(ctx, revoked);
    },
  });
}
