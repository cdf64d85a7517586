import { z } from 'zod';
import { InstantInput, Pagination, UUID_PATTERN, Uuid } from '../http/schemas.js';
import { DateTime, IdText, withPeriodInOrder } from './schemas.js';
import { successWith } from '../http/answer-schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';

/**
 * The OpenAPI side of the audit log read (api/admin/audit.ts): its query, which also validates,
 * the answer's schema and the route's prose.
 */

const ActorKind = z.enum(['ADMIN', 'STAFF', 'TRAVELLER', 'SYSTEM', 'DRIVER']);

/**
 * A target's id as the log stores it. Records are named by uuids, which the log holds in their
 * canonical lower case: one given in any case is lowered, so it names the same record and the
 * filter stays an equality on audit_log_target_idx. Other ids (feature-flag keys) are case-sensitive
 * wherever the API names them and are matched as written.
 */
const TargetId = z
  .string()
  .min(1)
  .max(200)
  .overwrite((id) => (UUID_PATTERN.test(id) ? id.toLowerCase() : id))
  .meta({ description: 'id of the record acted on (a uuid in any case)' });

/** A row of the log by its id, as the answer prints it: a positive bigint (at most 2^63 - 1). */
const AuditRowId = z
  .string()
  .regex(/^[1-9]\d{0,18}$/, 'must be the id of a row of the audit log')
  // Compared as text (19-digit strings order as their numbers), so text the regex refused is never parsed.
  .refine((id) => id.length < 19 || id <= '9223372036854775807', 'must be the id of a row of the audit log');

export const AuditQuery = withPeriodInOrder(
  z
    .object({
      actor: Uuid.optional().meta({
        description: 'id of the administrator, staff user, traveller or driver who acted',
      }),
      actorKind: ActorKind.optional(),
      action: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .meta({ description: 'exact action name, such as admins.update' }),
      targetKind: z.string().min(1).max(50).optional(),
      target: TargetId.optional(),
      from: InstantInput.optional().meta({ description: 'rows at or after this time' }),
      to: InstantInput.optional().meta({ description: 'rows before this time' }),
      before: AuditRowId.optional().meta({
        description: "a row's id (the previous page's nextBefore): only the rows listed after that row",
      }),
      ...Pagination,
    })
    .strict(),
);

const AuditEntry = z
  .object({
    id: z.string().meta({ description: 'increasing row number' }),
    actorKind: ActorKind,
    actorId: IdText.nullable(),
    action: z.string(),
    targetKind: z.string().nullable(),
    targetId: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable().meta({
      description: "null unless the reader holds the view permission of the row's subject (see the route)",
    }),
    ip: z.string().nullable(),
    requestId: z.string().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'AuditEntry' });

const AuditResponse = successWith(
  z.object({
    items: z.array(AuditEntry),
    total: z.int(),
    limit: z.int(),
    offset: z.int(),
    nextBefore: z.string().nullable().meta({
      description: "the last item's id while rows are left after it (send it as before), else null",
    }),
  }),
);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Administration: audit log'], {
  adminAuditLog: {
    summary: 'Read the audit log',
    description:
      'Needs audit.view (else 403 PERMISSION_DENIED). Every administrative change and every read of sensitive data is ' +
      'one row: who acted (actorKind, actorId), what they did (action), to which record (targetKind, targetId), when ' +
      '(createdAt), from where (ip, requestId) and the facts of it (details: changed fields before and after, filters ' +
      'used; never secrets). Newest first; filters combine; from is inclusive and to exclusive (from later than to ' +
      'is 400 VALIDATION_FAILED); limit (default 20, at most 100) and offset, with the total. Reading the log is itself recorded (audit_log.read). ' +
      "As reads add rows at the top, page by before, not offset: send the previous answer's nextBefore as before " +
      '(offset 0) and the page starts right after that row, none twice and none missed; total then counts the rows ' +
      'after it, and nextBefore is null on the last page. A before that names no row is 400 VALIDATION_FAILED. ' +
      'details show only to a holder of the view permission of what the row is about, else null: admins.*, auth.*, ' +
      "security.* need admins.view; tickets.* tickets.view; companies.* and company staff's rows (company.*, " +
      'catalogue.*, team.*, payments.*, cash_shifts.*, loyalty.*, STAFF_/DRIVER_SIGNED_IN/OUT) companies.view; ' +
      'feature_flags.*, incidents.*, maintenance.* platform.view; waitlist.* waitlist.view; analytics.* ' +
      'analytics.view; audit_log.* audit.view; any other action every one of these. ' +
      'Every row about a company has targetKind company (its staff and drivers signing in and out too); what a ' +
      'company user does in the driver app (DRIVER_SIGNED_IN/OUT, payments.driver_collection) has actorKind DRIVER, ' +
      'in the dashboard STAFF. ' +
      'Rate limited per administrator (ADMIN_READ_RATE_LIMIT_PER_MINUTE, 120 a minute, one budget with GET ' +
      '/analytics): 429 RATE_LIMITED with ' +
      'Retry-After, and nothing is read or recorded. Actions written so far: ' +
      'auth.login, auth.login_failed, auth.second_factor, auth.second_factor_failed, auth.logout, ' +
      'security.2fa_enrolment_started, security.2fa_enabled, security.2fa_changed, security.2fa_removed, admins.list, ' +
      'admins.read, ' +
      'admins.create, admins.update, audit_log.read; companies.list, companies.read, companies.warn, companies.suspend, ' +
      'companies.unsuspend, companies.verify, companies.unverify (target the company); feature_flags.update; ' +
      'incidents.create, incidents.update, incidents.resolve; maintenance.create, maintenance.update, maintenance.cancel; ' +
      'waitlist.list; analytics.read; tickets.list, tickets.read, tickets.create, tickets.reply, tickets.assign, ' +
      'tickets.close; travellers.unverified_email_released (an identity-provider sign-in or link took an address ' +
      'another traveller account held unverified; targetKind user, actorKind TRAVELLER the account that proved it).',
    responses: answers(200, 'A page of audit rows', AuditResponse, [400, 401, 403, 429]),
  },
});
