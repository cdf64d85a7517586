import { z } from 'zod';
import type { Config } from '../../config/index.js';
import { englishDuration, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/account-email.js';
import { SMTP_SEND_DEADLINE_FACTOR } from '../../providers/mailer.js';
import { Email } from '../http/schemas.js';
import { UserSummary } from './auth.openapi.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of e-mail verification and password recovery (api/customer/email-auth.ts):
 * request and response schemas, which also validate, and the prose of each route.
 */

const TAGS = ['Customer authentication'];

/** What a route that uses an e-mail link may answer besides success. */
const LINK_ERROR_STATUSES = [400, 410];

const LinkToken = z
  .string()
  .min(1)
  .max(512)
  .meta({ description: 'the token from the e-mail link (the part after token=)' });

const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .max(PASSWORD_MAX_LENGTH)
  .meta({
    description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters; no other composition rule`,
  });

export const ForgotPasswordBody = z.object({ email: Email() }).strict().meta({ id: 'ForgotPasswordRequest' });
export const LinkCheckQuery = z
  .object({
    token: LinkToken,
    type: z
      .enum(['recovery', 'email_verification'])
      .default('recovery')
      .meta({ description: 'which kind of link this is' }),
  })
  .strict();
export const ResetPasswordBody = z
  .object({ token: LinkToken, password: Password })
  .strict()
  .meta({ id: 'ResetPasswordRequest' });
export const VerifyEmailBody = z.object({ token: LinkToken }).strict().meta({ id: 'VerifyEmailRequest' });

const Accepted = z.object({ success: z.literal(true), message: z.string() });
const LinkStatus = successWith(
  z.object({
    valid: z.literal(true),
    type: z.enum(['recovery', 'email_verification']),
    email: z.string().meta({ description: 'the address the link was sent to, masked (s***@example.com)' }),
    expiresAt: z.int().meta({ description: 'when the link stops working, Unix epoch seconds' }),
  }),
);
const SignedInUser = successWith(z.object({ user: UserSummary }));
const VerificationSent = successWith(z.object({ email: z.string(), expiresInSeconds: z.int() }));
const EmailVerified = successWith(z.object({ email: z.string(), emailVerified: z.literal(true) }));

/** INVALID_EMAIL, PASSWORD_TOO_SHORT and PASSWORD_TOO_LONG name the broken rule; the rest is generic. */
export function emailAuthErrorCode(issues: z.core.$ZodIssue[]): string {
  for (const issue of issues) {
    if (issue.path[0] === 'email') return 'INVALID_EMAIL';
    if (issue.path[0] === 'password' && issue.code === 'too_small') return 'PASSWORD_TOO_SHORT';
    if (issue.path[0] === 'password' && issue.code === 'too_big') return 'PASSWORD_TOO_LONG';
  }
  return 'VALIDATION_FAILED';
}

const LINK_REFUSALS =
  'A link that is unknown, was sent to an address the account no longer has, or belongs to a disabled account: 400 ' +
  'EMAIL_TOKEN_INVALID. Used before: 410 EMAIL_TOKEN_USED. Past its period or replaced by a newer link: 410 EMAIL_TOKEN_EXPIRED.';

/** What these account writes answer while a maintenance window is in force (domain/maintenance.ts). */
const MAINTENANCE_REFUSAL =
  'During a maintenance window: 503 MAINTENANCE with Retry-After, as every write but sign-in, refresh and sign-out.';

/** The docs of each route, in the order they are registered (their prose quotes the configured limits). */
export const docsFor = (config: Config) =>
  taggedOperations(TAGS, {
    requestPasswordRecovery: {
      summary: 'Ask for a password recovery link by e-mail',
      description:
        'Always answers 200 with the same body, whether or not the address belongs to an account, so the answer reveals ' +
        'nothing; the message is sent after the answer. A link goes out only to the verified e-mail of an active traveller ' +
        `and works once, for ${englishDuration(config.PASSWORD_RECOVERY_TTL_SECONDS)} (PASSWORD_RECOVERY_TTL_SECONDS); a newer link replaces older unused ones. ` +
        `The link opens {PUBLIC_ORIGIN}/auth/reset-password#type=recovery&token=..., a page that calls GET /auth and POST /auth. ` +
        `Rate limits: ${config.PASSWORD_RECOVERY_MAX_PER_IP} requests per client IP and ${config.PASSWORD_RECOVERY_MAX_PER_EMAIL} ` +
        'per e-mail address per hour (429 RATE_LIMITED with Retry-After), counted alike for known and unknown addresses. ' +
        MAINTENANCE_REFUSAL,
      responses: answers(200, 'Accepted', Accepted, [400, 429]),
    },
    checkEmailLink: {
      summary: 'Check an e-mail link before using it (the reset page asks before showing its form)',
      description: `Does not use the link up. ${LINK_REFUSALS}`,
      responses: answers(200, 'The link can be used', LinkStatus, LINK_ERROR_STATUSES),
    },
    resetPassword: {
      summary: 'Set a new password with a recovery link, and sign in',
      description:
        `Uses the recovery link up and sets the new password (${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, ` +
        'stored as argon2id; 400 PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG, and a refused password does not use the link). Every ' +
        "existing session of the traveller is revoked and the traveller's other recovery links expire; the address counts as " +
        'verified. A new web session starts: HttpOnly access and refresh cookies plus the CSRF cookie; no token in the body. ' +
        'All of it is written in one transaction, so a server error leaves the link usable and the password and sessions ' +
        'unchanged: send the same link again. ' +
        `${LINK_REFUSALS} An account merged into another while the link was used: 403 ACCOUNT_DISABLED. ${MAINTENANCE_REFUSAL}`,
      responses: answers(200, 'Password changed; signed in', SignedInUser, [400, 403, 410]),
    },
    resendEmailVerification: {
      summary: "Send a new verification link to the signed-in traveller's e-mail",
      description:
        `The link works once, for ${englishDuration(config.EMAIL_VERIFICATION_TTL_SECONDS)} (EMAIL_VERIFICATION_TTL_SECONDS); once the new message is accepted ` +
        'by the mail server, older unused verification links stop working (a failed send leaves them working). The link ' +
        'opens {PUBLIC_ORIGIN}/auth/verify-email#token=..., a page that calls POST /auth/customer/verify-email. Needs a ' +
        'traveller session (web: X-CSRF-Token). 409 EMAIL_NOT_SET when the account has no e-mail, 409 EMAIL_ALREADY_VERIFIED, ' +
        `503 EMAIL_DELIVERY_FAILED when the mail server does not take the message, or has not within ` +
        `${englishDuration(Math.ceil((SMTP_SEND_DEADLINE_FACTOR * config.SMTP_TIMEOUT_MS) / 1000))} ` +
        `(${SMTP_SEND_DEADLINE_FACTOR} × SMTP_TIMEOUT_MS) however slowly it answers (Retry-After and details.retryAfterSeconds: ` +
        `try again then). At most ` +
        `${config.EMAIL_VERIFICATION_RESEND_MAX_PER_HOUR} per traveller per hour (429 RATE_LIMITED). ${MAINTENANCE_REFUSAL}`,
      responses: answers(200, 'Link sent', VerificationSent, [401, 403, 409, 429, 503]),
    },
    verifyEmail: {
      summary: 'Confirm an e-mail address with the link from the verification message',
      description: `Public: the link itself proves the mailbox. Uses the link up and marks the address verified. ${LINK_REFUSALS} ${MAINTENANCE_REFUSAL}`,
      responses: answers(200, 'Address verified', EmailVerified, LINK_ERROR_STATUSES),
    },
  });
