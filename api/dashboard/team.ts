import { z } from 'zod';
import { listTeam } from '../../db/queries/team.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses, Pagination } from '../http/schemas.js';
import { authorize } from './guards.js';

const TeamQuery = z.object(Pagination).strict();

const TeamResponse = z.object({
  success: z.literal(true),
  data: z.array(
    z.object({
      membershipId: z.string().meta({ format: 'uuid' }),
      userId: z.string().meta({ format: 'uuid' }),
      email: z.string(),
      name: z.string(),
      role: z.enum(['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT', 'DRIVER']),
      status: z.enum(['ACTIVE', 'INACTIVE', 'DISABLED']).meta({
        description: 'INACTIVE: the membership was deactivated; DISABLED: the user account is disabled',
      }),
      joinedAt: z.string().meta({ format: 'date-time' }),
    }),
  ),
  pagination: z.object({ limit: z.int(), offset: z.int(), total: z.int() }),
});

export function registerTeamRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/team',
    operationId: 'listTeam',
    summary: "Members of the signed-in user's company",
    description:
      "Every membership of the session's company (never another company's) with its role and status, owners first. " +
      'Any dashboard role may read it. Paginated with limit (default 20, at most 100) and offset; pagination.total counts ' +
      'all members.',
    tags: ['Dashboard: team'],
    security: 'companyStaff',
    query: TeamQuery,
    responses: { 200: { description: 'The team', schema: TeamResponse }, ...errorResponses(400, 401) },
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
