import { maskEmail } from '../../domain/account-email.js';
import type { AppContext } from '../app.js';
import { checkEmailLink, requestPasswordRecovery, verifyEmailAddress } from '../auth/email.js';
import { emailKey, hourlyLimiter } from '../auth/limits.js';
import { setSessionCookies } from '../auth/traveller-session.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { resendVerification } from '../use-cases/email-verification.js';
import { resetPasswordAndSignIn } from '../use-cases/traveller-sign-in.js';
import {
  Accepted,
  describe,
  EmailVerified,
  emailAuthErrorCode,
  ForgotPasswordBody,
  LINK_ERRORS,
  LinkCheckQuery,
  LinkStatus,
  ResetPasswordBody,
  SignedInUser,
  TAGS,
  VerificationSent,
  VerifyEmailBody,
} from './email-auth.openapi.js';

/**
 * Traveller password recovery and e-mail verification by link (the rules and the links live in
 * api/auth/email.ts and domain/account-email.ts).
 */
export function registerEmailAuthRoutes(surface: Surface, context: AppContext): void {
  registerForgotPasswordRoute(surface, context);
  registerEmailLinkRoutes(surface, context);
  registerResendVerificationRoute(surface, context);
  registerVerifyEmailRoute(surface, context);
}

function registerForgotPasswordRoute(surface: Surface, context: AppContext): void {
  const { config, db, logger } = context;
  const recoveryPerIp = hourlyLimiter(db, 'password-recovery-ip', config.PASSWORD_RECOVERY_MAX_PER_IP);
  const recoveryPerEmail = hourlyLimiter(
    db,
    'password-recovery-email',
    config.PASSWORD_RECOVERY_MAX_PER_EMAIL,
  );
  surface.route({
    method: 'post',
    path: '/auth/forgot-password',
    operationId: 'requestPasswordRecovery',
    summary: 'Ask for a password recovery link by e-mail',
    description: describe.forgotPassword(config),
    tags: TAGS,
    security: 'public',
    body: ForgotPasswordBody,
    errorCode: emailAuthErrorCode,
    responses: { 200: { description: 'Accepted', schema: Accepted }, ...errorResponses(400, 429) },
    handler: async (ctx, { body }) => {
      await recoveryPerIp.consume(ctx, ctx.ip);
      await recoveryPerEmail.consume(ctx, emailKey(body.email));
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
}

/** GET /auth checks a link; POST /auth uses a recovery link. */
function registerEmailLinkRoutes(surface: Surface, context: AppContext): void {
  surface.route({
    method: 'get',
    path: '/auth',
    operationId: 'checkEmailLink',
    summary: 'Check an e-mail link before using it (the reset page asks before showing its form)',
    description: describe.checkLink(),
    tags: TAGS,
    security: 'public',
    query: LinkCheckQuery,
    responses: { 200: { description: 'The link can be used', schema: LinkStatus }, ...LINK_ERRORS },
    handler: async (ctx, { query }) => {
      const purpose = query.type === 'recovery' ? 'RESET_PASSWORD' : 'VERIFY_EMAIL';
      const link = await checkEmailLink(context, query.token, purpose);
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
    description: describe.resetPassword(),
    tags: TAGS,
    security: 'public',
    body: ResetPasswordBody,
    errorCode: emailAuthErrorCode,
    responses: { 200: { description: 'Password changed; signed in', schema: SignedInUser }, ...LINK_ERRORS },
    handler: async (ctx, { body }) => {
      const { user, session } = await resetPasswordAndSignIn(context, body.token, body.password);
      setSessionCookies(ctx, context.config, session);
      ctx.body = { success: true, data: { user } };
    },
  });
}

function registerResendVerificationRoute(surface: Surface, context: AppContext): void {
  const { config, db } = context;
  const resendPerTraveller = hourlyLimiter(
    db,
    'email-verification-resend',
    config.EMAIL_VERIFICATION_RESEND_MAX_PER_HOUR,
  );
  surface.route({
    method: 'post',
    path: '/auth/customer/resend-verification',
    operationId: 'resendEmailVerification',
    summary: "Send a new verification link to the signed-in traveller's e-mail",
    description: describe.resendVerification(config),
    tags: TAGS,
    security: 'traveller',
    responses: {
      200: { description: 'Link sent', schema: VerificationSent },
      ...errorResponses(401, 403, 409, 429, 503),
    },
    handler: async (ctx) => {
      const userId = ctx.state.traveller!.userId;
      const { email } = await resendVerification(context, userId, {
        requestId: ctx.state.requestId,
        limit: () => resendPerTraveller.consume(ctx, userId),
      });
      ctx.body = { success: true, data: { email, expiresInSeconds: config.EMAIL_VERIFICATION_TTL_SECONDS } };
    },
  });
}

function registerVerifyEmailRoute(surface: Surface, context: AppContext): void {
  surface.route({
    method: 'post',
    path: '/auth/customer/verify-email',
    operationId: 'verifyEmail',
    summary: 'Confirm an e-mail address with the link from the verification message',
    description: describe.verifyEmail(),
    tags: TAGS,
    security: 'public',
    body: VerifyEmailBody,
    responses: { 200: { description: 'Address verified', schema: EmailVerified }, ...LINK_ERRORS },
    handler: async (ctx, { body }) => {
      const verified = await verifyEmailAddress(context, body.token);
      ctx.body = { success: true, data: { email: verified.email, emailVerified: true } };
    },
  });
}
