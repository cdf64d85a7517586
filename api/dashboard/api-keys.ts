import { listApiKeys } from '../../db/queries/webhooks.js';
import { revokeApiKey } from '../../db/writes/api-keys.js';
import type { AppContext } from '../app.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { issueApiKey } from '../use-cases/webhooks.js';
import { ApiKeyBody, docs } from './api-keys.openapi.js';
import { actingMember, MANAGEMENT_ROLES, managerRead, managerWrite } from './guards.js';
import { staffRoute } from './staff-route.js';
import { requestOrigin } from '../http/request-origin.js';

/** GET, POST /api-keys and DELETE /api-keys/{id}: the company's keys for the webhook set-up. */
export function registerApiKeyRoutes(surface: Surface, { db }: AppContext): void {
  staffRoute(surface, managerRead, {
    ...docs.listCompanyApiKeys,
    method: 'get',
    path: '/api-keys',
    handler: async (ctx, staff) => {
      ctx.set('Cache-Control', 'private, no-store');
      ok(ctx, await listApiKeys(db, staff.companyId));
    },
  });

  staffRoute(surface, managerWrite, {
    ...docs.createCompanyApiKey,
    method: 'post',
    path: '/api-keys',
    body: ApiKeyBody,
    handler: async (ctx, staff, { body }) => {
      const actor = actingMember(staff, MANAGEMENT_ROLES);
      const key = await issueApiKey(db, { companyId: staff.companyId, actor }, body.name, requestOrigin(ctx));
      ctx.set('Cache-Control', 'private, no-store');
      created(ctx, key);
    },
  });

  staffRoute(surface, managerWrite, {
    ...docs.revokeCompanyApiKey,
    method: 'delete',
    path: '/api-keys/{id}',
    params: IdParams,
    handler: async (ctx, staff, { params }) => {
      const revoked = await revokeApiKey(
        db,
        { companyId: staff.companyId, actor: actingMember(staff, MANAGEMENT_ROLES), keyId: params.id },
        requestOrigin(ctx),
      );
      ok(ctx, revoked);
    },
  });
}
