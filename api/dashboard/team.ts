import { listTeam } from '../../db/queries/team.js';
import { updateTeamMember } from '../../db/writes/team.js';
import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import { requestOrigin } from '../http/request-origin.js';
import type { Surface } from '../http/route.js';
import { settingsErrorCode } from './booking-settings.openapi.js';
import { actingMember, allow, MANAGEMENT_ROLES, requireActiveCompany, requireRole } from './guards.js';
import { companyPageRoute, staffRoute } from './staff-route.js';
import { docs, TeamMemberParams, TeamMemberPatch, TeamQuery } from './team.openapi.js';

/** OWNER or ADMIN of an active company; who may change whom is domain/team.ts. */
const teamManager = allow(requireRole(...MANAGEMENT_ROLES), requireActiveCompany);

/** GET /team: the company's members, a page at a time; PATCH /team/{membershipId}: one member's role or activity. */
export function registerTeamRoutes(surface: Surface, { db }: AppContext): void {
  const teamPage = { ...docs.listTeam, path: '/team', query: TeamQuery };
  companyPageRoute(surface, teamPage, 'members', (companyId, query) => listTeam(db, companyId, query));

  staffRoute(surface, teamManager, {
    ...docs.updateTeamMember,
    method: 'patch',
    path: '/team/{membershipId}',
    params: TeamMemberParams,
    body: TeamMemberPatch,
    errorCode: settingsErrorCode,
    handler: async (ctx, staff, { params, body }) => {
      const member = await updateTeamMember(
        db,
        {
          companyId: staff.companyId,
          actor: actingMember(staff, MANAGEMENT_ROLES),
          membershipId: params.membershipId,
          change: body,
        },
        requestOrigin(ctx),
      );
      ctx.set('Cache-Control', 'private, no-store');
      ok(ctx, member);
    },
  });
}
