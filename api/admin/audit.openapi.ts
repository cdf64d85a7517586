import { z } from 'zod';
import { InstantInput, Pagination, UUID_PATTERN, Uuid } from '../http/schemas.js';
import { DateTime, IdText, pageAnswer, withPeriodInOrder } from './schemas.js';
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
    details: z.record(z.string(), z.unknown()),
    ip: z.string().nullable(),
    requestId: z.string().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'AuditEntry' });

const AuditResponse = pageAnswer(AuditEntry);

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
      'tickets.close.',
    responses: answers(200, 'A page of audit rows', AuditResponse, [400, 401, 403, 429]),
  },
});
