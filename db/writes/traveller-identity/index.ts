/**
 * Traveller identities: signing in with the identity provider, linking and unlinking its subject,
 * and completing the phone identity (with the safe merge onto one canonical passenger_id). Each
 * operation is one transaction; the rules they apply live in domain/traveller-identity.ts, and
 * any conflict refuses the whole operation with an IdentityRefusal.
 */
export type { TravellerSummary, VerifiedIdentity } from './accounts.js';
export { completePhone, type PhoneCompletion } from './complete-phone.js';
export { linkIdentity, unlinkIdentity, type LinkedIdentity } from './link.js';
export { issueIdpNonce, type NonceChannel, type PresentedNonce } from './nonces.js';
export { signInWithIdentity, type IdpSignIn } from './sign-in.js';
