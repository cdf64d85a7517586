import { setSessionCookies } from '../../auth/traveller-session.js';
import type { Surface } from '../../http/route.js';
import { signInWithIdp } from '../../use-cases/traveller-sign-in.js';
import { describe, returnToErrorCode, SIGN_IN_ERRORS, TAGS, WebBody, WebSession } from '../idp.openapi.js';
import { signInFacts, type IdpRoutes } from './answers.js';
import { header, originRefused } from './caller.js';

/** POST /auth/customer/idp/web: the web site's sign-in, answered with session cookies. */
export function registerIdpWebRoute(surface: Surface, { context, caller }: IdpRoutes): void {
  const { config } = context;
  const { site } = caller;
  surface.route({
    method: 'post',
    path: '/auth/customer/idp/web',
    operationId: 'signInWithIdpWeb',
    summary: 'Sign in on the web site with an identity-provider ID token',
    description: describe.web(config),
    tags: TAGS,
    security: 'public',
    body: WebBody,
    errorCode: returnToErrorCode,
    responses: {
      200: { description: 'Signed in; session cookies set', schema: WebSession },
      ...SIGN_IN_ERRORS,
    },
    handler: async (ctx, { body }) => {
      const fetchSite = header(ctx, 'sec-fetch-site');
      if (header(ctx, 'origin') !== site || (fetchSite !== 'same-origin' && fetchSite !== 'same-site')) {
        throw originRefused('Sign in from the site itself');
      }
      const claims = await caller.verified(ctx, body.idToken, ['web']);
      const nonce = caller.presentedNonce(ctx, claims, body.flowId, 'web', true);
      const { user, isNewUser, session } = await signInWithIdp(context, claims, 'web', nonce);
      setSessionCookies(ctx, config, session);
      caller.clearFlowCookie(ctx, body.flowId);
      const next =
        user.phone === null
          ? `${site}/auth/complete-phone?returnTo=${encodeURIComponent(body.returnTo)}`
          : `${site}${body.returnTo}`;
      ctx.body = { success: true, data: { next, ...signInFacts(user, isNewUser) } };
    },
  });
}
