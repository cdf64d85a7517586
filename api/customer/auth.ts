import type { Context } from 'koa';
import { findCustomerUser } from '../../db/queries/customer-user.js';
import type { AppContext, FeatureRoutes } from '../app.js';
import { otpChecksPerIp } from '../auth/limits.js';
import { type CountedPoint, hourlyLimiter, ipLimitedRoute, type RateLimiter } from '../http/rate-limit.js';
import { OtpNotSent, requirePhone, sendOtp } from '../auth/otp.js';
import { hashSecret } from '../auth/secrets.js';
import {
  clearSessionCookies,
  type IssuedSession,
  REFRESH_COOKIE,
  refreshTokenNamesLiveSession,
  rotateRefreshToken,
  setSessionCookies,
} from '../auth/traveller-session.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { signInWithOtp } from '../use-cases/traveller-sign-in.js';
import { docsFor, otpErrorCode, RefreshBody, SendOtpBody, VerifyOtpBody } from './auth.openapi.js';
import { ok } from '../http/respond.js';
import { registerFeature } from './feature-routes.js';
import { registerLogoutRoute } from './logout.js';

type AuthRoutes = FeatureRoutes<ReturnType<typeof docsFor>>;

/**
 * Customer sign-in by phone and one-time code, and the session after it (SPEC "Customer
 * authentication", "Customer session"). Web clients get HttpOnly cookies; a mobile client sends
 * `X-Client: mobile` and gets its tokens in the body instead (and then uses Authorization: Bearer).
 */
export function registerCustomerAuthRoutes(surface: Surface, context: AppContext): void {
  registerFeature(surface, context, docsFor, [
    registerSendOtpRoute,
    registerVerifyOtpRoute,
    registerRefreshRoute,
    registerMeRoute,
    registerLogoutRoute,
  ]);
}

/** Mobile apps ask for tokens in the body; everyone else (the web) gets cookies only. */
function isMobileClient(ctx: Context): boolean {
  return ctx.get('X-Client').trim().toLowerCase() === 'mobile';
}

/** A session's tokens as a mobile client receives them in the body (a web client gets cookies). */
function sessionTokens(session: IssuedSession) {
  return { token: session.token, refreshToken: session.refreshToken, expiresAt: session.expiresAt };
}

/**
 * Whether a failed send sent nothing: the provider answered so (OtpNotSent), or pre-launch mode
 * refused a real number before any code was made.
 */
const nothingSent = (error: unknown) =>
  error instanceof OtpNotSent || (error instanceof Refusal && error.code === 'PRELAUNCH_PHONE_NOT_ALLOWED');

/**
 * Rethrows a failed send, first giving the phone its point back when nothing was sent. A send whose
 * outcome is unknown (a timeout) stays counted: the SMS may have gone out, and the limit keeps a
 * phone from being flooded.
 */
function refundWhenNotSent(perPhone: RateLimiter, counted: CountedPoint, { logger }: AppContext) {
  return async (error: unknown): Promise<never> => {
    if (nothingSent(error))
      await perPhone.refund(counted).catch((failure: unknown) => {
        logger.warn({ err: failure }, 'could not give back the send-otp point of a phone');
      });
    throw error;
  };
}

function registerSendOtpRoute({ surface, context, docs }: AuthRoutes): void {
  const { config, db } = context;
  const sendPerIp = hourlyLimiter(db, 'otp-send-ip', config.OTP_SEND_PER_IP_PER_HOUR);
  // A send that sent nothing (refused by the provider or by pre-launch) gives the phone its point back (not the IP).
  const sendPerPhone = hourlyLimiter(db, 'otp-send-phone', config.OTP_SEND_PER_PHONE_PER_HOUR, {
    givesBack: true,
  });
  ipLimitedRoute(surface, sendPerIp, {
    ...docs.sendOtp,
    method: 'post',
    path: '/auth/customer/send-otp',
    body: SendOtpBody,
    errorCode: otpErrorCode,
    handler: async (ctx, { body }) => {
      const phone = requirePhone(body.phone);
      const counted = await sendPerPhone.consumeRefundable(ctx, hashSecret(phone));
      const sent = await sendOtp(context, { ...body, phone }).catch(
        refundWhenNotSent(sendPerPhone, counted, context),
      );
      const development = config.NODE_ENV === 'development';
      ctx.body = {
        success: true,
        message:
          sent.actualChannel === 'local'
            ? 'A pre-launch code was issued for this demo number'
            : `A code was sent by ${sent.actualChannel}`,
        fallbackToSms: sent.fallbackToSms,
        actualChannel: sent.actualChannel,
        ...(development ? { devMode: true } : {}),
        ...(development && sent.localCode ? { otpCode: sent.localCode } : {}),
      };
    },
  });
}

function registerVerifyOtpRoute({ surface, context, docs }: AuthRoutes): void {
  const { config, db } = context;
  ipLimitedRoute(surface, otpChecksPerIp(db, config), {
    ...docs.verifyOtp,
    method: 'post',
    path: '/auth/customer/verify-otp',
    body: VerifyOtpBody,
    errorCode: otpErrorCode,
    handler: async (ctx, { body }) => {
      const mobile = isMobileClient(ctx);
      const signIn = await signInWithOtp(context, body, mobile ? 'mobile' : 'web', ctx.state.requestId);
      const { session } = signIn;
      if (!mobile) setSessionCookies(ctx, config, session);
      ok(ctx, {
        user: signIn.user,
        isNewUser: signIn.isNewUser,
        emailVerificationPending: signIn.emailVerificationPending,
        ...(mobile ? sessionTokens(session) : {}),
      });
    },
  });
}

function registerRefreshRoute({ surface, context, docs }: AuthRoutes): void {
  const { config } = context;
  surface.route({
    ...docs.refreshSession,
    method: 'post',
    path: '/auth/customer/refresh',
    security: 'public',
    body: RefreshBody,
    handler: async (ctx, { body }) => {
      const mobile = isMobileClient(ctx);
      const presented = ctx.cookies.get(REFRESH_COOKIE) || body.refreshToken;
      try {
        if (!presented) throw new Refusal(401, 'AUTH_REQUIRED', 'No refresh token: sign in again');
        const session = await rotateRefreshToken(context, presented);
        // Same session, same CSRF value: pages holding it keep writing after another tab refreshed.
        if (!mobile) setSessionCookies(ctx, config, session, 'keep');
        ok(ctx, sessionTokens(session));
      } catch (error) {
        if (!mobile && error instanceof Refusal && error.status === 401) clearSessionCookies(ctx, config);
        throw error;
      }
    },
  });
}

/**
 * A web request to /me with no access credential but a refresh cookie (bb_refresh lives the session's
 * 30 days on /api/auth/customer, bb_access only its token's 15 minutes) is not "no session at all":
 * a live session whose access token lapsed is 401 with the cookies kept, so the page refreshes; a
 * refresh cookie naming no live session is an invalid session, 401 with the cookies cleared as the
 * refresh route clears them.
 */
async function refuseLapsedSession(ctx: Context, context: AppContext): Promise<void> {
  const presented = ctx.cookies.get(REFRESH_COOKIE);
  if (!presented) return;
  if (await refreshTokenNamesLiveSession(context.db, presented)) {
    throw new Refusal(401, 'INVALID_CREDENTIAL', 'The access token expired: refresh the session');
  }
  clearSessionCookies(ctx, context.config);
  throw new Refusal(401, 'INVALID_CREDENTIAL', 'The session is invalid or expired: sign in again');
}

function registerMeRoute({ surface, context, docs }: AuthRoutes): void {
  const { db } = context;
  surface.route({
    ...docs.getCurrentCustomer,
    method: 'get',
    path: '/auth/customer/me',
    security: 'optionalTraveller',
    handler: async (ctx) => {
      const traveller = ctx.state.traveller;
      if (!traveller) {
        await refuseLapsedSession(ctx, context);
        ok(ctx, null);
        return;
      }
      const user = await findCustomerUser(db, traveller.userId);
      if (!user)
        throw new Refusal(
          401,
          'INVALID_CREDENTIAL',
          'The session or authorization header is invalid or expired',
        );
      ok(ctx, user);
    },
  });
}
