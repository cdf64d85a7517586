import { z } from 'zod';
import { listAdmins, lockAdmin, type AdminRow } from '../../db/queries/admins.js';
import { insertAdmin, updateAdmin, type AdminChange } from '../../db/writes/admins.js';
import { recordAudit } from '../../db/writes/audit.js';
import {
  ADMIN_PERMISSIONS,
  effectivePermissions,
  refuseAdminChange,
  type AdminAccess,
  type AdminChangeRefusal,
  type AdminPermission,
} from '../../domain/permissions.js';
import type { AppContext } from '../app.js';
import { adminAuditActor, permissionDenied, requirePermission } from '../auth/admin-auth.js';
import { revokeOtherAdminSessions } from '../auth/admin-session.js';
import { hashAdminPassword } from '../auth/admin-sign-in.js';
import { Refusal, conflict, notFound } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams, Pagination } from '../http/schemas.js';
import { DateTime, IdText, Permission, Role } from './schemas.js';

const Status = z.enum(['ACTIVE', 'DISABLED']);

const AdminRecord = z
  .object({
    id: IdText,
    email: z.string(),
    name: z.string(),
    role: Role,
    grantedPermissions: z.array(Permission).meta({ description: 'permissions granted on top of the role' }),
    permissions: z
      .array(Permission)
      .meta({ description: "what the administrator may do: the role's permissions plus the granted ones" }),
    status: Status,
    totpRequired: z.boolean().meta({ description: 'must sign in with a second factor (TOTP)' }),
    totpEnabled: z.boolean().meta({ description: 'has an authenticator set up' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'Administrator' });

const ListQuery = z.object({ status: Status.optional(), role: Role.optional(), ...Pagination }).strict();

const ListResponse = z.object({
  success: z.literal(true),
  data: z.object({ items: z.array(AdminRecord), total: z.int(), limit: z.int(), offset: z.int() }),
});

const Grants = z.array(Permission).max(ADMIN_PERMISSIONS.length);

const CreateBody = z
  .object({
    email: z.email().max(254),
    name: z.string().trim().min(1).max(120),
    password: z
      .string()
      .min(12)
      .max(200)
      .meta({ description: 'initial password, 12 to 200 characters, chosen by the creator' }),
    role: Role,
    grantedPermissions: Grants.default([]),
    totpRequired: z
      .boolean()
      .default(true)
      .meta({ description: 'default true: the new administrator sets up TOTP at first sign-in' }),
  })
  .strict();

const UpdateBody = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    role: Role.optional(),
    grantedPermissions: Grants.optional().meta({ description: 'replaces the granted permissions' }),
    status: Status.optional(),
    totpRequired: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change');

const RecordResponse = z.object({ success: z.literal(true), data: AdminRecord });

const TAGS = ['Administration: administrators'];

const MANAGE_RULES =
  'Needs admins.manage (else 403 PERMISSION_DENIED with details.permission). Nobody hands out a permission they do not ' +
  'hold, and nobody changes an account holding a permission they lack (403 PERMISSION_DENIED naming it).';

/** GET, POST /admins and PATCH /admins/{id}. */
export function registerAdminsRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;

  surface.route({
    method: 'get',
    path: '/admins',
    operationId: 'adminListAdministrators',
    summary: 'List administrators',
    description:
      'Needs admins.view (else 403 PERMISSION_DENIED). Sorted by e-mail; limit (default 20, at most 100) and offset, ' +
      'with the total. Each read is recorded in the audit log (admins.list).',
    tags: TAGS,
    security: 'administrator',
    query: ListQuery,
    responses: {
      200: { description: 'A page of administrators', schema: ListResponse },
      ...errorResponses(400, 401, 403),
    },
    handler: async (ctx, { query }) => {
      requirePermission(ctx, 'admins.view');
      const page = await db.transaction(async (client) => {
        const found = await listAdmins(client, query);
        await recordAudit(client, {
          ...adminAuditActor(ctx),
          action: 'admins.list',
          targetKind: 'admin',
          details: {
            filter: { status: query.status ?? null, role: query.role ?? null },
            limit: query.limit,
            offset: query.offset,
            returned: found.items.length,
          },
        });
        return found;
      });
      ctx.body = {
        success: true,
        data: {
          items: page.items.map(adminRecord),
          total: page.total,
          limit: query.limit,
          offset: query.offset,
        },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/admins',
    operationId: 'adminCreateAdministrator',
    summary: 'Create an administrator',
    description:
      `${MANAGE_RULES} The creator sets the initial password (argon2id) and hands it over; by default the new account ` +
      'must set up TOTP at its first sign-in (totpRequired). 409 ADMIN_EMAIL_TAKEN when the e-mail address has an account. ' +
      'Recorded in the audit log (admins.create).',
    tags: TAGS,
    security: 'administrator',
    body: CreateBody,
    responses: {
      201: { description: 'Created', schema: RecordResponse },
      ...errorResponses(400, 401, 403, 409),
    },
    handler: async (ctx, { body }) => {
      const actor = requirePermission(ctx, 'admins.manage');
      const access: AdminAccess = {
        role: body.role,
        grantedPermissions: catalogueOrder(body.grantedPermissions),
        status: 'ACTIVE',
        totpRequired: body.totpRequired,
      };
      refuseIf(refuseAdminChange({ actor, target: null, next: access }));
      const passwordHash = await hashAdminPassword(body.password);
      const created = await db.transaction(async (client) => {
        const row = await insertAdmin(client, {
          ...access,
          email: body.email,
          name: body.name,
          passwordHash,
          grantedPermissions: [...access.grantedPermissions],
        });
        if (!row) throw conflict('ADMIN_EMAIL_TAKEN', 'An administrator with this e-mail address exists');
        await recordAudit(client, {
          ...adminAuditActor(ctx),
          action: 'admins.create',
          targetKind: 'admin',
          targetId: row.id,
          details: {
            email: row.email,
            role: row.role,
            grantedPermissions: row.permissions,
            totpRequired: row.totp_required,
          },
        });
        return row;
      });
      ctx.status = 201;
      ctx.body = { success: true, data: adminRecord(created) };
    },
  });

  surface.route({
    method: 'patch',
    path: '/admins/{id}',
    operationId: 'adminUpdateAdministrator',
    summary: "Change an administrator's name, role, permissions, status or second-factor policy",
    description:
      `${MANAGE_RULES} An administrator cannot remove their own admins.manage, disable themselves or lift their own ` +
      'totpRequired (409 OWN_ACCOUNT_CHANGE_REFUSED with details.field). Disabling ends every session of the account at ' +
      'once; role and permission changes apply from the next request. Setting totpRequired makes the account set up or ' +
      'give its second factor before anything else. 404 ADMIN_NOT_FOUND. Recorded in the audit log (admins.update, with ' +
      'each changed field before and after).',
    tags: TAGS,
    security: 'administrator',
    params: IdParams,
    body: UpdateBody,
    responses: {
      200: { description: 'Changed', schema: RecordResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { params, body }) => {
      const actor = requirePermission(ctx, 'admins.manage');
      const updated = await db.transaction(async (client) => {
        const current = await lockAdmin(client, params.id);
        if (!current) throw notFound('ADMIN_NOT_FOUND', 'No administrator has this id');
        const next = changed(current, body);
        refuseIf(refuseAdminChange({ actor, target: { adminId: current.id, ...accessOf(current) }, next }));
        const row = await updateAdmin(client, current.id, next);
        if (current.status === 'ACTIVE' && row.status === 'DISABLED')
          await revokeOtherAdminSessions(client, row.id);
        await recordAudit(client, {
          ...adminAuditActor(ctx),
          action: 'admins.update',
          targetKind: 'admin',
          targetId: row.id,
          details: { changes: differences(current, row) },
        });
        return row;
      });
      ctx.body = { success: true, data: adminRecord(updated) };
    },
  });
}

function adminRecord(row: AdminRow) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    grantedPermissions: row.permissions,
    permissions: effectivePermissions(row.role, row.permissions),
    status: row.status,
    totpRequired: row.totp_required,
    totpEnabled: row.totp_enabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function accessOf(row: AdminRow): AdminAccess {
  return {
    role: row.role,
    grantedPermissions: row.permissions,
    status: row.status,
    totpRequired: row.totp_required,
  };
}

function changed(current: AdminRow, body: z.infer<typeof UpdateBody>): AdminChange {
  return {
    name: body.name ?? current.name,
    role: body.role ?? current.role,
    grantedPermissions: body.grantedPermissions
      ? catalogueOrder(body.grantedPermissions)
      : current.permissions,
    status: body.status ?? current.status,
    totpRequired: body.totpRequired ?? current.totp_required,
  };
}

/** Each field that changed, before and after, for the audit row. */
function differences(before: AdminRow, after: AdminRow): Record<string, { from: unknown; to: unknown }> {
  const fields = {
    name: 'name',
    role: 'role',
    grantedPermissions: 'permissions',
    status: 'status',
    totpRequired: 'totp_required',
  } as const;
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, column] of Object.entries(fields)) {
    if (JSON.stringify(before[column]) !== JSON.stringify(after[column]))
      changes[field] = { from: before[column], to: after[column] };
  }
  return changes;
}

/** Granted permissions without repeats, in catalogue order. */
function catalogueOrder(granted: readonly AdminPermission[]): AdminPermission[] {
  return ADMIN_PERMISSIONS.filter((permission) => granted.includes(permission));
}

function refuseIf(refusal: AdminChangeRefusal | null): void {
  if (!refusal) return;
  if (refusal.errorCode === 'PERMISSION_DENIED') throw permissionDenied(refusal.permission);
  throw new Refusal(
    409,
    'OWN_ACCOUNT_CHANGE_REFUSED',
    'Administrators cannot lock themselves out or lift their own second-factor requirement',
    {
      field: refusal.field,
    },
  );
}
