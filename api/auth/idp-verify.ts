import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import { readEmail } from '../../domain/email-address.js';
import { printableName } from '../../domain/printed-text.js';
import { Refusal, unavailableFor } from '../http/errors.js';
import { hashSecret } from './secrets.js';

/**
 * Verification of the identity provider's ID tokens. Everything the server learns about the
 * person (subject, e-mail, name) comes from a token whose signature checks out against the
 * provider's published keys (JWKS) and whose issuer, audience and lifetime are right; a client
 * never names itself.
 *
 * Rules: RS256 or ES256 signatures only; `iss` one of IDP_ISSUER; `aud` the client the route
 * expects (web/PWA: IDP_WEB_CLIENT_ID, mobile: IDP_MOBILE_CLIENT_ID); `sub`, `email`, `iat` and
 * `exp` required; `email_verified` must be the boolean true; tokens older than one hour are
 * refused; 30 seconds of clock skew are tolerated. `email` is read by the rule every request's
 * address is read by (domain/email-address.ts readEmail): an address that rule cannot read is no
 * e-mail, refused as a token without one is (401), so no account holds an address that password
 * recovery would refuse.
 */
export type IdpAudience = 'web' | 'mobile';

export interface IdpClaims {
  /** The provider's issuer that signed the token. */
  issuer: string;
  subject: string;
  /**
   * The verified e-mail address in its ASCII form (domain/email-address.ts: an Arabic domain label as
   * its xn-- label, the domain in lower case), as a request's address is stored and compared.
   */
  email: string;
  /**
   * Display name, held to a typed account name's rule (domain/printed-text.ts printableName): no
   * control or bidirectional-override character, one space between words, at most 100 characters
   * cut between whole characters. '' when the token carries none or nothing printable is left: a
   * provider's odd name is cleaned, never a reason to refuse the sign-in.
   */
  name: string;
  /** The raw nonce the token carries (web, PWA and linking flows), if any. */
  nonce: string | null;
}

export interface IdpVerifier {
  verify(idToken: string, audiences: readonly IdpAudience[]): Promise<IdpClaims>;
}

type IdpConfig = Pick<Config, 'IDP_ISSUER' | 'IDP_JWKS_URL' | 'IDP_WEB_CLIENT_ID' | 'IDP_MOBILE_CLIENT_ID'>;

const JWKS_TIMEOUT_MS = 5_000;
/**
 * At most one fetch of the key set for unknown key ids per this many milliseconds, so tokens under
 * made-up key ids cannot make the server fetch on every request.
 */
export const JWKS_REFETCH_COOLDOWN_MS = 5_000;
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_TOKEN_AGE = '1h';

export function idpIssuers(config: Pick<Config, 'IDP_ISSUER'>): string[] {
  return config.IDP_ISSUER.split(',')
    .map((issuer) => issuer.trim())
    .filter(Boolean);
}

/**
 * One verifier per process: the key set is fetched once and cached (jose refetches it after 10
 * minutes). A token under a key id the cached set does not hold fetches the set again (a provider
 * that rotates publishes its new key before signing with it) and is verified against the fresh set:
 * still unknown, 401; the provider unreachable, 503. Such fetches are at most one per
 * JWKS_REFETCH_COOLDOWN_MS: within it, a token under an unknown key id waits for that fetch (when it
 * is still under way) and is verified against its result, or is refused as that fetch's outcome
 * says (401, or 503 while the provider was unreachable).
 */
export function createIdpVerifier(config: IdpConfig, logger: Pick<Logger, 'warn'>): IdpVerifier {
  // jose's own refetch for an unknown key id is switched off (an endless cooldown): refetchKeys decides.
  const keys = createRemoteJWKSet(new URL(config.IDP_JWKS_URL), {
    timeoutDuration: JWKS_TIMEOUT_MS,
    cooldownDuration: Number.POSITIVE_INFINITY,
  });
  let refetch: { startedAt: number; done: Promise<void> } | undefined;
  /** The latest fetch for an unknown key id, a new one when none is under way or recent. */
  const refetchKeys = (): Promise<void> => {
    if (!refetch || Date.now() >= refetch.startedAt + JWKS_REFETCH_COOLDOWN_MS) {
      refetch = { startedAt: Date.now(), done: keys.reload() };
    }
    return refetch.done;
  };
  const clientIds: Record<IdpAudience, string> = {
    web: config.IDP_WEB_CLIENT_ID,
    mobile: config.IDP_MOBILE_CLIENT_ID,
  };
  const issuers = idpIssuers(config);
  return {
    async verify(idToken, audiences) {
      const verifyOnce = () =>
        jwtVerify(idToken, keys, {
          algorithms: ['RS256', 'ES256'],
          issuer: issuers,
          audience: audiences.map((audience) => clientIds[audience]),
          requiredClaims: ['sub', 'email', 'iat', 'exp'],
          maxTokenAge: MAX_TOKEN_AGE,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        });
      let payload: JWTPayload;
      try {
        try {
          ({ payload } = await verifyOnce());
        } catch (error) {
          if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
          await refetchKeys();
          ({ payload } = await verifyOnce());
        }
      } catch (error) {
        const failure = verificationFailure(error);
        // The traveller sees only IDP_UNAVAILABLE; the operator needs the reason.
        if (failure.status === 503) logger.warn({ err: error }, 'identity provider key set unavailable');
        throw failure;
      }
      return claimsOf(payload);
    },
  };
}

function claimsOf(payload: JWTPayload): IdpClaims {
  const { sub, iss, email, email_verified: emailVerified, name, nonce } = payload;
  const address = typeof email === 'string' ? readEmail(email.trim()) : null;
  if (address === null || typeof sub !== 'string' || !sub) {
    throw new Refusal(401, 'IDP_TOKEN_INVALID', 'The identity token is not valid');
  }
  if (emailVerified !== true) {
    throw new Refusal(
      403,
      'IDP_EMAIL_NOT_VERIFIED',
      'The identity provider has not verified this e-mail address',
    );
  }
  return {
    issuer: iss!,
    subject: sub,
    email: address,
    name: typeof name === 'string' ? printableName(name) : '',
    nonce: typeof nonce === 'string' ? nonce : null,
  };
}

/**
 * A token that fails a check is 401; a key set that cannot be fetched or read is the provider's
 * outage (503), never blamed on the traveller and never quoted back.
 */
function verificationFailure(error: unknown): Refusal {
  const unavailable = unavailableFor(
    'IDP_UNAVAILABLE',
    'The identity provider cannot be reached; try again shortly',
  );
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) return unavailable;
  if (!(error instanceof joseErrors.JOSEError)) return unavailable;
  // jose reports a JWKS answer other than 200 OK as a bare JOSEError (no more specific class).
  if (error.code === joseErrors.JOSEError.code) return unavailable;
  return new Refusal(401, 'IDP_TOKEN_INVALID', 'The identity token is not valid');
}

/** What is stored and compared for a nonce: its SHA-256 (hex); the raw nonce is never stored. */
export function nonceFingerprint(nonce: string): string {
  return hashSecret(nonce);
}

/** Rate-limit key of an identity subject: a hash, so the limiter table holds no provider ids. */
export function subjectFingerprint(claims: Pick<IdpClaims, 'issuer' | 'subject'>): string {
  return hashSecret(`${claims.issuer}\n${claims.subject}`);
}
