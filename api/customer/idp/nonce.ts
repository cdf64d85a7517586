import { issueIdpNonce } from '../../../db/writes/traveller-identity/index.js';
import { nonceFingerprint } from '../../auth/idp-verify.js';
import { newSecret } from '../../auth/secrets.js';
import { clientKey } from '../../http/client-address.js';
import type { Surface } from '../../http/route.js';
import { NonceQuery } from '../idp.openapi.js';
import type { IdpRoutes } from './answers.js';
import { allowPwaOrigin, FLOW_TTL_SECONDS } from './caller.js';

/** GET /auth/customer/idp/nonce: starts a web, PWA or linking flow. */
export function registerIdpNonceRoute(surface: Surface, { context, caller, docs }: IdpRoutes): void {
  const { config, db } = context;
  surface.route({
    ...docs.startIdpFlow,
    method: 'get',
    // The nonce is in the body: a HEAD would start a flow, set its cookie and spend a point of the
    // per-IP limit for a nonce it never gets.
    head: false,
    path: '/auth/customer/idp/nonce',
    security: 'public',
    query: NonceQuery,
    handler: async (ctx, { query }) => {
      if (query.channel === 'pwa') {
        allowPwaOrigin(ctx, caller.pwaOrigin(ctx, 'PWA flows start from the installable app'));
      }
      await caller.noncesPerIp.consume(ctx, clientKey(ctx));
      const nonce = newSecret(32);
      const flow = await issueIdpNonce(db, {
        channel: query.channel,
        nonce,
        fingerprintOf: nonceFingerprint,
        ttlSeconds: FLOW_TTL_SECONDS,
      });
      if (query.channel !== 'pwa') caller.setFlowCookie(ctx, flow.flowId, nonce);
      ctx.body = {
        success: true,
        data: { clientId: config.IDP_WEB_CLIENT_ID, flowId: flow.flowId, nonce, expiresAt: flow.expiresAt },
      };
    },
  });
}
