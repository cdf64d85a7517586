import { companyNotices, type CompanyNoticeRow } from '../../db/queries/admin-companies.js';
import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { docs, NoticeQuery } from './company-warnings.openapi.js';
import { allow, requireRole } from './guards.js';
import { staffRoute } from './staff-route.js';

const notice = (row: CompanyNoticeRow) => ({
  id: row.id,
  kind: row.action,
  reason: row.reason,
  createdAt: row.created_at,
});

/** GET /company/warnings: the OWNER reads what the platform told the company. */
export function registerCompanyWarningRoutes(surface: Surface, { db }: AppContext): void {
  staffRoute(surface, allow(requireRole('OWNER')), {
    ...docs.companyWarnings,
    method: 'get',
    path: '/company/warnings',
    query: NoticeQuery,
    handler: async (ctx, staff, { query }) => {
      const found = await companyNotices(db, staff.companyId, query);
      ok(ctx, {
        status: staff.company.status,
        verified: staff.company.verified,
        suspension: found.suspension ? notice(found.suspension) : null,
        items: found.items.map(notice),
        total: found.total,
        limit: query.limit,
        offset: query.offset,
      });
    },
  });
}
