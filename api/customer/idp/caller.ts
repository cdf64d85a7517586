import type { Context } from 'koa';
import type { Config } from '../../../config/index.js';
import type { NonceChannel, PresentedNonce } from '../../../db/writes/traveller-identity/index.js';
import { nonceInvalid } from '../../../domain/traveller-identity.js';
import type { AppContext } from '../../app.js';
import {
  createIdpVerifier,
  nonceFingerprint,
  subjectFingerprint,
  type IdpAudience,
  type IdpClaims,
} from '../../auth/idp-verify.js';
import { sameSecret } from '../../auth/secrets.js';
import { clientKey } from '../../http/client-address.js';
import { cookieJar } from '../../http/cookies.js';
import { forbidden } from '../../http/errors.js';
import { createRateLimiter, type RateLimiter } from '../../http/rate-limit.js';

/**
 * Who is calling an identity-provider route: origin rules, the flow cookie and nonce, rate limits
 * and the verified ID token. Built once per surface and shared by the route modules beside it.
 */

/** A sign-in flow (nonce and its cookie) stays usable for 10 minutes. */
export const FLOW_TTL_SECONDS = 600;
const FLOW_COOKIE_PREFIX = 'bb_idp_';
const FLOW_COOKIE_PATH = '/api';

export const originRefused = (message: string) => forbidden('IDP_ORIGIN_REFUSED', message);

const originOf = (url: string): string => new URL(url).origin;

export const header = (ctx: Context, name: string): string | undefined => {
  const value = ctx.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

/**
 * The caller's Origin to compare with an allowed origin. The opaque origin "null" (sandboxed frames,
 * data: and file: pages, some redirects) is nobody's: it is never returned, so it matches no allowed
 * origin, even one whose configured URL has no real origin either.
 */
export const sentOrigin = (ctx: Context): string | undefined => {
  const origin = header(ctx, 'origin');
  return origin === 'null' ? undefined : origin;
};

/** Mobile apps send neither header; a browser always sends at least one of them. */
export function refuseBrowserRequest(ctx: Context): void {
  if (header(ctx, 'origin') !== undefined || header(ctx, 'sec-fetch-site') !== undefined) {
    throw forbidden(
      'IDP_BROWSER_REQUEST_REFUSED',
      'This sign-in is for the mobile apps; browsers use the web or PWA sign-in',
    );
  }
}

type PwaConfig = Pick<Config, 'PWA_ORIGIN' | 'DEV_PWA_ORIGIN' | 'NODE_ENV'>;

/** The PWA's origin, plus its development origin outside production. */
function pwaOrigins(config: PwaConfig): Set<string> {
  const origins = new Set([originOf(config.PWA_ORIGIN)]);
  if (config.NODE_ENV !== 'production') origins.add(originOf(config.DEV_PWA_ORIGIN));
  return origins;
}

/**
 * The PWA sign-in's caller rule, as a test that never refuses: the caller's Origin when it is one of
 * the PWA's and Sec-Fetch-Site is sent and fits it (same-origin or same-site from either origin,
 * cross-site only from PWA_ORIGIN itself: the local development origin is always same-site with a
 * local API), else undefined.
 */
export function pwaCallerOf(config: PwaConfig): (ctx: Context) => string | undefined {
  const pwa = pwaOrigins(config);
  const productionPwa = originOf(config.PWA_ORIGIN);
  return (ctx) => {
    const origin = sentOrigin(ctx);
    if (!origin || !pwa.has(origin)) return undefined;
    const fetchSite = header(ctx, 'sec-fetch-site');
    const allowed =
      fetchSite === 'same-origin' ||
      fetchSite === 'same-site' ||
      (fetchSite === 'cross-site' && origin === productionPwa);
    return allowed ? origin : undefined;
  };
}

const flowCookie = (flowId: string) => `${FLOW_COOKIE_PREFIX}${flowId}`;

export type IdpCaller = ReturnType<typeof createIdpCaller>;

export function createIdpCaller({ config, db, logger }: AppContext) {
  const verifier = createIdpVerifier(config, logger);
  const limit = (name: string, points: number) =>
    createRateLimiter(db, { name, points, durationSeconds: config.IDP_RATE_LIMIT_WINDOW_SECONDS });
  const perIp = limit('idp-sign-in-ip', config.IDP_RATE_LIMIT_PER_IP);
  const perSubject = limit('idp-sign-in-subject', config.IDP_RATE_LIMIT_PER_SUBJECT);
  const noncesPerIp = limit('idp-nonce-ip', config.IDP_RATE_LIMIT_PER_IP);
  const pwa = pwaOrigins(config);
  const pwaCaller = pwaCallerOf(config);
  const flowCookieOptions = { httpOnly: true, secure: config.COOKIE_SECURE, sameSite: 'lax' as const };

  /** The caller's Origin when it is the PWA's, else 403 IDP_ORIGIN_REFUSED with `message`. */
  const pwaOrigin = (ctx: Context, message: string): string => {
    const origin = sentOrigin(ctx);
    if (!origin || !pwa.has(origin)) throw originRefused(message);
    return origin;
  };

  return {
    /** The canonical site's origin (SITE_ORIGIN, default PUBLIC_ORIGIN). */
    site: originOf(config.SITE_ORIGIN ?? config.PUBLIC_ORIGIN),
    noncesPerIp,

    /** Counts the attempt per IP, verifies the token, then counts the sign-in per subject. */
    async verified(
      ctx: Context,
      idToken: string,
      audiences: IdpAudience[],
      limiter: RateLimiter = perSubject,
    ): Promise<IdpClaims> {
      await perIp.consume(ctx, clientKey(ctx));
      const claims = await verifier.verify(idToken, audiences);
      await limiter.consume(ctx, subjectFingerprint(claims));
      return claims;
    },

    /** The token's nonce for this flow; with a cookie check when the flow is bound to a browser cookie. */
    presentedNonce(
      ctx: Context,
      claims: IdpClaims,
      flowId: string,
      channel: NonceChannel,
      checkCookie: boolean,
    ): PresentedNonce {
      if (!claims.nonce) throw nonceInvalid();
      const fingerprint = nonceFingerprint(claims.nonce);
      if (checkCookie) {
        const cookie = ctx.cookies.get(flowCookie(flowId));
        if (!cookie || !sameSecret(cookie, fingerprint)) throw nonceInvalid();
      }
      return { flowId, fingerprint, channel };
    },

    /** Binds a web or linking flow to this browser: the cookie holds the nonce's fingerprint. */
    setFlowCookie(ctx: Context, flowId: string, nonce: string): void {
      // Secure behind a TLS proxy as the session cookies are; a refusal here would spend the nonce for nothing.
      cookieJar(ctx, config.COOKIE_SECURE).set(flowCookie(flowId), nonceFingerprint(nonce), {
        ...flowCookieOptions,
        path: FLOW_COOKIE_PATH,
        maxAge: FLOW_TTL_SECONDS * 1000,
        overwrite: true,
      });
    },

    clearFlowCookie(ctx: Context, flowId: string): void {
      cookieJar(ctx, config.COOKIE_SECURE).set(flowCookie(flowId), '', {
        path: FLOW_COOKIE_PATH,
        maxAge: 0,
        expires: new Date(0),
        ...flowCookieOptions,
        overwrite: true,
      });
    },

    pwaOrigin,

    /** The PWA route answers only its own origin (pwaCallerOf's rule); else 403 IDP_ORIGIN_REFUSED. */
    requirePwaCaller(ctx: Context): string {
      const origin = pwaCaller(ctx);
      if (!origin) throw originRefused('This sign-in is only for the installable app');
      return origin;
    },
  };
}

/** No Access-Control-Allow-Credentials: the PWA gets a bearer session and sends no cookies. */
export function allowPwaOrigin(ctx: Context, origin: string): void {
  ctx.set('Access-Control-Allow-Origin', origin);
  ctx.set('Access-Control-Expose-Headers', 'Retry-After, X-Request-Id');
}
