import type { Surface } from '../../http/route.js';
import { signInWithIdp } from '../../use-cases/traveller-sign-in.js';
import { BearerSession, describe, MobileBody, SIGN_IN_ERRORS, TAGS } from '../idp.openapi.js';
import { bearerData, type IdpRoutes } from './answers.js';
import { refuseBrowserRequest } from './caller.js';

/** POST /auth/customer/idp/mobile: the mobile apps' sign-in, answered with a bearer session. */
export function registerIdpMobileRoute(surface: Surface, { context, caller }: IdpRoutes): void {
  surface.route({
    method: 'post',
    path: '/auth/customer/idp/mobile',
    operationId: 'signInWithIdpMobile',
    summary: 'Sign in from the mobile app with an identity-provider ID token',
    description: describe.mobile(context.config),
    tags: TAGS,
    security: 'public',
    body: MobileBody,
    responses: { 200: { description: 'Signed in', schema: BearerSession }, ...SIGN_IN_ERRORS },
    handler: async (ctx, { body }) => {
      refuseBrowserRequest(ctx);
      const claims = await caller.verified(ctx, body.idToken, ['mobile']);
      const signedIn = await signInWithIdp(context, claims, 'mobile');
      ctx.body = { success: true, data: bearerData(signedIn) };
    },
  });
}
