import type { Context } from 'koa';
import type { Database } from '../../db/orm.js';
import { PUBLIC_SCOPE } from '../../domain/inventory-scope.js';
import { Refusal } from '../http/errors.js';
import type { Authenticator } from '../http/route.js';
import { sameSecret } from './secrets.js';
import { CSRF_COOKIE, CSRF_HEADER, identityStands } from './traveller-session.js';
import { InvalidCredential, presentedCredential, type TravellerTokens } from './traveller-token.js';

/**
 * The customer surface's authenticator.
 *   public             credentials are not read (sign-in routes, public catalogue)
 *   optionalTraveller  a credential, when present, must be valid and its session live (else 401
 *                      INVALID_CREDENTIAL, never a fallback to public data); otherwise a guest
 *   traveller          a valid credential is required (401 AUTH_REQUIRED)
 *   travellerSignOut   credentials are not read here: the logout route resolves the session to end
 * A cookie-authenticated state-changing call must echo the CSRF cookie in X-CSRF-Token; a bearer
 * (mobile) call needs none.
 */
export function customerAuthenticator(deps: { db: Database; tokens: TravellerTokens }): Authenticator {
  return async (ctx, route) => {
    ctx.state.traveller = null;
    ctx.state.scope = PUBLIC_SCOPE;
    // Logout reads the credential itself: an expired or ended session may still sign out.
    if (route.security === 'public' || route.security === 'travellerSignOut') return;
    const required = route.security === 'traveller';
    const refuse = () =>
      required
        ? new Refusal(401, 'AUTH_REQUIRED', 'Sign in to continue')
        : new Refusal(401, 'INVALID_CREDENTIAL', 'The session or authorization header is invalid or expired');
    const credential = presentedCredential(ctx);
    if (!credential) {
      if (required) throw refuse();
      return;
    }
    let identity;
    try {
      identity = await deps.tokens.verify(credential.token);
    } catch (error) {
      if (error instanceof InvalidCredential) throw refuse();
      throw error;
    }
    if (!(await identityStands(deps.db, identity))) throw refuse();
    if (credential.via === 'cookie' && route.csrf) checkCsrf(ctx);
    ctx.state.traveller = { ...identity, via: credential.via };
    ctx.state.scope = identity.scope;
  };
}

/** Double-submit check: X-CSRF-Token must equal the CSRF cookie (403 CSRF_TOKEN_INVALID). */
export function checkCsrf(ctx: Context): void {
  const cookie = ctx.cookies.get(CSRF_COOKIE);
  const header = ctx.get(CSRF_HEADER);
  if (!cookie || !header || !sameSecret(cookie, header)) {
    throw new Refusal(
      403,
      'CSRF_TOKEN_INVALID',
      'Send the X-CSRF-Token header with the value of the CSRF cookie',
    );
  }
}
