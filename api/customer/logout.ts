import type { Context } from 'koa';
import type { AppContext, FeatureRoutes } from '../app.js';
import { checkCsrf } from '../auth/customer-auth.js';
import {
  clearSessionCookies,
  REFRESH_COOKIE,
  revokeTravellerSession,
  sessionOfRefreshToken,
} from '../auth/traveller-session.js';
import { presentedCredential } from '../auth/traveller-token.js';
import type { docsFor } from './auth.openapi.js';

/**
 * POST /auth/customer/logout (SPEC "Customer session": from an active session, in any condition, the
 * session ends, the cookies are cleared and its tokens cannot be reused). It never refuses for the
 * state of the session: an access token that expired, or whose session already ended elsewhere (a
 * password reset on another device), still names the session to end. Only a cookie call without
 * the CSRF proof is refused (403 CSRF_TOKEN_INVALID, nothing ended, no cookie cleared).
 */
export function registerLogoutRoute({
  surface,
  context,
  docs,
}: FeatureRoutes<ReturnType<typeof docsFor>>): void {
  const { config, db } = context;
  surface.route({
    ...docs.logout,
    method: 'post',
    path: '/auth/customer/logout',
    security: 'travellerSignOut',
    handler: async (ctx) => {
      const sessionId = await sessionToEnd(ctx, context);
      if (sessionId) await revokeTravellerSession(db, sessionId);
      clearSessionCookies(ctx, config);
      ctx.body = { success: true, message: 'Signed out' };
    },
  });
}

/**
 * The session a logout ends, in order: the one the access token names when the server signed it
 * (expired or not, the session live or not; an unsigned or forged token names nothing), else the
 * one the refresh cookie belongs to, else none. A cookie is ambient authority, so a call carrying
 * the access cookie (and no Authorization header) or relying on the refresh cookie must echo the
 * CSRF cookie first; a bearer (mobile) call needs no CSRF header.
 */
async function sessionToEnd(ctx: Context, { db, tokens }: AppContext): Promise<string | null> {
  const credential = presentedCredential(ctx);
  if (credential?.via === 'cookie') checkCsrf(ctx);
  const named = credential ? await tokens.signedSession(credential.token) : null;
  if (named) return named;
  const refreshToken = ctx.cookies.get(REFRESH_COOKIE);
  if (!refreshToken) return null;
  checkCsrf(ctx);
  return sessionOfRefreshToken(db, refreshToken);
}
