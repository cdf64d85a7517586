import type { IncidentRow, MaintenanceRow } from '../../db/queries/platform-state.js';
import { listIncidents, listMaintenanceWindows } from '../../db/queries/platform-state.js';
import { changeIncident, openIncident } from '../../db/writes/incidents.js';
import { changeMaintenance, scheduleMaintenance } from '../../db/writes/platform-state.js';
import type { AppContext } from '../app.js';
import { adminAuditActor, requirePermission } from '../auth/admin-auth.js';
import { notFound } from '../http/errors.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { adminListRoute } from './list-route.js';
import { IdParams } from '../http/schemas.js';
import { changeFeatureFlag, featureFlags } from '../use-cases/feature-flags.js';
import { ReasonBody } from './companies.openapi.js';
import {
  docs,
  FlagBody,
  FlagParams,
  IncidentChangeBody,
  IncidentQuery,
  MaintenanceQuery,
  NewIncidentBody,
  NewWindowBody,
  ResolveBody,
  WindowChangeBody,
} from './operations.openapi.js';
import { camelFields } from '../../db/row-fields.js';

/** Feature flags, incidents and maintenance windows: GET /feature-flags, /incidents, /maintenance and their writes. */
export function registerOperationsRoutes(surface: Surface, context: AppContext): void {
  registerFlagRoutes(surface, context);
  registerIncidentRoutes(surface, context);
  registerMaintenanceRoutes(surface, context);
}

function registerFlagRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.adminListFeatureFlags,
    method: 'get',
    path: '/feature-flags',
    security: 'administrator',
    handler: async (ctx) => {
      requirePermission(ctx, 'platform.view');
      ok(ctx, { items: await featureFlags(db) });
    },
  });

  surface.route({
    ...docs.adminSetFeatureFlag,
    method: 'patch',
    path: '/feature-flags/{key}',
    security: 'administrator',
    params: FlagParams,
    body: FlagBody,
    handler: async (ctx, { params, body }) => {
      const admin = requirePermission(ctx, 'flags.manage');
      const audit = { ...adminAuditActor(ctx), actorId: admin.adminId };
      ok(ctx, await changeFeatureFlag(db, audit, params.key, body));
    },
  });
}

const incidentNotFound = () => notFound('INCIDENT_NOT_FOUND', 'No incident has this id');

/** PATCH /incidents/{id} (its fields) and POST /incidents/{id}/resolve (the resolution) are one change: the body says what. */
const INCIDENT_CHANGES = [
  { doc: docs.adminUpdateIncident, method: 'patch', path: '/incidents/{id}', body: IncidentChangeBody },
  { doc: docs.adminResolveIncident, method: 'post', path: '/incidents/{id}/resolve', body: ResolveBody },
] as const;

function registerIncidentRoutes(surface: Surface, { db }: AppContext): void {
  adminListRoute(surface, docs.adminListIncidents, '/incidents', 'platform.view', {
    query: IncidentQuery,
    read: (query) => listIncidents(db, query),
    view: incident,
  });

  surface.route({
    ...docs.adminCreateIncident,
    method: 'post',
    path: '/incidents',
    security: 'administrator',
    body: NewIncidentBody,
    handler: async (ctx, { body }) => {
      const admin = requirePermission(ctx, 'incidents.manage');
      const { startedAt, ...fields } = body;
      const opened = await openIncident(
        db,
        { ...fields, startedAt: startedAt ? new Date(startedAt) : undefined, adminId: admin.adminId },
        adminAuditActor(ctx),
      );
      created(ctx, incident(opened));
    },
  });

  for (const { doc, method, path, body } of INCIDENT_CHANGES) {
    surface.route({
      ...doc,
      method,
      path,
      security: 'administrator',
      params: IdParams,
      body,
      handler: async (ctx, input) => {
        requirePermission(ctx, 'incidents.manage');
        const changed = await changeIncident(db, input.params.id, input.body, adminAuditActor(ctx));
        if (!changed) throw incidentNotFound();
        ok(ctx, incident(changed));
      },
    });
  }
}

const windowNotFound = () => notFound('MAINTENANCE_WINDOW_NOT_FOUND', 'No maintenance window has this id');
const dateOf = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

function registerMaintenanceRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.adminListMaintenance,
    method: 'get',
    path: '/maintenance',
    security: 'administrator',
    query: MaintenanceQuery,
    handler: async (ctx, { query }) => {
      requirePermission(ctx, 'platform.view');
      const found = await listMaintenanceWindows(db, query);
      const [active] = (await listMaintenanceWindows(db, { state: 'ACTIVE', limit: 1, offset: 0 })).items;
      const { limit, offset } = query;
      ok(ctx, {
        active: active ? window(active) : null,
        items: found.items.map(window),
        total: found.total,
        limit,
        offset,
      });
    },
  });

  surface.route({
    ...docs.adminScheduleMaintenance,
    method: 'post',
    path: '/maintenance',
    security: 'administrator',
    body: NewWindowBody,
    handler: async (ctx, { body }) => {
      const admin = requirePermission(ctx, 'maintenance.manage');
      const scheduled = await scheduleMaintenance(
        db,
        {
          message: body.message,
          startsAt: new Date(body.startsAt),
          endsAt: new Date(body.endsAt),
          adminId: admin.adminId,
        },
        adminAuditActor(ctx),
      );
      created(ctx, window(scheduled));
    },
  });

  surface.route({
    ...docs.adminUpdateMaintenance,
    method: 'patch',
    path: '/maintenance/{id}',
    security: 'administrator',
    params: IdParams,
    body: WindowChangeBody,
    handler: async (ctx, { params, body }) => {
      requirePermission(ctx, 'maintenance.manage');
      const change = { message: body.message, startsAt: dateOf(body.startsAt), endsAt: dateOf(body.endsAt) };
      const changed = await changeMaintenance(db, params.id, change, adminAuditActor(ctx));
      if (!changed) throw windowNotFound();
      ok(ctx, window(changed));
    },
  });

  surface.route({
    ...docs.adminCancelMaintenance,
    method: 'post',
    path: '/maintenance/{id}/cancel',
    security: 'administrator',
    params: IdParams,
    body: ReasonBody,
    handler: async (ctx, { params, body }) => {
      requirePermission(ctx, 'maintenance.manage');
      const cancelled = await changeMaintenance(db, params.id, 'CANCEL', {
        ...adminAuditActor(ctx),
        reason: body.reason,
      });
      if (!cancelled) throw windowNotFound();
      ok(ctx, window(cancelled));
    },
  });
}

/** An incident and a maintenance window as the API answers them: their columns, camelCased. */
const incident = (row: IncidentRow) =>
  camelFields(row, [
    'id',
    'title',
    'description',
    'severity',
    'status',
    'resolution',
    'started_at',
    'resolved_at',
    'created_by',
    'created_at',
    'updated_at',
  ]);

const window = (row: MaintenanceRow) =>
  camelFields(row, [
    'id',
    'message',
    'starts_at',
    'ends_at',
    'state',
    'cancelled_at',
    'created_by',
    'created_at',
    'updated_at',
  ]);
