import { listTeam } from '../../db/queries/team.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { authorize } from './guards.js';
import { docs, TeamQuery } from './team.openapi.js';

export function registerTeamRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.listTeam,
    method: 'get',
    path: '/team',
    security: 'companyStaff',
    query: TeamQuery,
    handler: async (ctx, { query }) => {
      const staff = authorize(ctx);
      const { members, total } = await listTeam(db, staff.companyId, query);
      ctx.body = {
        success: true,
        data: members,
        pagination: { limit: query.limit, offset: query.offset, total },
      };
    },
  });
}
