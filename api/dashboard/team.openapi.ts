import { z } from 'zod';
import { Pagination } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText, IdText, pageWith } from '../http/answer-schemas.js';

/** The OpenAPI side of the team list (api/dashboard/team.ts): its query, which also validates, and its docs. */

export const TeamQuery = z.object(Pagination).strict();

const TeamResponse = pageWith(
  z.object({
    membershipId: IdText,
    userId: IdText,
    email: z.string(),
    name: z.string(),
    role: z.enum(['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT', 'DRIVER']),
    status: z.enum(['ACTIVE', 'INACTIVE', 'DISABLED']).meta({
      description: 'INACTIVE: the membership was deactivated; DISABLED: the user account is disabled',
    }),
    joinedAt: DateTimeText,
  }),
);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Dashboard: team'], {
  listTeam: {
    summary: "Members of the signed-in user's company",
    description:
      "Every membership of the session's company (never another company's) with its role and status, owners first. " +
      'Any dashboard role may read it. Paginated with limit (default 20, at most 100) and offset; pagination.total counts ' +
      'all members.',
    responses: answers(200, 'The team', TeamResponse, [400, 401]),
  },
});
