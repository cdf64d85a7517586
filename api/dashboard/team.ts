import { listTeam } from '../../db/queries/team.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { companyPageRoute } from './staff-route.js';
import { docs, TeamQuery } from './team.openapi.js';

/** GET /team: the company's members, a page at a time. */
export function registerTeamRoutes(surface: Surface, { db }: AppContext): void {
  const teamPage = { ...docs.listTeam, path: '/team', query: TeamQuery };
  companyPageRoute(surface, teamPage, 'members', (companyId, query) => listTeam(db, companyId, query));
}
