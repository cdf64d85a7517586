import type { AppContext } from '../app.js';
import { currentShareIssuer } from '../auth/share-issuer.js';
import { FILE_TYPE, sendPdf } from '../documents/send.js';
import { guardSharePaths, registerShareIssuerRoutes } from '../documents/share-routes.js';
import { GrantParams } from '../documents/share-routes.openapi.js';
import { clientKey } from '../http/client-address.js';
import { cookieJar } from '../http/cookies.js';
import { minuteLimiter } from '../http/rate-limit.js';
import type { Part } from '../http/guarded-route.js';
import type { RouteSpec, Surface } from '../http/route.js';
import {
  acceptShare,
  documentSharing,
  previewShare,
  recipientDocument,
  recipientSession,
  type DocumentSharing,
} from '../use-cases/document-sharing.js';
import { docs, DocumentQuery, SecretBody } from './document-shares.openapi.js';
import { ok } from '../http/respond.js';

/**
 * Document sharing (SPEC "Document sharing (customer API)"): a traveller, a company user or the
 * trip's driver shares one document of a booking to a second device through a one-use link
 * `/share/{grantId}#token=<secret>`. Rules:
 *   - the link can be accepted once, within SHARE_LINK_MINUTES (5); the recipient session then
 *     lasts at most SHARE_SESSION_MAX_MINUTES (30) and ends after SHARE_SESSION_IDLE_MINUTES (15)
 *     without a request (checked on every request; the session ends then and there);
 *   - a wrong secret answers exactly like an unknown grant (404 SHARE_NOT_FOUND);
 *   - the recipient cookie bb_share (HttpOnly, SameSite=Strict, path /api/document-shares/{grantId})
 *     opens this grant's session and document routes and nothing else;
 *   - every answer is private, no-store, noindex, nosniff; requests are limited per client IP
 *     (SHARE_RATE_LIMIT_PER_IP_PER_MINUTE, 120) and, on preview, accept, session and document,
 *     per client IP and grant (SHARE_RATE_LIMIT_PER_GRANT_PER_MINUTE, 30).
 * The operations are in api/use-cases/document-sharing.ts, the rules in domain/document-sharing.ts.
 */
export const SHARE_COOKIE = 'bb_share';

/** What the recipient routes need besides the sharing operations: their declaration and the configuration. */
interface RecipientRoutes {
  context: AppContext;
  sharing: DocumentSharing;
  grantRoute: GrantRoute;
}

/**
 * Declares a route of one grant (`params` GrantParams): each request is counted per client IP and
 * grant (SHARE_RATE_LIMIT_PER_GRANT_PER_MINUTE) before its handler runs.
 */
type GrantRoute = <Q extends Part = undefined, B extends Part = undefined>(
  spec: RouteSpec<typeof GrantParams, Q, B>,
) => void;

export function registerDocumentShareRoutes(surface: Surface, context: AppContext): void {
  const sharing = documentSharing(context);
  guardSharePaths(surface, context);
  registerShareIssuerRoutes(surface, sharing, {
    security: 'shareIssuer',
    operationSuffix: '',
    issuerOf: currentShareIssuer,
  });
  const perGrant = minuteLimiter(
    context.db,
    'document-share-grant',
    context.config.SHARE_RATE_LIMIT_PER_GRANT_PER_MINUTE,
  );
  const grantRoute: GrantRoute = (spec) =>
    surface.route({
      ...spec,
      handler: async (ctx, input, admitted) => {
        await perGrant.consume(ctx, `${clientKey(ctx)}|${input.params.grantId}`);
        await spec.handler(ctx, input, admitted);
      },
    });
  const routes: RecipientRoutes = { context, sharing, grantRoute };
  registerPreviewRoute(routes);
  registerAcceptRoute(routes);
  registerSessionRoute(routes);
  registerDocumentRoute(routes);
}

/** The holder of a link: no session yet, the secret from the link's fragment in the body. */
const LINK_HOLDER = {
  security: 'public' as const,
  csrf: false,
  params: GrantParams,
  body: SecretBody,
};

/** The recipient of an accepted link, by its bb_share cookie. */
const RECIPIENT = { security: 'shareRecipient' as const, params: GrantParams };

function registerPreviewRoute({ sharing, grantRoute }: RecipientRoutes): void {
  grantRoute({
    ...docs.previewDocumentShare,
    method: 'post',
    path: '/document-shares/{grantId}/preview',
    ...LINK_HOLDER,
    handler: async (ctx, { params, body }) => {
      ok(ctx, await previewShare(sharing, params.grantId, body.secret));
    },
  });
}

function registerAcceptRoute({ context, sharing, grantRoute }: RecipientRoutes): void {
  const { COOKIE_SECURE } = context.config;
  grantRoute({
    ...docs.acceptDocumentShare,
    method: 'post',
    path: '/document-shares/{grantId}/accept',
    ...LINK_HOLDER,
    handler: async (ctx, { params, body }) => {
      const accepted = await acceptShare(sharing, params.grantId, body.secret);
      // Scoped to the grant's path as this request wrote it (its id a UUID in upper or lower case,
      // GrantParams checked): browsers match a cookie's path case-sensitively, and a client calls
      // the grant's session and document as it called accept.
      cookieJar(ctx, COOKIE_SECURE).set(SHARE_COOKIE, accepted.sessionToken, {
        httpOnly: true,
        secure: COOKIE_SECURE,
        sameSite: 'strict',
        path: ctx.path.replace(/\/accept\/?$/, ''),
        maxAge: sharing.sessionMilliseconds,
        overwrite: true,
      });
      ok(ctx, accepted.session);
    },
  });
}

function registerSessionRoute({ sharing, grantRoute }: RecipientRoutes): void {
  grantRoute({
    ...docs.getDocumentShareSession,
    method: 'get',
    path: '/document-shares/{grantId}/session',
    ...RECIPIENT,
    handler: async (ctx, { params }) => {
      const session = await recipientSession(sharing, params.grantId, ctx.cookies.get(SHARE_COOKIE));
      ok(ctx, session);
    },
  });
}

function registerDocumentRoute({ sharing, grantRoute }: RecipientRoutes): void {
  grantRoute({
    ...docs.getSharedDocument,
    method: 'get',
    head: false,
    path: '/document-shares/{grantId}/document',
    ...RECIPIENT,
    query: DocumentQuery,
    handler: async (ctx, { params, query }) => {
      const download = query.action === 'download';
      const { document, rendered } = await recipientDocument(
        sharing,
        params.grantId,
        ctx.cookies.get(SHARE_COOKIE),
        { download, locale: query.locale, requestId: ctx.state.requestId },
      );
      sendPdf(ctx, rendered, {
        filename: `shared-${FILE_TYPE[document.kind]}-${document.locale}.pdf`,
        disposition: download ? 'attachment' : 'inline',
      });
    },
  });
}
