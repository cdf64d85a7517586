import { z } from 'zod';
import { ADMIN_PERMISSIONS } from '../../domain/permissions.js';
import { Email, Pagination, PersonName } from '../http/schemas.js';
import { DateTime, IdText, pageAnswer, Permission, Role } from './schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the administrator team routes (api/admin/admins.ts): request and response
 * schemas, which also validate, and the prose of each route.
 */

const TAGS = ['Administration: administrators'];

const Status = z.enum(['ACTIVE', 'DISABLED']);

const AdminRecord = z
  .object({
    id: IdText,
    email: z.string(),
    name: z.string(),
    role: Role,
    grantedPermissions: z.array(Permission).meta({ description: 'permissions granted on top of the role' }),
    permissions: z
      .array(Permission)
      .meta({ description: "what the administrator may do: the role's permissions plus the granted ones" }),
    status: Status,
    totpRequired: z.boolean().meta({ description: 'must sign in with a second factor (TOTP)' }),
    totpEnabled: z.boolean().meta({ description: 'has an authenticator set up' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'Administrator' });

export const ListQuery = z
  .object({ status: Status.optional(), role: Role.optional(), ...Pagination })
  .strict();

const ListResponse = pageAnswer(AdminRecord);

const Grants = z.array(Permission).max(ADMIN_PERMISSIONS.length);

export const CreateBody = z
  .object({
    email: Email(),
    name: PersonName,
    password: z
      .string()
      .min(12)
      .max(200)
      .meta({ description: 'initial password, 12 to 200 characters, chosen by the creator' }),
    role: Role,
    grantedPermissions: Grants.default([]),
    totpRequired: z
      .boolean()
      .default(true)
      .meta({ description: 'default true: the new administrator sets up TOTP at first sign-in' }),
  })
  .strict();

export const UpdateBody = z
  .object({
    name: PersonName.optional(),
    role: Role.optional(),
    grantedPermissions: Grants.optional().meta({ description: 'replaces the granted permissions' }),
    status: Status.optional(),
    totpRequired: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change')
  .meta({ minProperties: 1 });

/** What a change answers to one without admins.view: the account's id and status and the fields the caller set. */
const AdminReceipt = z
  .object({
    id: IdText,
    status: Status,
    email: z.string().optional(),
    name: z.string().optional(),
    role: Role.optional(),
    grantedPermissions: z.array(Permission).optional(),
    totpRequired: z.boolean().optional(),
  })
  .meta({ id: 'AdministratorReceipt' });

const RecordResponse = successWith(z.union([AdminRecord, AdminReceipt]));

const ANSWER =
  'Answers the account as GET /admins lists it only to an administrator who also holds admins.view (as their ' +
  'account is after the change), and records that read in the same transaction (admins.read, on the account; ' +
  'also when the change changes nothing); without admins.view it answers {id, status} and';

const MANAGE_RULES =
  'Needs admins.manage (else 403 PERMISSION_DENIED with details.permission). Nobody hands out a permission they do not ' +
  'hold, and nobody changes an account holding a permission they lack (403 PERMISSION_DENIED naming it).';

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  adminListAdministrators: {
    summary: 'List administrators',
    description:
      'Needs admins.view (else 403 PERMISSION_DENIED). Sorted by e-mail; limit (default 20, at most 100) and offset, ' +
      'with the total. Each read is recorded in the audit log (admins.list).',
    responses: answers(200, 'A page of administrators', ListResponse, [400, 401, 403]),
  },
  adminCreateAdministrator: {
    summary: 'Create an administrator',
    description:
      `${MANAGE_RULES} The creator sets the initial password (argon2id) and hands it over; by default the new account ` +
      'must set up TOTP at its first sign-in (totpRequired). 409 ADMIN_EMAIL_TAKEN when the e-mail address has an account. ' +
      `Recorded in the audit log (admins.create). ${ANSWER} the fields the caller set (email, name, role, ` +
      'grantedPermissions, totpRequired), and records no read.',
    responses: answers(201, 'Created', RecordResponse, [400, 401, 403, 409]),
  },
  adminUpdateAdministrator: {
    summary: "Change an administrator's name, role, permissions, status or second-factor policy",
    description:
      `${MANAGE_RULES} An administrator cannot remove their own admins.manage, disable themselves or lift their own ` +
      'second-factor requirement, the totpRequired flag or the one their permissions carry in production (409 ' +
      'OWN_ACCOUNT_CHANGE_REFUSED with details.field), nor drop a permission of their own that no other ACTIVE ' +
      'administrator could give back, that is one holding it and every permission they keep (409 ' +
      'LAST_PERMISSION_GRANTOR with details.permission). ' +
      'Disabling ends every session of the account at ' +
      'once; role and permission changes apply from the next request. Disabling the account, or taking tickets.manage ' +
      'away from it, unassigns its open support tickets in the same change (each recorded as tickets.assign). Setting ' +
      'totpRequired makes the account set up or give its second factor before anything else. 404 ADMIN_NOT_FOUND. ' +
      'Recorded in the audit log (admins.update, with each changed field before and after, and ticketsUnassigned); a ' +
      `change that changes nothing records no admins.update. ${ANSWER} the fields the body sent, as the ` +
      'change left them, and records no read.',
    responses: answers(200, 'Changed', RecordResponse, [400, 401, 403, 404, 409]),
  },
});
