import { SignJWT, decodeJwt, jwtVerify, errors as joseErrors } from 'jose';
import type { Context } from 'koa';
import type { Config } from '../../config/index.js';
import {
  scopeFromAppMetadata,
  scopeToAppMetadata,
  type InventoryScope,
} from '../../domain/inventory-scope.js';

/** Cookie that carries the traveller access token on the web (set by the sign-in flows). */
export const ACCESS_COOKIE = 'bb_access';

export interface TravellerIdentity {
  userId: string;
  sessionId: string | null;
  scope: InventoryScope;
}

export interface TravellerTokens {
  sign(identity: TravellerIdentity, ttlSeconds: number): Promise<{ token: string; expiresAt: number }>;
  verify(token: string): Promise<TravellerIdentity>;
  /**
   * The session a token names when everything `verify` checks holds except its expiry (signature,
   * algorithm, issuer, audience), or null. Only for ending that session (logout): an expired token
   * may still sign out, never sign in.
   */
  signedSession(token: string): Promise<string | null>;
}

export class InvalidCredential extends Error {}

/** How many verified tokens each process remembers (about 0.5 KB each). */
const VERIFIED_TOKENS_MAX = 10_000;

/**
 * Traveller access tokens: HS256 JWTs with issuer and audience from config. Inventory scope lives
 * in the app_metadata claim, which only the server writes.
 *
 * A client sends the same token with every request until it expires, so a token verified once is
 * remembered with its identity until its `exp` (at most VERIFIED_TOKENS_MAX, the oldest forgotten
 * first). The token's text is what was verified: a changed token is another key and is verified
 * in full. jose's verification goes through WebCrypto jobs, about 0.1 ms of CPU a call, which was
 * the largest part of a journey's API time that the transactions themselves do not have. The
 * session the token names is still checked on every request (customer-auth.ts), so a sign-out
 * takes effect at once.
 */
export function createTravellerTokens(
  config: Pick<Config, 'ACCESS_TOKEN_SECRET' | 'ACCESS_TOKEN_ISSUER' | 'ACCESS_TOKEN_AUDIENCE'>,
): TravellerTokens {
  const key = new TextEncoder().encode(config.ACCESS_TOKEN_SECRET);
  const verified = new Map<string, { identity: TravellerIdentity; expiresAt: number }>();
  const remember = (token: string, identity: TravellerIdentity, expiresAt: number) => {
    if (verified.size >= VERIFIED_TOKENS_MAX) verified.delete(verified.keys().next().value!);
    const kept = frozen(identity);
    verified.set(token, { identity: kept, expiresAt });
    return kept;
  };
  const rules = {
    algorithms: ['HS256'],
    issuer: config.ACCESS_TOKEN_ISSUER,
    audience: config.ACCESS_TOKEN_AUDIENCE,
    requiredClaims: ['sub', 'exp'],
  };
  return {
    async sign(identity, ttlSeconds) {
      const now = Math.floor(Date.now() / 1000);
      const expiresAt = now + ttlSeconds;
      const token = await new SignJWT({
        app_metadata: scopeToAppMetadata(identity.scope),
        ...(identity.sessionId ? { sid: identity.sessionId } : {}),
      })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(identity.userId)
        .setIssuer(config.ACCESS_TOKEN_ISSUER)
        .setAudience(config.ACCESS_TOKEN_AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(expiresAt)
        .sign(key);
      return { token, expiresAt };
    },
    async verify(token) {
      const known = verified.get(token);
      // jose's own rule: a token is valid while its exp is after the current second.
      if (known && known.expiresAt > Math.floor(Date.now() / 1000)) return known.identity;
      if (known) verified.delete(token);
      try {
        const { payload } = await jwtVerify(token, key, rules);
        const scope = scopeFromAppMetadata(payload.app_metadata);
        if (!scope) throw new InvalidCredential('unreadable inventory scope');
        const identity = {
          userId: payload.sub!,
          sessionId: typeof payload.sid === 'string' ? payload.sid : null,
          scope,
        };
        return remember(token, identity, payload.exp!);
      } catch (error) {
        if (error instanceof InvalidCredential || error instanceof joseErrors.JOSEError)
          throw new InvalidCredential('invalid token');
        throw error;
      }
    },
    async signedSession(token) {
      try {
        const { exp } = decodeJwt(token);
        // A date JavaScript can hold (a forged exp of 1e20 is no date at all).
        if (typeof exp !== 'number' || !(Math.abs(exp) < 8.64e12)) return null;
        // Judged as of the second before its expiry: all of it is checked but the clock.
        const { payload } = await jwtVerify(token, key, {
          ...rules,
          currentDate: new Date((exp - 1) * 1000),
        });
        return typeof payload.sid === 'string' ? payload.sid : null;
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) return null;
        throw error;
      }
    },
  };
}

/** An identity shared by the requests that send one token: none of them may change it. */
function frozen(identity: TravellerIdentity): TravellerIdentity {
  return Object.freeze({ ...identity, scope: Object.freeze({ ...identity.scope }) });
}

/** The traveller credential a request carries: Authorization bearer first, then the access cookie. */
export function presentedCredential(ctx: Context): { token: string; via: 'bearer' | 'cookie' } | null {
  const header = ctx.get('Authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    // A malformed Authorization header is an invalid credential, never "no credential".
    return { token: match?.[1] ?? '', via: 'bearer' };
  }
  const cookie = ctx.cookies.get(ACCESS_COOKIE);
  return cookie ? { token: cookie, via: 'cookie' } : null;
}
