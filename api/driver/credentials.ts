import {
  listRevocations,
  listSigningKeys,
  type PublishedKeyRow,
} from '../../db/queries/boarding-credentials.js';
import { publicJwk, publicKeyFromPem, revocationPage } from '../../domain/boarding-credential.js';
import type { AppContext } from '../app.js';
import { publicCache } from '../http/middleware.js';
import { ipLimitedRoute, minuteLimiter } from '../http/rate-limit.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { verifyAtBoarding } from '../use-cases/boarding-credentials.js';
import { currentDriver } from './guards.js';
import {
  docs,
  KEYS_CACHE_SECONDS,
  REVOCATIONS_CACHE_SECONDS,
  RevocationsQuery,
  VerifyBody,
} from './credentials.openapi.js';
import { iso, isoOrNull } from '../../db/row-fields.js';

function publishedKey(row: PublishedKeyRow) {
  const publicKey = publicKeyFromPem(row.public_key);
  return {
    keyId: row.key_id,
    algorithm: 'Ed25519' as const,
    status: row.status,
    publicKeyJwk: publicJwk(publicKey, row.key_id),
    publicKeyPem: row.public_key,
    createdAt: iso(row.created_at),
    retiredAt: isoOrNull(row.retired_at),
  };
}

/** The driver app's boarding credentials: the published keys, the revocation list, and the check at the door. */

export function registerCredentialRoutes(surface: Surface, { db, config }: AppContext): void {
  surface.route({
    ...docs.listBoardingCredentialKeys,
    method: 'get',
    path: '/keys',
    security: 'public',
    handler: async (ctx) => {
      const keys = (await listSigningKeys(db)).map(publishedKey);
      publicCache(ctx, KEYS_CACHE_SECONDS);
      ok(ctx, { keys });
    },
  });

  // Up to 5,000 rows a request: counted per client IP, generously, as a depot's scanners may all
  // poll from behind one NAT address.
  const revocationsPerIp = minuteLimiter(
    db,
    'driver-revocations-ip',
    config.DRIVER_REVOCATIONS_RATE_LIMIT_PER_MINUTE,
  );
  ipLimitedRoute(surface, revocationsPerIp, {
    ...docs.listRevokedCredentials,
    method: 'get',
    path: '/revocations',
    // A session's own company's tickets only: the list tells when and how much a company cancels.
    security: 'driver',
    query: RevocationsQuery,
    handler: async (ctx, { query }) => {
      const { companyId } = currentDriver(ctx);
      const from = query.cursor ?? (query.since ? { at: query.since, afterTicketId: null } : null);
      // asOf on the database's clock, as the revoked_at stamps it is compared with.
      const { asOf, revocations: rows } = await listRevocations(db, companyId, from, query.limit + 1);
      const { page, hasMore, nextSince, nextCursor } = revocationPage(rows, query.limit, asOf, from);
      // Per company: a shared cache must never hand one company's list to another's scanner, nor a
      // device's own cache the list of the account signed in before (Vary: Authorization).
      ctx.set('Cache-Control', `private, max-age=${REVOCATIONS_CACHE_SECONDS}`);
      ctx.vary('Authorization');
      const revocations = page.map(({ ticketId, keyId, revokedAt }) => ({
        ticketId,
        keyId,
        revokedAt: revokedAt.toISOString(),
      }));
      ok(ctx, {
        revocations,
        asOf: asOf.toISOString(),
        hasMore,
        nextSince: nextSince.toISOString(),
        nextCursor,
      });
    },
  });

  surface.route({
    ...docs.verifyBoardingCredential,
    method: 'post',
    path: '/verify',
    security: 'driver',
    csrf: false,
    body: VerifyBody,
    handler: async (ctx, { body }) => {
      ok(ctx, await verifyAtBoarding(db, currentDriver(ctx), body));
    },
  });
}
