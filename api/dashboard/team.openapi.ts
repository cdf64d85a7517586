import { z } from 'zod';
import { TEAM_ROLES } from '../../domain/team.js';
import { Pagination, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText, IdText, pageWith, successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the team routes (api/dashboard/team.ts): the list's query, the change's
 * params and body, which also validate, and their docs.
 */

export const TeamQuery = z.object(Pagination).strict();

export const TeamMemberParams = z.object({ membershipId: Uuid }).strict();

export const TeamMemberPatch = z
  .object({
    role: z.enum(TEAM_ROLES).optional().meta({
      description:
        'the new role: OWNER, ADMIN, DISPATCHER, STAFF or ACCOUNTANT for staff; a DRIVER stays a DRIVER',
    }),
    active: z.boolean().optional().meta({
      description: 'false deactivates the membership and ends its sessions at once; true reactivates it',
    }),
  })
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, 'name role, active or both')
  .meta({ minProperties: 1 });

const TeamMember = z.object({
  membershipId: IdText,
  userId: IdText,
  email: z.string(),
  name: z.string(),
  role: z.enum(TEAM_ROLES),
  status: z.enum(['ACTIVE', 'INACTIVE', 'DISABLED']).meta({
    description: 'INACTIVE: the membership was deactivated; DISABLED: the user account is disabled',
  }),
  joinedAt: DateTimeText,
});

const TeamResponse = pageWith(TeamMember);

const AssignedTrip = z.object({
  id: IdText,
  status: z.enum(['SCHEDULED', 'DELAYED', 'BOARDING']),
  departureAt: DateTimeText,
});

/** The change's answer: the member, and for a DRIVER the trips still to run that name them. */
const ChangedTeamMember = TeamMember.extend({
  assignedTrips: z
    .object({ total: z.number().int(), trips: z.array(AssignedTrip) })
    .optional()
    .meta({
      description:
        "A DRIVER only: the company's trips not yet departed (SCHEDULED, DELAYED, BOARDING) that still name this " +
        'driver, soonest first (at most 100; total counts them all). A deactivation does not unassign them: while ' +
        'the driver is not active each shows the readiness blocker DRIVER_INACTIVE, which refuses START_BOARDING and ' +
        'DEPART (409 TRIP_NOT_READY), until a dispatcher re-plans it with another driver (POST /trips with trip_id).',
    }),
});

const CHANGE_RULES =
  "Needs role OWNER or ADMIN (403 ROLE_NOT_ALLOWED) of an active company (403 COMPANY_SUSPENDED) and X-CSRF-Token (403 CSRF_TOKEN_INVALID). The company is the session's: another company's membership id is 404 NOT_FOUND, and a body naming companyId, actorId, updatedBy or userId is 400 SESSION_FIELD_REFUSED. " +
  'Rules, each refusal changing nothing: nobody changes their own membership (403 TEAM_SELF_CHANGE); only an OWNER ' +
  "changes an OWNER's membership or makes someone OWNER (403 ROLE_NOT_ALLOWED); staff roles change among OWNER, ADMIN, " +
  'DISPATCHER, STAFF and ACCOUNTANT, while a DRIVER membership is only deactivated or reactivated and nobody is made a ' +
  'DRIVER here, since drivers sign in through the driver app and are added with POST /drivers (422 ' +
  'TEAM_ROLE_CHANGE_NOT_ALLOWED); the company keeps at least one active OWNER membership whose account is active ' +
  '(409 LAST_OWNER), also when two owners change each other at the same moment (the changes take turns). The ' +
  'acting member is judged as they stand when the change is made, after any change committed while the request ' +
  'waited: deactivated or signed out 401 INVALID_CREDENTIAL, no longer OWNER or ADMIN, or no longer OWNER to ' +
  "change an OWNER's membership, 403 ROLE_NOT_ALLOWED.";

const CHANGE_EFFECTS =
  "A new role applies from the member's next request. Deactivation ends every session of the membership at once " +
  '(dashboard and driver app: their next request is 401); reactivation lets the member sign in again but brings no ' +
  'old session back. A DRIVER keeps the trips assigned to them; the answer lists those still to run ' +
  '(assignedTrips). Recorded in the audit log (team.update, with the role and active flag before and after). A ' +
  'body that changes nothing answers the member as it is and records nothing.';

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
  updateTeamMember: {
    summary: "Change a member's role, or deactivate or reactivate the membership",
    description: `${CHANGE_RULES} ${CHANGE_EFFECTS}`,
    responses: answers(
      200,
      'The member as GET /team shows it; a DRIVER with assignedTrips',
      successWith(ChangedTeamMember),
      [400, 401, 403, 404, 409, 422],
    ),
  },
});
