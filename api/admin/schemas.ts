import type { Context } from 'koa';
import { z } from 'zod';
import { ADMIN_PERMISSIONS, ADMIN_ROLES } from '../../domain/permissions.js';
import { currentAdmin, type AdminPrincipal } from '../auth/admin-auth.js';
import type { RateLimiter } from '../http/rate-limit.js';

/** Schemas and helpers the administration route modules share. */
export const IdText = z.string().meta({ format: 'uuid' });
export const DateTime = z.string().meta({ format: 'date-time' });
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

export const OkResponse = z.object({ success: z.literal(true), data: z.null() });

/**
 * The current administrator, once one more second-factor attempt of theirs is counted: every
 * route that checks a code shares one limit per administrator.
 */
export async function adminAttemptingCode(ctx: Context, limit: RateLimiter): Promise<AdminPrincipal> {
  const admin = currentAdmin(ctx);
  await limit.consume(ctx, admin.adminId);
  return admin;
}
