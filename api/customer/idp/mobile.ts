import { requestOrigin } from '../../http/request-origin.js';
import type { Surface } from '../../http/route.js';
import { signInWithIdp } from '../../use-cases/traveller-sign-in.js';
import { MobileBody } from '../idp.openapi.js';
import { bearerData, type IdpRoutes } from './answers.js';
import { refuseBrowserRequest } from './caller.js';
import { ok } from '../../http/respond.js';

/** POST /auth/customer/idp/mobile: the mobile apps' sign-in, answered with a bearer session. */
export function registerIdpMobileRoute(surface: Surface, { context, caller, docs }: IdpRoutes): void {
  surface.route({
    ...docs.signInWithIdpMobile,
    method: 'post',
    path: '/auth/customer/idp/mobile',
    security: 'public',
    body: MobileBody,
    handler: async (ctx, { body }) => {
      refuseBrowserRequest(ctx);
      const claims = await caller.verified(ctx, body.idToken, ['mobile']);
      const signedIn = await signInWithIdp(context, claims, 'mobile', requestOrigin(ctx));
      ok(ctx, bearerData(signedIn));
    },
  });
}
