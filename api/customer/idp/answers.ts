import type { TravellerSummary } from '../../../db/writes/traveller-identity/index.js';
import type { AppContext } from '../../app.js';
import type { IssuedSession } from '../../auth/traveller-session.js';
import type { docsFor } from '../idp.openapi.js';
import type { IdpCaller } from './caller.js';

/** What each identity-provider route module is given: the app, the shared caller checks and the routes' docs. */
export interface IdpRoutes {
  context: AppContext;
  caller: IdpCaller;
  docs: ReturnType<typeof docsFor>;
}

/** The traveller as the identity-provider answers show it (never the profile id). */
export function publicTraveller(user: TravellerSummary) {
  return { id: user.id, name: user.name, email: user.email, phone: user.phone };
}

/** What a sign-in tells the client besides its session. */
export function signInFacts(user: TravellerSummary, isNewUser: boolean) {
  return { isNewUser, needsPhone: user.phone === null, user: publicTraveller(user) };
}

/** A bearer session's answer (mobile and PWA). */
export function bearerData(signedIn: { session: IssuedSession; user: TravellerSummary; isNewUser: boolean }) {
  return {
    accessToken: signedIn.session.token,
    refreshToken: signedIn.session.refreshToken,
    expiresAt: signedIn.session.expiresAt,
    ...signInFacts(signedIn.user, signedIn.isNewUser),
  };
}
