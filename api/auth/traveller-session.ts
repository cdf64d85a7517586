import { isDeepStrictEqual } from 'node:util';
import type { Context } from 'koa';
import type { PoolClient } from 'pg';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import {
  activeSessionOwner,
  refreshTokenSessionLive,
  sessionOfRefreshToken as sessionOfTokenHash,
  travellerAppMetadata,
} from '../../db/queries/traveller-sessions.js';
import {
  openTravellerSession,
  openTravellerSessionWithin,
  revokeTravellerSession as revokeSession,
  rotateRefreshToken as rotateTokenHash,
  type OpenedSession,
  type SessionChannel,
} from '../../db/writes/traveller-sessions.js';
import { scopeFromAppMetadata, scopeToAppMetadata } from '../../domain/inventory-scope.js';
import { cookieJar } from '../http/cookies.js';
import { Refusal } from '../http/errors.js';
import { hashSecret, newSecret } from './secrets.js';
import { ACCESS_COOKIE, type TravellerIdentity, type TravellerTokens } from './traveller-token.js';

/**
 * Traveller sessions: a server-side session row, a short-lived signed access token naming it
 * (claim sid) and a rotating refresh token. The web gets both in HttpOnly cookies plus a readable
 * CSRF cookie; mobile clients get them in the body and send `Authorization: Bearer`.
 *
 * Lifetimes (SPEC leaves them open): access token TRAVELLER_ACCESS_TTL_SECONDS (15 min), refresh
 * token and session TRAVELLER_SESSION_TTL_DAYS (30 days). Logout revokes the session, which makes
 * the access token unusable at once because every authenticated request checks its session.
 */
export const REFRESH_COOKIE = 'bb_refresh';
export const CSRF_COOKIE = 'bb_csrf';
export const CSRF_HEADER = 'X-CSRF-Token';

export type { SessionChannel };

export interface SessionDeps {
  config: Config;
  db: Database;
  tokens: TravellerTokens;
}

export interface IssuedSession {
  sessionId: string;
  token: string;
  refreshToken: string;
  /** Access token expiry, Unix epoch seconds. */
  expiresAt: number;
}

type SessionConfig = Pick<
  Config,
  'TRAVELLER_ACCESS_TTL_SECONDS' | 'TRAVELLER_SESSION_TTL_DAYS' | 'COOKIE_SECURE'
>;

function cookieOptions(config: SessionConfig) {
  return {
    httpOnly: true,
    secure: config.COOKIE_SECURE,
    sameSite: 'lax' as const,
    path: '/',
    overwrite: true,
  };
}

/** The shape of a CSRF value this server makes: newSecret(24), 24 bytes in base64url. */
const CSRF_SHAPE = /^[A-Za-z0-9_-]{32}$/;
const newCsrfValue = () => newSecret(24);

/**
 * The CSRF value to set. A sign-in ('new') always makes a new one, so a value planted in the browser
 * before it never survives into the session. A refresh ('keep') keeps the browser's value while it
 * has our shape: the value lives as long as the session, so a page or another tab that read it
 * before another tab refreshed still passes the double-submit check; a missing or malformed one is
 * replaced.
 */
function csrfValue(ctx: Context, csrf: 'new' | 'keep'): string {
  const current = csrf === 'keep' ? ctx.cookies.get(CSRF_COOKIE) : undefined;
  return current && CSRF_SHAPE.test(current) ? current : newCsrfValue();
}

/**
 * Sets the access, refresh and CSRF cookies of a web session: `csrf` is 'new' at sign-in (a new
 * session) and 'keep' at refresh (see csrfValue).
 */
export function setSessionCookies(
  ctx: Context,
  config: SessionConfig,
  session: IssuedSession,
  csrf: 'new' | 'keep' = 'new',
): void {
  const jar = cookieJar(ctx, config.COOKIE_SECURE);
  const base = cookieOptions(config);
  const sessionMaxAge = config.TRAVELLER_SESSION_TTL_DAYS * 86_400_000;
  jar.set(ACCESS_COOKIE, session.token, {
    ...base,
    maxAge: config.TRAVELLER_ACCESS_TTL_SECONDS * 1000,
  });
  jar.set(REFRESH_COOKIE, session.refreshToken, {
    ...base,
    sameSite: 'strict',
    path: '/api/auth/customer',
    maxAge: sessionMaxAge,
  });
  // Readable by the page's script, which echoes it in X-CSRF-Token (double-submit).
  jar.set(CSRF_COOKIE, csrfValue(ctx, csrf), { ...base, httpOnly: false, maxAge: sessionMaxAge });
}

export function clearSessionCookies(ctx: Context, config: SessionConfig): void {
  const jar = cookieJar(ctx, config.COOKIE_SECURE);
  const base = { ...cookieOptions(config), maxAge: 0, expires: new Date(0) };
  jar.set(ACCESS_COOKIE, '', base);
  jar.set(REFRESH_COOKIE, '', { ...base, sameSite: 'strict', path: '/api/auth/customer' });
  jar.set(CSRF_COOKIE, '', { ...base, httpOnly: false });
}

async function signFor(
  deps: SessionDeps,
  userId: string,
  sessionId: string,
): Promise<{ token: string; expiresAt: number }> {
  return signWith(deps, userId, sessionId, await travellerAppMetadata(deps.db, userId));
}

async function signWith(
  deps: SessionDeps,
  userId: string,
  sessionId: string,
  appMetadata: unknown,
): Promise<{ token: string; expiresAt: number }> {
  const scope = scopeFromAppMetadata(appMetadata ?? {});
  if (!scope) throw new Refusal(500, 'INTERNAL_ERROR', 'The account metadata is unreadable');
  return deps.tokens.sign({ userId, sessionId, scope }, deps.config.TRAVELLER_ACCESS_TTL_SECONDS);
}

/**
 * Starts a session for a user (after OTP, identity provider or password sign-in); 403
 * ACCOUNT_DISABLED when the account was disabled since the sign-in found it (merged into another).
 */
export async function issueTravellerSession(
  deps: SessionDeps,
  userId: string,
  channel: SessionChannel,
): Promise<IssuedSession> {
  const refreshToken = newSecret();
  const opened = await openTravellerSession(deps.db, newSession(deps, userId, channel, refreshToken));
  return signedSession(deps, userId, opened, refreshToken);
}

/**
 * The same inside the transaction of the sign-in that starts it (db/writes phone-sign-in.ts,
 * traveller-identity/sign-in.ts): the session row, its token and the sign-in commit together, so a
 * session that cannot be written or signed leaves nothing of the sign-in behind.
 */
export async function issueTravellerSessionWithin(
  deps: SessionDeps,
  client: PoolClient,
  userId: string,
  channel: SessionChannel,
): Promise<IssuedSession> {
  const refreshToken = newSecret();
  const opened = await openTravellerSessionWithin(client, newSession(deps, userId, channel, refreshToken));
  return signedSession(deps, userId, opened, refreshToken);
}

const newSession = (deps: SessionDeps, userId: string, channel: SessionChannel, refreshToken: string) => ({
  userId,
  channel,
  refreshTokenHash: hashSecret(refreshToken),
  ttlDays: deps.config.TRAVELLER_SESSION_TTL_DAYS,
});

async function signedSession(
  deps: SessionDeps,
  userId: string,
  opened: OpenedSession | null,
  refreshToken: string,
): Promise<IssuedSession> {
  if (opened === null) throw new Refusal(403, 'ACCOUNT_DISABLED', 'This account is disabled');
  const { token, expiresAt } = await signWith(deps, userId, opened.id, opened.appMetadata);
  return { sessionId: opened.id, token, refreshToken, expiresAt };
}

/**
 * Rotates a refresh token. A token already used is the same refresh arriving twice (two tabs, a
 * retry) only within TRAVELLER_REFRESH_REUSE_GRACE_SECONDS of its first use and while none of its
 * replacements is used, and then gets new tokens too; otherwise it leaked or was replayed: the whole
 * session is revoked and the caller gets 401 REFRESH_TOKEN_REUSED. So does one of those replacements
 * presented after another of them was used (a lost answer: the client went on with the other).
 */
export async function rotateRefreshToken(deps: SessionDeps, presented: string): Promise<IssuedSession> {
  const next = newSecret();
  const outcome = await rotateTokenHash(
    deps.db,
    hashSecret(presented),
    hashSecret(next),
    deps.config.TRAVELLER_REFRESH_REUSE_GRACE_SECONDS,
  );
  if (outcome.kind === 'reused') {
    throw new Refusal(
      401,
      'REFRESH_TOKEN_REUSED',
      'This refresh token was already used; the session has been ended',
    );
  }
  if (outcome.kind === 'invalid')
    throw new Refusal(401, 'INVALID_REFRESH_TOKEN', 'The refresh token is invalid or expired');
  const { token, expiresAt } = await signFor(deps, outcome.userId, outcome.sessionId);
  return { sessionId: outcome.sessionId, token, refreshToken: next, expiresAt };
}

/** The session a refresh token (used or not) belongs to, or null for an unknown token. */
export function sessionOfRefreshToken(db: Database, presented: string): Promise<string | null> {
  return sessionOfTokenHash(db, hashSecret(presented));
}

/**
 * Whether a refresh token (used or not) names a live session: unexpired, not revoked, its traveller
 * active. Only for telling a session whose access token lapsed from none (GET /me); never a sign-in.
 */
export function refreshTokenNamesLiveSession(db: Database, presented: string): Promise<boolean> {
  return refreshTokenSessionLive(db, hashSecret(presented));
}

export function revokeTravellerSession(db: Database, sessionId: string, reason = 'LOGOUT'): Promise<void> {
  return revokeSession(db, sessionId, reason);
}

/**
 * Whether an access token's identity stands: its session is live, the session's traveller is the
 * token's subject, and the token's inventory scope is that traveller's scope now. A valid signature
 * alone is not enough: a token naming someone else's live session, or a scope since withdrawn, is refused.
 */
export async function identityStands(db: Database, identity: TravellerIdentity): Promise<boolean> {
  if (!identity.sessionId) return false;
  const owner = await activeSessionOwner(db, identity.sessionId);
  if (!owner || owner.userId !== identity.userId) return false;
  const scope = scopeFromAppMetadata(owner.appMetadata);
  return scope !== null && isDeepStrictEqual(scopeToAppMetadata(scope), scopeToAppMetadata(identity.scope));
}
