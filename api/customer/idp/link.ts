import { linkIdentity, unlinkIdentity } from '../../../db/writes/traveller-identity/index.js';
import { requestOrigin } from '../../http/request-origin.js';
import type { Surface } from '../../http/route.js';
import { LinkBody } from '../idp.openapi.js';
import type { IdpRoutes } from './answers.js';
import { ok } from '../../http/respond.js';

/** POST and DELETE /profile/security/identities/idp: the signed-in traveller's linked subject. */
export function registerIdpLinkRoutes(surface: Surface, { context, caller, docs }: IdpRoutes): void {
  const { db } = context;
  surface.route({
    ...docs.linkIdpIdentity,
    method: 'post',
    path: '/profile/security/identities/idp',
    security: 'traveller',
    body: LinkBody,
    handler: async (ctx, { body }) => {
      const traveller = ctx.state.traveller!;
      const claims = await caller.verified(ctx, body.idToken, ['web', 'mobile']);
      const nonce = caller.presentedNonce(ctx, claims, body.flowId, 'link', traveller.via === 'cookie');
      const identity = await linkIdentity(db, traveller.userId, claims, nonce, requestOrigin(ctx));
      if (traveller.via === 'cookie') caller.clearFlowCookie(ctx, body.flowId);
      ok(ctx, { identity });
    },
  });

  surface.route({
    ...docs.unlinkIdpIdentity,
    method: 'delete',
    path: '/profile/security/identities/idp',
    security: 'traveller',
    handler: async (ctx) => {
      await unlinkIdentity(db, ctx.state.traveller!.userId);
      ok(ctx, { unlinked: true });
    },
  });
}
