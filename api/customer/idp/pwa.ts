import type { Context, Next } from 'koa';
import type { Config } from '../../../config/index.js';
import { requestOrigin } from '../../http/request-origin.js';
import type { Surface } from '../../http/route.js';
import { signInWithIdp } from '../../use-cases/traveller-sign-in.js';
import { PWA_PREFLIGHT_MAX_AGE_SECONDS, PwaBody } from '../idp.openapi.js';
import { bearerData, type IdpRoutes } from './answers.js';
import { allowPwaOrigin, header, originRefused, pwaCallerOf } from './caller.js';
import { ok } from '../../http/respond.js';

const CROSS_ORIGIN_REFUSED = 'Cross-origin requests are accepted only from the installable app';
const PWA_SIGN_IN_PATH = '/auth/customer/idp/pwa';

/**
 * App-level, before the body is read and the route runs: a POST of the PWA sign-in from the PWA
 * (the caller rule of pwaCallerOf) carries its CORS answer (allowPwaOrigin) whatever the outcome, so
 * the app can read every refusal: a body that is malformed, too large or not valid (400, 413, 415)
 * as the token's 401 and the limits' 429. Any other caller gets none (the route refuses it, 403).
 */
export function pwaSignInAnswerHeaders(
  config: Pick<Config, 'PWA_ORIGIN' | 'DEV_PWA_ORIGIN' | 'NODE_ENV'>,
  base: string,
) {
  const path = `${base}${PWA_SIGN_IN_PATH}`;
  const pwaCaller = pwaCallerOf(config);
  return async (ctx: Context, next: Next): Promise<void> => {
    // Matched as the router matches: case-sensitive, with or without a trailing slash.
    if (ctx.method === 'POST' && (ctx.path === path || ctx.path === `${path}/`)) {
      const origin = pwaCaller(ctx);
      if (origin) allowPwaOrigin(ctx, origin);
    }
    await next();
  };
}

/** OPTIONS and POST /auth/customer/idp/pwa: the installable app's sign-in, cross-origin. */
export function registerIdpPwaRoutes(surface: Surface, { context, caller, docs }: IdpRoutes): void {
  surface.route({
    ...docs.preflightIdpPwa,
    method: 'options',
    path: PWA_SIGN_IN_PATH,
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
    path: PWA_SIGN_IN_PATH,
    security: 'public',
    body: PwaBody,
    handler: async (ctx, { body }) => {
      // Its CORS answer was set before the body was read (pwaSignInAnswerHeaders).
      caller.requirePwaCaller(ctx);
      const claims = await caller.verified(ctx, body.idToken, ['web']);
      const nonce = caller.presentedNonce(ctx, claims, body.flowId, 'pwa', false);
      const signedIn = await signInWithIdp(context, claims, 'pwa', requestOrigin(ctx), nonce);
      ok(ctx, bearerData(signedIn));
    },
  });
}
