import type { Surface } from '../../http/route.js';
import { signInWithIdp } from '../../use-cases/traveller-sign-in.js';
import { PWA_PREFLIGHT_MAX_AGE_SECONDS, PwaBody } from '../idp.openapi.js';
import { bearerData, type IdpRoutes } from './answers.js';
import { allowPwaOrigin, header, originRefused } from './caller.js';
import { ok } from '../../http/respond.js';

const CROSS_ORIGIN_REFUSED = 'Cross-origin requests are accepted only from the installable app';

/** OPTIONS and POST /auth/customer/idp/pwa: the installable app's sign-in, cross-origin. */
export function registerIdpPwaRoutes(surface: Surface, { context, caller, docs }: IdpRoutes): void {
  surface.route({
    ...docs.preflightIdpPwa,
    method: 'options',
    path: '/auth/customer/idp/pwa',
    security: 'public',
    handler: async (ctx) => {
      const origin = caller.pwaOrigin(ctx, CROSS_ORIGIN_REFUSED);
      const requested = (header(ctx, 'access-control-request-headers') ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter(Boolean);
      if (
        header(ctx, 'access-control-request-method') !== 'POST' ||
        requested.some((name) => name !== 'content-type')
      ) {
        throw originRefused(CROSS_ORIGIN_REFUSED);
      }
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Methods', 'POST');
      ctx.set('Access-Control-Allow-Headers', 'Content-Type');
      ctx.set('Access-Control-Max-Age', String(PWA_PREFLIGHT_MAX_AGE_SECONDS));
      ctx.status = 204;
    },
  });

  surface.route({
    ...docs.signInWithIdpPwa,
    method: 'post',
    path: '/auth/customer/idp/pwa',
    security: 'public',
    body: PwaBody,
    handler: async (ctx, { body }) => {
      allowPwaOrigin(ctx, caller.requirePwaCaller(ctx));
      const claims = await caller.verified(ctx, body.idToken, ['web']);
      const nonce = caller.presentedNonce(ctx, claims, body.flowId, 'pwa', false);
      const signedIn = await signInWithIdp(context, claims, 'pwa', nonce);
      ok(ctx, bearerData(signedIn));
    },
  });
}
