import type { Context } from 'koa';
import { z } from 'zod';
import { ADMIN_PERMISSIONS, ADMIN_ROLES } from '../../domain/permissions.js';
import { setAdminSessionCookies, type IssuedAdminSession } from '../auth/admin-session.js';
import { DateTimeText as DateTime, IdText, successWith } from '../http/answer-schemas.js';

/** Answer primitives shared by every surface, re-exported for this module's importers. */
export { DateTime, IdText };

/** Schemas and helpers the administration route modules share. */
export const Permission = z.enum(ADMIN_PERMISSIONS).meta({ id: 'AdminPermission' });
export const Role = z.enum(ADMIN_ROLES).meta({ id: 'AdminRole' });

export const TotpCode = z.string().regex(/^\d{6}$/, 'must be the 6 digits the authenticator shows');
export const RecoveryCode = z
  .string()
  .min(10)
  .max(20)
  .meta({ description: 'one of the recovery codes, such as k3v9q-7mxa2' });

/** A second factor: the current authenticator code, or one of the recovery codes. */
export const SecondFactorProofBody = z.union([
  z.object({ code: TotpCode }).strict(),
  z.object({ recoveryCode: RecoveryCode }).strict(),
]);

export const SignedInAdmin = z
  .object({
    id: IdText,
    email: z.string(),
    name: z.string(),
    role: Role,
    permissions: z
      .array(Permission)
      .meta({ description: "the role's permissions plus any granted one by one" }),
  })
  .meta({ id: 'SignedInAdministrator' });

/**
 * `query` with the rule of every administration list with a period (from, to): from later than to
 * is 400 VALIDATION_FAILED on from, before the list is read (so no read is recorded either).
 */
export const withPeriodInOrder = <
  Q extends z.ZodType<{ from?: string | undefined; to?: string | undefined }>,
>(
  query: Q,
) =>
  query.refine((period) => !period.from || !period.to || Date.parse(period.from) <= Date.parse(period.to), {
    message: 'from must not be after to',
    path: ['from'],
  });

/**
 * A list's `search=` filter, at most `max` characters once trimmed. Empty or blank is no filter, as
 * on the dashboard's lists (GET /dashboard/api/loyalty, the payments ledger): it reads and is recorded
 * in the audit log as no search at all.
 */
export const OptionalSearch = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((text) => text || undefined)
    .optional();

/** The answer to an administration list: a page of `item`, the list's total and the query's limit and offset. */
export const pageAnswer = <T extends z.ZodType>(item: T) =>
  successWith(z.object({ items: z.array(item), total: z.int(), limit: z.int(), offset: z.int() }));

export const OkResponse = successWith(z.null());

/**
 * Opens a signed-in (or newly confirmed) session on the response: sets its cookies and gives what
 * the client keeps of it, the CSRF token to send on writes and when the session ends.
 */
export function openedSession(
  ctx: Context,
  config: Parameters<typeof setAdminSessionCookies>[1],
  session: IssuedAdminSession,
): { csrfToken: string; expiresAt: number } {
  setAdminSessionCookies(ctx, config, session);
  return { csrfToken: session.csrfToken, expiresAt: session.expiresAt };
}
