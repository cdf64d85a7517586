import {
  listRevocations,
  listSigningKeys,
  type PublishedKeyRow,
} from '../../db/queries/boarding-credentials.js';
import { publicJwk, publicKeyFromPem, revocationPage } from '../../domain/boarding-credential.js';
import type { AppContext } from '../app.js';
import { publicCache } from '../http/middleware.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { verifyAtBoarding } from '../use-cases/boarding-credentials.js';
import { currentDriver } from './guards.js';
import {
  KEYS_CACHE_SECONDS,
  KEYS_RULES,
  KeysResponse,
  REVOCATIONS_CACHE_SECONDS,
  REVOCATIONS_RULES,
  RevocationsQuery,
  RevocationsResponse,
  VERIFY_RULES,
  VerifyBody,
  VerifyResponse,
} from './credentials.openapi.js';

/** The driver app's boarding credentials: the published keys, the revocation list, and the check at the door. */

const TAGS = ['Driver app: boarding credentials'];

const iso = (instant: string) => new Date(instant).toISOString();

function publishedKey(row: PublishedKeyRow) {
  const publicKey = publicKeyFromPem(row.public_key);
  return {
    keyId: row.key_id,
    algorithm: 'Ed25519' as const,
    status: row.status,
    publicKeyJwk: publicJwk(publicKey, row.key_id),
    publicKeyPem: row.public_key,
    createdAt: iso(row.created_at),
    retiredAt: row.retired_at === null ? null : iso(row.retired_at),
  };
}

export function registerCredentialRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/keys',
    operationId: 'listBoardingCredentialKeys',
    summary: 'Public keys that sign boarding credentials',
    description: KEYS_RULES,
    tags: TAGS,
    security: 'public',
    responses: { 200: { description: 'The published keys', schema: KeysResponse } },
    handler: async (ctx) => {
      const keys = (await listSigningKeys(db)).map(publishedKey);
      publicCache(ctx, KEYS_CACHE_SECONDS);
      ctx.body = { success: true, data: { keys } };
    },
  });

  surface.route({
    method: 'get',
    path: '/revocations',
    operationId: 'listRevokedCredentials',
    summary: 'Boarding credentials revoked after they were signed',
    description: REVOCATIONS_RULES,
    tags: TAGS,
    security: 'public',
    query: RevocationsQuery,
    responses: {
      200: { description: 'Revoked credentials', schema: RevocationsResponse },
      ...errorResponses(400),
    },
    handler: async (ctx, { query }) => {
      const asOf = new Date();
      const rows = await listRevocations(db, query.since ?? null, query.limit + 1);
      const { page, hasMore, nextSince } = revocationPage(rows, query.limit, asOf);
      publicCache(ctx, REVOCATIONS_CACHE_SECONDS);
      const revocations = page.map((row) => ({ ...row, revokedAt: row.revokedAt.toISOString() }));
      ctx.body = {
        success: true,
        data: { revocations, asOf: asOf.toISOString(), hasMore, nextSince: nextSince.toISOString() },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/verify',
    operationId: 'verifyBoardingCredential',
    summary: 'Check a scanned boarding credential at the door of a trip',
    description: VERIFY_RULES,
    tags: TAGS,
    security: 'driver',
    csrf: false,
    body: VerifyBody,
    responses: {
      200: { description: 'The verdict', schema: VerifyResponse },
      ...errorResponses(400, 401, 403, 404),
    },
    handler: async (ctx, { body }) => {
      ctx.body = { success: true, data: await verifyAtBoarding(db, currentDriver(ctx), body) };
    },
  });
}
