import { maskEmail } from '../../domain/account-email.js';
import type { AppContext, FeatureRoutes } from '../app.js';
import { checkEmailLink, requestPasswordRecovery, verifyEmailAddress } from '../auth/email.js';
import { emailKey } from '../auth/limits.js';
import { hourlyLimiter, ipLimitedRoute } from '../http/rate-limit.js';
import { setSessionCookies } from '../auth/traveller-session.js';
import type { Surface } from '../http/route.js';
import { resendVerification } from '../use-cases/email-verification.js';
import { resetPasswordAndSignIn } from '../use-cases/traveller-sign-in.js';
import {
  docsFor,
  emailAuthErrorCode,
  ForgotPasswordBody,
  LinkCheckQuery,
  ResetPasswordBody,
  VerifyEmailBody,
} from './email-auth.openapi.js';
import { ok } from '../http/respond.js';
import { registerFeature } from './feature-routes.js';

type EmailAuthRoutes = FeatureRoutes<ReturnType<typeof docsFor>>;

/**
 * Traveller password recovery and e-mail verification by link (the rules and the links live in
 * api/auth/email.ts and domain/account-email.ts).
 */
export function registerEmailAuthRoutes(surface: Surface, context: AppContext): void {
  registerFeature(surface, context, docsFor, [
    registerForgotPasswordRoute,
    registerEmailLinkRoutes,
    registerResendVerificationRoute,
    registerVerifyEmailRoute,
  ]);
}

function registerForgotPasswordRoute({ surface, context, docs }: EmailAuthRoutes): void {
  const { config, db, logger } = context;
  const recoveryPerIp = hourlyLimiter(db, 'password-recovery-ip', config.PASSWORD_RECOVERY_MAX_PER_IP);
  const recoveryPerEmail = hourlyLimiter(
    db,
    'password-recovery-email',
    config.PASSWORD_RECOVERY_MAX_PER_EMAIL,
  );
  ipLimitedRoute(surface, recoveryPerIp, {
    ...docs.requestPasswordRecovery,
    method: 'post',
    path: '/auth/forgot-password',
    body: ForgotPasswordBody,
    errorCode: emailAuthErrorCode,
    handler: async (ctx, { body }) => {
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
function registerEmailLinkRoutes({ surface, context, docs }: EmailAuthRoutes): void {
  surface.route({
    ...docs.checkEmailLink,
    method: 'get',
    path: '/auth',
    security: 'public',
    query: LinkCheckQuery,
    handler: async (ctx, { query }) => {
      const purpose = query.type === 'recovery' ? 'RESET_PASSWORD' : 'VERIFY_EMAIL';
      const link = await checkEmailLink(context, query.token, purpose);
      ok(ctx, {
        valid: true,
        type: query.type,
        email: maskEmail(link.email),
        expiresAt: Math.floor(link.expiresAt),
      });
    },
  });

  surface.route({
    ...docs.resetPassword,
    method: 'post',
    path: '/auth',
    security: 'public',
    body: ResetPasswordBody,
    errorCode: emailAuthErrorCode,
    handler: async (ctx, { body }) => {
      const { user, session } = await resetPasswordAndSignIn(context, body.token, body.password);
      setSessionCookies(ctx, context.config, session);
      ok(ctx, { user });
    },
  });
}

function registerResendVerificationRoute({ surface, context, docs }: EmailAuthRoutes): void {
  const { config, db } = context;
  const resendPerTraveller = hourlyLimiter(
    db,
    'email-verification-resend',
    config.EMAIL_VERIFICATION_RESEND_MAX_PER_HOUR,
  );
  surface.route({
    ...docs.resendEmailVerification,
    method: 'post',
    path: '/auth/customer/resend-verification',
    security: 'traveller',
    handler: async (ctx) => {
      const userId = ctx.state.traveller!.userId;
      const { email } = await resendVerification(context, userId, {
        requestId: ctx.state.requestId,
        limit: () => resendPerTraveller.consume(ctx, userId),
      });
      ok(ctx, { email, expiresInSeconds: config.EMAIL_VERIFICATION_TTL_SECONDS });
    },
  });
}

function registerVerifyEmailRoute({ surface, context, docs }: EmailAuthRoutes): void {
  surface.route({
    ...docs.verifyEmail,
    method: 'post',
    path: '/auth/customer/verify-email',
    security: 'public',
    body: VerifyEmailBody,
    handler: async (ctx, { body }) => {
      const verified = await verifyEmailAddress(context, body.token);
      ok(ctx, { email: verified.email, emailVerified: true });
    },
  });
}
