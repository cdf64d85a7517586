import { listTeam } from '../../db/queries/team.js';
import type { AppContext } from '../app.js';
import { page } from '../http/respond.js';
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
      page(ctx, members, query, total);
    },
  });
}
