import type { IncidentRow, MaintenanceRow } from '../../db/queries/platform-state.js';
import { changeIncident, openIncident } from '../../db/writes/incidents.js';
import { changeMaintenance, scheduleMaintenance } from '../../db/writes/platform-state.js';
import type { AppContext } from '../app.js';
import { notFound } from '../http/errors.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { adminRoute } from './admin-route.js';
import { adminListRoute } from './list-route.js';
import { IdParams } from '../http/schemas.js';
import { changeFeatureFlag, readFeatureFlags } from '../use-cases/feature-flags.js';
import { readIncidents, readMaintenance } from '../use-cases/platform-operations.js';
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
  adminRoute(surface, 'platform.view', {
    ...docs.adminListFeatureFlags,
    method: 'get',
    path: '/feature-flags',
    handler: async (ctx, { audit }) => {
      ok(ctx, { items: await readFeatureFlags(db, audit) });
    },
  });

  adminRoute(surface, 'flags.manage', {
    ...docs.adminSetFeatureFlag,
    method: 'patch',
    path: '/feature-flags/{key}',
    params: FlagParams,
    body: FlagBody,
    handler: async (ctx, { audit }, { params, body }) => {
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
    read: (query, audit) => readIncidents(db, audit, query),
    view: incident,
  });

  adminRoute(surface, 'incidents.manage', {
    ...docs.adminCreateIncident,
    method: 'post',
    path: '/incidents',
    body: NewIncidentBody,
    handler: async (ctx, { admin, audit }, { body }) => {
      const { startedAt, ...fields } = body;
      const opened = await openIncident(
        db,
        { ...fields, startedAt: startedAt ? new Date(startedAt) : undefined, adminId: admin.adminId },
        audit,
      );
      created(ctx, incident(opened));
    },
  });

  for (const { doc, method, path, body } of INCIDENT_CHANGES) {
    adminRoute(surface, 'incidents.manage', {
      ...doc,
      method,
      path,
      params: IdParams,
      body,
      handler: async (ctx, { audit }, input) => {
        const changed = await changeIncident(db, input.params.id, input.body, audit);
        if (!changed) throw incidentNotFound();
        ok(ctx, incident(changed));
      },
    });
  }
}

const windowNotFound = () => notFound('MAINTENANCE_WINDOW_NOT_FOUND', 'No maintenance window has this id');
const dateOf = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

function registerMaintenanceRoutes(surface: Surface, { db }: AppContext): void {
  adminRoute(surface, 'platform.view', {
    ...docs.adminListMaintenance,
    method: 'get',
    path: '/maintenance',
    query: MaintenanceQuery,
    handler: async (ctx, { audit }, { query }) => {
      const found = await readMaintenance(db, audit, query);
      const { limit, offset } = query;
      ok(ctx, {
        active: found.active ? window(found.active) : null,
        items: found.items.map(window),
        total: found.total,
        limit,
        offset,
      });
    },
  });

  adminRoute(surface, 'maintenance.manage', {
    ...docs.adminScheduleMaintenance,
    method: 'post',
    path: '/maintenance',
    body: NewWindowBody,
    handler: async (ctx, { admin, audit }, { body }) => {
      const scheduled = await scheduleMaintenance(
        db,
        {
          message: body.message,
          startsAt: new Date(body.startsAt),
          endsAt: new Date(body.endsAt),
          adminId: admin.adminId,
        },
        audit,
      );
      created(ctx, window(scheduled));
    },
  });

  adminRoute(surface, 'maintenance.manage', {
    ...docs.adminUpdateMaintenance,
    method: 'patch',
    path: '/maintenance/{id}',
    params: IdParams,
    body: WindowChangeBody,
    handler: async (ctx, { audit }, { params, body }) => {
      const change = { message: body.message, startsAt: dateOf(body.startsAt), endsAt: dateOf(body.endsAt) };
      const changed = await changeMaintenance(db, params.id, change, audit);
      if (!changed) throw windowNotFound();
      ok(ctx, window(changed));
    },
  });

  adminRoute(surface, 'maintenance.manage', {
    ...docs.adminCancelMaintenance,
    method: 'post',
    path: '/maintenance/{id}/cancel',
    params: IdParams,
    body: ReasonBody,
    handler: async (ctx, { audit }, { params, body }) => {
      const cancelled = await changeMaintenance(db, params.id, 'CANCEL', {
        ...audit,
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
