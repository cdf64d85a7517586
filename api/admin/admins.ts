import type { AdminRow } from '../../db/queries/admins.js';
import { camelFields } from '../../db/row-fields.js';
import { effectivePermissions } from '../../domain/permissions.js';
import type { AppContext } from '../app.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { adminRoute } from './admin-route.js';
import { adminListRoute } from './list-route.js';
import { IdParams } from '../http/schemas.js';
import {
  createAdministrator,
  listAdministrators,
  updateAdministrator,
  type AdministratorAnswer,
} from '../use-cases/administrators.js';
import { CreateBody, docs, ListQuery, UpdateBody } from './admins.openapi.js';

/** GET, POST /admins and PATCH /admins/{id}. */
export function registerAdminsRoutes(surface: Surface, { config, db }: AppContext): void {
  const policy = { production: config.NODE_ENV === 'production' };
  adminListRoute(surface, docs.adminListAdministrators, '/admins', 'admins.view', {
    query: ListQuery,
    read: (query, audit) => listAdministrators(db, audit, query),
    view: adminRecord,
  });

  adminRoute(surface, 'admins.manage', {
    ...docs.adminCreateAdministrator,
    method: 'post',
    path: '/admins',
    body: CreateBody,
    handler: async (ctx, { admin, audit }, { body }) => {
      created(ctx, changed(await createAdministrator(db, policy, admin, audit, body)));
    },
  });

  adminRoute(surface, 'admins.manage', {
    ...docs.adminUpdateAdministrator,
    method: 'patch',
    path: '/admins/{id}',
    params: IdParams,
    body: UpdateBody,
    handler: async (ctx, { admin, audit }, { params, body }) => {
      ok(ctx, changed(await updateAdministrator(db, policy, admin, audit, params.id, body)));
    },
  });
}

/** What a change answers: the account, or (to one without admins.view) its receipt. */
function changed(answer: AdministratorAnswer) {
  return 'receipt' in answer ? answer.receipt : adminRecord(answer.record);
}

/** An administrator as the API answers them: the columns camelCased, the grants and what they add up to. */
function adminRecord(row: AdminRow) {
  return {
    ...camelFields(row, ['id', 'email', 'name', 'role']),
    grantedPermissions: row.permissions,
    permissions: effectivePermissions(row.role, row.permissions),
    ...camelFields(row, ['status', 'totp_required', 'totp_enabled', 'created_at', 'updated_at']),
  };
}
