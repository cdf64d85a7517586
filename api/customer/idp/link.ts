import { linkIdentity, unlinkIdentity } from '../../../db/writes/traveller-identity/index.js';
import type { Surface } from '../../http/route.js';
import { errorResponses } from '../../http/schemas.js';
import { describe, LinkBody, LinkResponse, SIGN_IN_ERRORS, TAGS, UnlinkResponse } from '../idp.openapi.js';
import type { IdpRoutes } from './answers.js';

/** POST and DELETE /profile/security/identities/idp: the signed-in traveller's linked subject. */
export function registerIdpLinkRoutes(surface: Surface, { context, caller }: IdpRoutes): void {
  const { config, db } = context;
  surface.route({
    method: 'post',
    path: '/profile/security/identities/idp',
    operationId: 'linkIdpIdentity',
    summary: 'Link an identity-provider account to the signed-in traveller',
    description: describe.link(config),
    tags: TAGS,
    security: 'traveller',
    body: LinkBody,
    responses: { 200: { description: 'Linked', schema: LinkResponse }, ...SIGN_IN_ERRORS },
    handler: async (ctx, { body }) => {
      const traveller = ctx.state.traveller!;
      const claims = await caller.verified(ctx, body.idToken, ['web', 'mobile']);
      const nonce = caller.presentedNonce(ctx, claims, body.flowId, 'link', traveller.via === 'cookie');
      const identity = await linkIdentity(db, traveller.userId, claims, nonce);
      if (traveller.via === 'cookie') caller.clearFlowCookie(ctx, body.flowId);
      ctx.body = { success: true, data: { identity } };
    },
  });

  surface.route({
    method: 'delete',
    path: '/profile/security/identities/idp',
    operationId: 'unlinkIdpIdentity',
    summary: 'Unlink the identity-provider account from the signed-in traveller',
    description: describe.unlink(),
    tags: TAGS,
    security: 'traveller',
    responses: {
      200: { description: 'Unlinked', schema: UnlinkResponse },
      ...errorResponses(401, 403, 404, 409),
    },
    handler: async (ctx) => {
      await unlinkIdentity(db, ctx.state.traveller!.userId);
      ctx.body = { success: true, data: { unlinked: true } };
    },
  });
}
