import { setSessionCookies } from '../../auth/traveller-session.js';
import { requestOrigin } from '../../http/request-origin.js';
import type { Surface } from '../../http/route.js';
import { signInWithIdp } from '../../use-cases/traveller-sign-in.js';
import { returnToErrorCode, WebBody } from '../idp.openapi.js';
import { signInFacts, type IdpRoutes } from './answers.js';
import { header, originRefused, sentOrigin } from './caller.js';
import { ok } from '../../http/respond.js';

/** POST /auth/customer/idp/web: the web site's sign-in, answered with session cookies. */
export function registerIdpWebRoute(surface: Surface, { context, caller, docs }: IdpRoutes): void {
  const { config } = context;
  const { site } = caller;
  surface.route({
    ...docs.signInWithIdpWeb,
    method: 'post',
    path: '/auth/customer/idp/web',
    security: 'public',
    body: WebBody,
    errorCode: returnToErrorCode,
    handler: async (ctx, { body }) => {
      const fetchSite = header(ctx, 'sec-fetch-site');
      if (sentOrigin(ctx) !== site || (fetchSite !== 'same-origin' && fetchSite !== 'same-site')) {
        throw originRefused('Sign in from the site itself');
      }
      const claims = await caller.verified(ctx, body.idToken, ['web']);
      const nonce = caller.presentedNonce(ctx, claims, body.flowId, 'web', true);
      const { user, isNewUser, session } = await signInWithIdp(
        context,
        claims,
        'web',
        requestOrigin(ctx),
        nonce,
      );
      setSessionCookies(ctx, config, session);
      caller.clearFlowCookie(ctx, body.flowId);
      const next =
        user.phone === null
          ? `${site}/auth/complete-phone?returnTo=${encodeURIComponent(body.returnTo)}`
          : `${site}${body.returnTo}`;
      ok(ctx, { next, ...signInFacts(user, isNewUser) });
    },
  });
}
