import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { docsFor } from './idp.openapi.js';
import type { IdpRoutes } from './idp/answers.js';
import { createIdpCaller } from './idp/caller.js';
import { registerCompletePhoneRoute } from './idp/complete-phone.js';
import { registerIdpLinkRoutes } from './idp/link.js';
import { registerIdpMobileRoute } from './idp/mobile.js';
import { registerIdpNonceRoute } from './idp/nonce.js';
import { registerIdpPwaRoutes } from './idp/pwa.js';
import { registerIdpWebRoute } from './idp/web.js';

/**
 * Identity-provider sign-in (mobile, web, PWA), linking the provider's subject to a signed-in
 * traveller, and completing the phone identity. The account rules live in
 * domain/traveller-identity.ts and their transactions in db/writes/traveller-identity/; the route
 * modules in idp/ check who is calling (origin rules, nonce, rate limits, the verified token) and
 * shape the answers; their schemas and prose are in idp.openapi.ts.
 */
export function registerIdpRoutes(surface: Surface, context: AppContext): void {
  const routes: IdpRoutes = { context, caller: createIdpCaller(context), docs: docsFor(context.config) };
  registerIdpMobileRoute(surface, routes);
  registerIdpNonceRoute(surface, routes);
  registerIdpWebRoute(surface, routes);
  registerIdpPwaRoutes(surface, routes);
  registerIdpLinkRoutes(surface, routes);
  registerCompletePhoneRoute(surface, routes);
}
