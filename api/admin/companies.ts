import type { AdminCompanyRow, CompanyActionRow } from '../../db/queries/admin-companies.js';
import { camelFields } from '../../db/row-fields.js';
import type { CompanyAction } from '../../domain/company-moderation.js';
import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { adminRoute } from './admin-route.js';
import { adminListRoute } from './list-route.js';
import { IdParams } from '../http/schemas.js';
import { journeyConfirmationClient } from '../temporal/journey-confirmation-client.js';
import {
  actOnCompanyAsAdmin,
  listCompaniesRecorded,
  readCompanyRecorded,
} from '../use-cases/company-moderation.js';
import { CompanyListQuery, docs, ReasonBody } from './companies.openapi.js';

const ACTION_ROUTES: { action: CompanyAction; path: string; doc: keyof typeof docs }[] = [
  { action: 'WARN', path: '/companies/{id}/warn', doc: 'adminWarnCompany' },
  { action: 'SUSPEND', path: '/companies/{id}/suspend', doc: 'adminSuspendCompany' },
  { action: 'UNSUSPEND', path: '/companies/{id}/unsuspend', doc: 'adminUnsuspendCompany' },
  { action: 'VERIFY', path: '/companies/{id}/verify', doc: 'adminVerifyCompany' },
  { action: 'UNVERIFY', path: '/companies/{id}/unverify', doc: 'adminUnverifyCompany' },
];

/** GET /companies, GET /companies/{id} and the actions warn, suspend, unsuspend, verify, unverify. */
export function registerCompanyRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;
  const deps = {
    db,
    logger: context.logger,
    workflow: journeyConfirmationClient(context.temporal, context.config),
    signing: { privateKeyPem: context.config.SIGNING_PRIVATE_KEY_PEM, logger: context.logger },
  };

  adminListRoute(surface, docs.adminListCompanies, '/companies', 'companies.view', {
    query: CompanyListQuery,
    read: (query, audit) => listCompaniesRecorded(db, audit, query),
    view: adminCompany,
  });

  adminRoute(surface, 'companies.view', {
    ...docs.adminReadCompany,
    method: 'get',
    path: '/companies/{id}',
    params: IdParams,
    handler: async (ctx, { audit }, { params }) => {
      const read = await readCompanyRecorded(db, audit, params.id);
      ok(ctx, { company: adminCompany(read.company), history: read.history.map(historyEntry) });
    },
  });

  for (const { action, path, doc } of ACTION_ROUTES) {
    adminRoute(surface, 'companies.manage', {
      ...docs[doc],
      method: 'post',
      path,
      params: IdParams,
      body: ReasonBody,
      handler: async (ctx, { audit }, { params, body }) => {
        const done = await actOnCompanyAsAdmin(deps, audit, {
          companyId: params.id,
          action,
          reason: body.reason,
        });
        ok(ctx, {
          companyId: params.id,
          action,
          reason: body.reason,
          before: done.before,
          after: done.after,
          historyId: done.actionId,
          endedRequests: done.endedRequests,
        });
      },
    });
  }
}

function adminCompany(row: AdminCompanyRow) {
  return {
    ...camelFields(row, [
      'id',
      'name_en',
      'name_ar',
      'slug',
      'status',
      'verified',
      'published',
      'scope',
      'email',
      'phone',
      'created_at',
    ]),
    counts: { trips: row.trips, bookings: row.bookings, revenue: Number(row.revenue) },
    warnings: row.warnings,
    lastActionAt: row.last_action_at,
  };
}

function historyEntry(row: CompanyActionRow) {
  return {
    ...camelFields(row, ['id', 'action', 'reason']),
    admin: row.admin_id ? { id: row.admin_id, name: row.admin_name ?? '' } : null,
    before: row.standing_before,
    after: row.standing_after,
    createdAt: row.created_at,
  };
}
