import { z } from 'zod';
import {
  findSigningKey,
  findTicketAtBoarding,
  listRevocations,
  listSigningKeys,
  tripCompany,
  type PublishedKeyRow,
} from '../../db/queries/boarding-credentials.js';
import {
  credentialRefusal,
  publicJwk,
  publicKeyFromPem,
  verifyCredential,
} from '../../domain/boarding-credential.js';
import type { AppContext } from '../app.js';
import type { DriverPrincipal } from '../auth/driver-auth.js';
import { Refusal } from '../http/errors.js';
import { publicCache } from '../http/middleware.js';
import type { Surface } from '../http/route.js';
import { errorResponses, Uuid } from '../http/schemas.js';

/** Scanners refresh keys this often; a rotation reaches them within this many seconds. */
const KEYS_CACHE_SECONDS = 300;
/** The revocation list is cached briefly: a revoked ticket is refused offline within a minute. */
const REVOCATIONS_CACHE_SECONDS = 30;
/**
 * revoked_at is the revoking transaction's start; it may commit a moment later than a list read
 * that missed it. nextSince steps back this far so a scanner's next poll catches such rows.
 */
const REVOCATION_OVERLAP_SECONDS = 300;

const DateTime = z.string().meta({ format: 'date-time' });

const PublicKeySchema = z.object({
  keyId: z.string(),
  algorithm: z.literal('Ed25519'),
  status: z.enum(['ACTIVE', 'RETIRED']),
  publicKeyJwk: z.object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string().meta({ description: 'the 32-byte public key, base64url' }),
    kid: z.string(),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  }),
  publicKeyPem: z.string().meta({ description: 'the same key as SPKI PEM' }),
  createdAt: DateTime,
  retiredAt: DateTime.nullable(),
});

const KeysResponse = z.object({
  success: z.literal(true),
  data: z.object({ keys: z.array(PublicKeySchema) }),
});

const RevocationsQuery = z
  .object({
    since: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'only revocations at or after this instant' }),
    limit: z.coerce.number().int().min(1).max(5000).default(1000),
  })
  .strict();

const RevocationsResponse = z.object({
  success: z.literal(true),
  data: z.object({
    revocations: z.array(
      z.object({
        ticketId: z.string().meta({ format: 'uuid' }),
        keyId: z.string().nullable(),
        revokedAt: DateTime,
      }),
    ),
    asOf: DateTime,
    hasMore: z.boolean(),
    nextSince: DateTime.meta({ description: 'pass as `since` on the next poll' }),
  }),
});

const VerifyBody = z
  .object({
    payload: z
      .record(z.string(), z.unknown())
      .meta({ description: 'the credential payload exactly as the QR code carries it' }),
    signature: z
      .string()
      .min(1)
      .max(200)
      .meta({ description: 'Ed25519 signature of the canonical JSON of payload, base64url' }),
    tripId: Uuid.meta({ description: 'the trip being boarded' }),
  })
  .strict();

const TicketStatus = z.enum(['PENDING_CONFIRMATION', 'VALID', 'CANCELLED', 'USED', 'REISSUED']);

const VerifyResponse = z.object({
  success: z.literal(true),
  data: z.object({
    valid: z.boolean(),
    reason: z
      .enum(['SIGNATURE_INVALID', 'WRONG_TRIP', 'TICKET_NOT_VALID', 'REVOKED', 'UNKNOWN_KEY'])
      .optional(),
    ticket: z
      .object({
        ticketId: z.string().meta({ format: 'uuid' }),
        tripId: z.string().meta({ format: 'uuid' }),
        legSequence: z.int(),
        travellerName: z.string(),
        seatNumber: z.string(),
        status: TicketStatus,
      })
      .optional()
      .meta({ description: 'present once the signature is authentic and the ticket exists' }),
  }),
});

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

function currentDriver(ctx: { state: { driver?: DriverPrincipal | null } }): DriverPrincipal {
  const driver = ctx.state.driver;
  if (!driver)
    throw new Refusal(401, 'AUTH_REQUIRED', 'Send the session token as Authorization: Bearer <token>');
  return driver;
}

export function registerCredentialRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/keys',
    operationId: 'listBoardingCredentialKeys',
    summary: 'Public keys that sign boarding credentials',
    description:
      'Every key that ever signed boarding credentials, newest first, as an OKP JSON Web Key (RFC 8037, Ed25519) and as ' +
      'SPKI PEM. A ticket credential is `{payload, signature}`: payload is a JSON object whose `keyId` names the key; ' +
      'signature is the Ed25519 signature (base64url, 64 bytes) of the canonical JSON of payload (keys sorted by UTF-16 ' +
      'code units at every depth, no whitespace, strings and numbers as JSON.stringify writes them). Exactly one key is ' +
      'ACTIVE (it signs new tickets); after a rotation the previous ones stay listed as RETIRED, so tickets they signed ' +
      `keep verifying. Public; cacheable for ${KEYS_CACHE_SECONDS} s, so scanners learn a new key within that time.`,
    tags: ['Driver app: boarding credentials'],
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
    description:
      'Tickets whose signed credential no longer lets anyone board (a confirmed journey cancelled, a ticket re-issued), ' +
      'for scanners that verify offline: they refuse a credential whose ticketId is on this list. Oldest first; `since` ' +
      `(ISO 8601) returns revocations at or after that instant; at most \`limit\` (default 1000, at most 5000). Poll ` +
      `again with since = nextSince: it steps back ${REVOCATION_OVERLAP_SECONDS} s (or, when hasMore, to the last entry) so ` +
      'no revocation is missed; entries may repeat, a scanner keeps them by ticketId. Only ticket ids, key ids and ' +
      `instants are published. Public; cacheable for ${REVOCATIONS_CACHE_SECONDS} s.`,
    tags: ['Driver app: boarding credentials'],
    security: 'public',
    query: RevocationsQuery,
    responses: {
      200: { description: 'Revoked credentials', schema: RevocationsResponse },
      ...errorResponses(400),
    },
    handler: async (ctx, { query }) => {
      const asOf = new Date();
      const rows = await listRevocations(db, query.since ?? null, query.limit + 1);
      const hasMore = rows.length > query.limit;
      const page = rows.slice(0, query.limit);
      const overlapStart = new Date(asOf.getTime() - REVOCATION_OVERLAP_SECONDS * 1000);
      const nextSince = hasMore ? new Date(page[page.length - 1]!.revoked_at) : overlapStart;
      publicCache(ctx, REVOCATIONS_CACHE_SECONDS);
      ctx.body = {
        success: true,
        data: {
          revocations: page.map((row) => ({
            ticketId: row.ticket_id,
            keyId: row.key_id,
            revokedAt: iso(row.revoked_at),
          })),
          asOf: asOf.toISOString(),
          hasMore,
          nextSince: nextSince.toISOString(),
        },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/verify',
    operationId: 'verifyBoardingCredential',
    summary: 'Check a scanned boarding credential at the door of a trip',
    description:
      'For the driver app (Authorization: Bearer <session token> of a company user with role DRIVER, OWNER, ADMIN or ' +
      "DISPATCHER of the trip's company; a trip of another company answers 404 TRIP_NOT_FOUND). Checks, in this order: " +
      'the key named by payload.keyId was published (else UNKNOWN_KEY); the signature verifies over the canonical JSON of ' +
      'payload (else SIGNATURE_INVALID); payload.tripId is the trip being boarded (else WRONG_TRIP); the ticket is not on ' +
      'the revocation list (else REVOKED); the ticket is now VALID with boarding_authorized true and carries this ' +
      'signature (else TICKET_NOT_VALID). A refused credential is a 200 answer with valid false and the reason; ticket ' +
      'details are returned only once the signature is authentic. Reads only: nothing is marked as used.',
    tags: ['Driver app: boarding credentials'],
    security: 'driver',
    csrf: false,
    body: VerifyBody,
    responses: {
      200: { description: 'The verdict', schema: VerifyResponse },
      ...errorResponses(400, 401, 403, 404),
    },
    handler: async (ctx, { body }) => {
      const driver = currentDriver(ctx);
      if ((await tripCompany(db, body.tripId)) !== driver.companyId) {
        throw new Refusal(404, 'TRIP_NOT_FOUND', 'No such trip');
      }
      const keyId = body.payload.keyId;
      const keyRow = typeof keyId === 'string' ? await findSigningKey(db, keyId) : undefined;
      const signatureValid = keyRow
        ? verifyCredential(body.payload, body.signature, publicKeyFromPem(keyRow.public_key))
        : false;
      const ticketId = body.payload.ticketId;
      const ticket =
        signatureValid && typeof ticketId === 'string' ? await findTicketAtBoarding(db, ticketId) : undefined;
      const reason = credentialRefusal({
        keyKnown: keyRow !== undefined,
        signatureValid,
        payloadTripId: body.payload.tripId,
        boardingTripId: body.tripId,
        ticket: ticket && {
          status: ticket.status,
          boardingAuthorized: ticket.boarding_authorized,
          revoked: ticket.revoked,
          signature: ticket.signature,
        },
        presentedSignature: body.signature,
      });
      ctx.body = {
        success: true,
        data: {
          valid: reason === null,
          ...(reason ? { reason } : {}),
          ...(ticket
            ? {
                ticket: {
                  ticketId: ticket.id,
                  tripId: ticket.trip_id,
                  legSequence: ticket.leg_sequence,
                  travellerName: ticket.traveller_name,
                  seatNumber: ticket.seat_number,
                  status: ticket.status,
                },
              }
            : {}),
        },
      };
    },
  });
}
