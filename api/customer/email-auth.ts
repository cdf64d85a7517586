import { z } from 'zod';
import { MailDeliveryError } from '../../providers/mailer.js';
import { findEmailAccount } from '../../db/queries/email-tokens.js';
import {
  englishDuration,
  maskEmail,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from '../../domain/account-email.js';
import type { AppContext } from '../app.js';
import {
  checkEmailLink,
  requestPasswordRecovery,
  resetPassword,
  sendVerificationEmail,
  verifyEmailAddress,
} from '../auth/email.js';
import { hashSecret } from '../auth/secrets.js';
import { issueTravellerSession, setSessionCookies } from '../auth/traveller-session.js';
import { Refusal, conflict } from '../http/errors.js';
import { createRateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';

const HOUR = 3600;

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

const ForgotPasswordBody = z
  .object({ email: z.email().max(254) })
  .strict()
  .meta({ id: 'ForgotPasswordRequest' });
const LinkCheckQuery = z
  .object({
    token: LinkToken,
    type: z
      .enum(['recovery', 'email_verification'])
      .default('recovery')
      .meta({ description: 'which kind of link this is' }),
  })
  .strict();
const ResetPasswordBody = z
  .object({ token: LinkToken, password: Password })
  .strict()
  .meta({ id: 'ResetPasswordRequest' });
const VerifyEmailBody = z.object({ token: LinkToken }).strict().meta({ id: 'VerifyEmailRequest' });

const Accepted = z.object({ success: z.literal(true), message: z.string() });
const LinkStatus = z.object({
  success: z.literal(true),
  data: z.object({
    valid: z.literal(true),
    type: z.enum(['recovery', 'email_verification']),
    email: z.string().meta({ description: 'the address the link was sent to, masked (s***@example.com)' }),
    expiresAt: z.int().meta({ description: 'when the link stops working, Unix epoch seconds' }),
  }),
});
const SignedInUser = z.object({
  success: z.literal(true),
  data: z.object({
    user: z.object({
      id: z.string(),
      phone: z.string().nullable(),
      name: z.string(),
      email: z.string().nullable(),
    }),
  }),
});
const VerificationSent = z.object({
  success: z.literal(true),
  data: z.object({ email: z.string(), expiresInSeconds: z.int() }),
});
const EmailVerified = z.object({
  success: z.literal(true),
  data: z.object({ email: z.string(), emailVerified: z.literal(true) }),
});

/** INVALID_EMAIL, PASSWORD_TOO_SHORT and PASSWORD_TOO_LONG name the broken rule; the rest is generic. */
function emailAuthErrorCode(issues: z.core.$ZodIssue[]): string {
  for (const issue of issues) {
    if (issue.path[0] === 'email') return 'INVALID_EMAIL';
    if (issue.path[0] === 'password' && issue.code === 'too_small') return 'PASSWORD_TOO_SHORT';
    if (issue.path[0] === 'password' && issue.code === 'too_big') return 'PASSWORD_TOO_LONG';
  }
  return 'VALIDATION_FAILED';
}

const LINK_ERRORS =
  'A link that is unknown, was sent to an address the account no longer has, or belongs to a disabled account: 400 ' +
  'EMAIL_TOKEN_INVALID. Used before: 410 EMAIL_TOKEN_USED. Past its period or replaced by a newer link: 410 EMAIL_TOKEN_EXPIRED.';

export function registerEmailAuthRoutes(surface: Surface, context: AppContext): void {
  const { config, db, logger } = context;
  const recoveryPerIp = createRateLimiter(db, {
    name: 'password-recovery-ip',
    points: config.PASSWORD_RECOVERY_MAX_PER_IP,
    durationSeconds: HOUR,
  });
  const recoveryPerEmail = createRateLimiter(db, {
    name: 'password-recovery-email',
    points: config.PASSWORD_RECOVERY_MAX_PER_EMAIL,
    durationSeconds: HOUR,
  });
  const resendPerTraveller = createRateLimiter(db, {
    name: 'email-verification-resend',
    points: config.EMAIL_VERIFICATION_RESEND_MAX_PER_HOUR,
    durationSeconds: HOUR,
  });
  const recoveryValidity = englishDuration(config.PASSWORD_RECOVERY_TTL_SECONDS);
  const verificationValidity = englishDuration(config.EMAIL_VERIFICATION_TTL_SECONDS);

  surface.route({
    method: 'post',
    path: '/auth/forgot-password',
    operationId: 'requestPasswordRecovery',
    summary: 'Ask for a password recovery link by e-mail',
    description:
      'Always answers 200 with the same body, whether or not the address belongs to an account, so the answer reveals ' +
      'nothing; the message is sent after the answer. A link goes out only to the verified e-mail of an active traveller ' +
      `and works once, for ${recoveryValidity} (PASSWORD_RECOVERY_TTL_SECONDS); a newer link replaces older unused ones. ` +
      `The link opens {PUBLIC_ORIGIN}/auth/reset-password#type=recovery&token=..., a page that calls GET /auth and POST /auth. ` +
      `Rate limits: ${config.PASSWORD_RECOVERY_MAX_PER_IP} requests per client IP and ${config.PASSWORD_RECOVERY_MAX_PER_EMAIL} ` +
      'per e-mail address per hour (429 RATE_LIMITED with Retry-After), counted alike for known and unknown addresses.',
    tags: ['Customer authentication'],
    security: 'public',
    body: ForgotPasswordBody,
    errorCode: emailAuthErrorCode,
    responses: { 200: { description: 'Accepted', schema: Accepted }, ...errorResponses(400, 429) },
    handler: async (ctx, { body }) => {
      await recoveryPerIp.consume(ctx, ctx.ip);
      await recoveryPerEmail.consume(ctx, hashSecret(body.email.toLowerCase()));
      const requestId = ctx.state.requestId;
      // Not awaited: the answer takes the same time whether or not a message is sent.
      requestPasswordRecovery(context, body.email).catch((error: unknown) =>
        logger.error({ requestId, err: error }, 'password recovery e-mail not sent'),
      );
      ctx.body = {
        success: true,
        message:
          'If this address belongs to an account with a verified e-mail, a recovery link is on its way.',
      };
    },
  });

  surface.route({
    method: 'get',
    path: '/auth',
    operationId: 'checkEmailLink',
    summary: 'Check an e-mail link before using it (the reset page asks before showing its form)',
    description: `Does not use the link up. ${LINK_ERRORS}`,
    tags: ['Customer authentication'],
    security: 'public',
    query: LinkCheckQuery,
    responses: {
      200: { description: 'The link can be used', schema: LinkStatus },
      ...errorResponses(400, 410),
    },
    handler: async (ctx, { query }) => {
      const link = await checkEmailLink(
        context,
        query.token,
        query.type === 'recovery' ? 'RESET_PASSWORD' : 'VERIFY_EMAIL',
      );
      ctx.body = {
        success: true,
        data: {
          valid: true,
          type: query.type,
          email: maskEmail(link.email),
          expiresAt: Math.floor(link.expiresAt),
        },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/auth',
    operationId: 'resetPassword',
    summary: 'Set a new password with a recovery link, and sign in',
    description:
      `Uses the recovery link up and sets the new password (${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, ` +
      'stored as argon2id; 400 PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG, and a refused password does not use the link). Every ' +
      "existing session of the traveller is revoked and the traveller's other recovery links expire; the address counts as " +
      'verified. A new web session starts: HttpOnly access and refresh cookies plus the CSRF cookie; no token in the body. ' +
      LINK_ERRORS,
    tags: ['Customer authentication'],
    security: 'public',
    body: ResetPasswordBody,
    errorCode: emailAuthErrorCode,
    responses: {
      200: { description: 'Password changed; signed in', schema: SignedInUser },
      ...errorResponses(400, 410),
    },
    handler: async (ctx, { body }) => {
      const userId = await resetPassword(context, body.token, body.password);
      const session = await issueTravellerSession(context, userId, 'web');
      setSessionCookies(ctx, config, session);
      const [user] = await db.query<{ id: string; phone: string | null; name: string; email: string | null }>(
        'select id, phone, name, email from users where id = $1',
        [userId],
      );
      ctx.body = { success: true, data: { user } };
    },
  });

  surface.route({
    method: 'post',
    path: '/auth/customer/resend-verification',
    operationId: 'resendEmailVerification',
    summary: "Send a new verification link to the signed-in traveller's e-mail",
    description:
      `The link works once, for ${verificationValidity} (EMAIL_VERIFICATION_TTL_SECONDS); once the new message is accepted ` +
      'by the mail server, older unused verification links stop working (a failed send leaves them working). The link ' +
      'opens {PUBLIC_ORIGIN}/auth/verify-email#token=..., a page that calls POST /auth/customer/verify-email. Needs a ' +
      'traveller session (web: X-CSRF-Token). 409 EMAIL_NOT_SET when the account has no e-mail, 409 EMAIL_ALREADY_VERIFIED, ' +
      `503 EMAIL_DELIVERY_FAILED when the mail server does not take the message. At most ` +
      `${config.EMAIL_VERIFICATION_RESEND_MAX_PER_HOUR} per traveller per hour (429 RATE_LIMITED).`,
    tags: ['Customer authentication'],
    security: 'traveller',
    responses: {
      200: { description: 'Link sent', schema: VerificationSent },
      ...errorResponses(401, 403, 409, 429, 503),
    },
    handler: async (ctx) => {
      const account = await findEmailAccount(db, ctx.state.traveller!.userId);
      if (!account?.email) throw conflict('EMAIL_NOT_SET', 'The account has no e-mail address');
      if (account.emailVerified)
        throw conflict('EMAIL_ALREADY_VERIFIED', 'The e-mail address is already verified');
      await resendPerTraveller.consume(ctx, account.id);
      try {
        await sendVerificationEmail(context, account.id, account.email);
      } catch (error) {
        if (!(error instanceof MailDeliveryError)) throw error;
        logger.error({ requestId: ctx.state.requestId, err: error.cause }, 'verification e-mail not sent');
        throw new Refusal(503, 'EMAIL_DELIVERY_FAILED', 'The e-mail could not be sent; try again later');
      }
      ctx.body = {
        success: true,
        data: { email: account.email, expiresInSeconds: config.EMAIL_VERIFICATION_TTL_SECONDS },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/auth/customer/verify-email',
    operationId: 'verifyEmail',
    summary: 'Confirm an e-mail address with the link from the verification message',
    description: `Public: the link itself proves the mailbox. Uses the link up and marks the address verified. ${LINK_ERRORS}`,
    tags: ['Customer authentication'],
    security: 'public',
    body: VerifyEmailBody,
    responses: {
      200: { description: 'Address verified', schema: EmailVerified },
      ...errorResponses(400, 410),
    },
    handler: async (ctx, { body }) => {
      const verified = await verifyEmailAddress(context, body.token);
      ctx.body = { success: true, data: { email: verified.email, emailVerified: true } };
    },
  });
}
