import { z } from 'zod';
import { readRevocationCursor, REVOCATION_OVERLAP_SECONDS } from '../../domain/boarding-credential.js';
import { InstantInput, queryInteger, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText as DateTime, IdText, successWith } from '../http/answer-schemas.js';
import { CredentialPayload, JourneyTicketStatus, ScannedSignature } from '../http/credential-schemas.js';

/** OpenAPI of the driver app's boarding credential routes (credentials.ts): schemas and the rules they document. */

const TAGS = ['Driver app: boarding credentials'];

/** Scanners refresh keys this often; a rotation reaches them within this many seconds. */
export const KEYS_CACHE_SECONDS = 300;
/** The revocation list is cached briefly: a revoked ticket is refused offline within a minute. */
export const REVOCATIONS_CACHE_SECONDS = 30;

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

const KeysResponse = successWith(z.object({ keys: z.array(PublicKeySchema) }));

/** An opaque nextCursor, read back into where the list resumes; any other text is refused. */
const RevocationCursorText = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be a nextCursor (base64url)')
  .transform((text, ctx) => {
    const cursor = readRevocationCursor(text);
    if (!cursor) ctx.addIssue({ code: 'custom', message: 'not a nextCursor this list handed out' });
    return cursor ?? z.NEVER;
  });

export const RevocationsQuery = z
  .object({
    since: InstantInput.optional().meta({ description: 'only revocations at or after this instant' }),
    cursor: RevocationCursorText.optional().meta({
      description: 'the nextCursor of the previous answer: the revocations after it (not with since)',
    }),
    limit: queryInteger(z.int().min(1).max(5000).default(1000)),
  })
  .strict()
  .refine((query) => query.since === undefined || query.cursor === undefined, {
    message: 'send since or cursor, not both',
    path: ['cursor'],
  });

const RevocationsResponse = successWith(
  z.object({
    revocations: z.array(
      z.object({
        ticketId: IdText,
        keyId: z.string().nullable(),
        revokedAt: DateTime,
      }),
    ),
    asOf: DateTime,
    hasMore: z.boolean(),
    nextSince: DateTime.meta({ description: 'pass as `since` on the next poll' }),
    nextCursor: z.string().meta({ description: 'pass as `cursor` on the next poll: it never stalls' }),
  }),
);

export const VerifyBody = z
  .object({
    payload: CredentialPayload.meta({
      description: 'the credential payload exactly as the QR code carries it',
    }),
    signature: ScannedSignature.meta({
      description: 'Ed25519 signature of the canonical JSON of payload, base64url',
    }),
    tripId: Uuid.meta({ description: 'the trip being boarded' }),
  })
  .strict();

const VerifyResponse = successWith(
  z.object({
    valid: z.boolean(),
    reason: z
      .enum(['SIGNATURE_INVALID', 'WRONG_TRIP', 'TICKET_NOT_VALID', 'REVOKED', 'UNKNOWN_KEY', 'EXPIRED'])
      .optional(),
    ticket: z
      .object({
        ticketId: IdText,
        tripId: IdText,
        legSequence: z.int(),
        travellerName: z.string(),
        seatNumber: z.string(),
        status: JourneyTicketStatus,
      })
      .optional()
      .meta({ description: 'present once the signature is authentic and the ticket exists' }),
  }),
);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  listBoardingCredentialKeys: {
    summary: 'Public keys that sign boarding credentials',
    description:
      'Every key that ever signed boarding credentials, newest first, as an OKP JSON Web Key (RFC 8037, Ed25519) and as ' +
      'SPKI PEM. A ticket credential is `{payload, signature}`: payload is a JSON object whose `keyId` names the key; ' +
      'signature is the Ed25519 signature (base64url, 64 bytes) of the canonical JSON of payload (keys sorted by UTF-16 ' +
      'code units at every depth, no whitespace, strings and numbers as JSON.stringify writes them). Exactly one key is ' +
      'ACTIVE (it signs new tickets); after a rotation the previous ones stay listed as RETIRED, so tickets they signed ' +
      `keep verifying. Public; cacheable for ${KEYS_CACHE_SECONDS} s, so scanners learn a new key within that time.`,
    responses: {
      200: {
        description: 'The published keys',
        schema: KeysResponse,
      },
    },
  },
  listRevokedCredentials: {
    summary: 'Boarding credentials revoked after they were signed',
    description:
      'Tickets whose signed credential no longer lets anyone board (a confirmed journey cancelled, a ticket re-issued), ' +
      'for scanners that verify offline: they refuse a credential whose ticketId is on this list. Oldest first; `since` ' +
      `(ISO 8601) returns revocations at or after that instant; at most \`limit\` (default 1000, at most 5000). Poll ` +
      'again with cursor = nextCursor (an opaque text, instead of since): when hasMore it resumes right after the last ' +
      `entry, else ${REVOCATION_OVERLAP_SECONDS} s before the asOf of the first page of this catch-up (the one read ` +
      'with since, or with the nextCursor of a page without hasMore): a revocation is listed at its instant but ' +
      'committed a moment later, so one committed behind the cursor meanwhile is handed on the next poll however ' +
      'long the paging took; no revocation is missed and paging never stalls; entries may repeat, a scanner keeps ' +
      'them by ticketId. nextSince (the last entry when hasMore) still works as since, but carries no such rewind ' +
      'point, and one cancellation revokes many tickets at one instant: more of them than `limit` would make it ' +
      'return the same page again. A cursor the list did not hand out, or since and cursor together, is 400 ' +
      'VALIDATION_FAILED. Only ticket ids, key ids and instants are published, and only for tickets of the ' +
      "session's company (Authorization: Bearer <session token> of a company user with role DRIVER, OWNER, ADMIN or " +
      'DISPATCHER; else 401 or 403): keyId is the key that signed that ticket, never a key withdrawn on its own; key ' +
      'rotations are platform-wide and published to everyone by the keys route. Private; cacheable for ' +
      `${REVOCATIONS_CACHE_SECONDS} s. Rate limited per client IP (DRIVER_REVOCATIONS_RATE_LIMIT_PER_MINUTE, 120 a ` +
      'minute, enough for the scanners of a depot behind one address): 429 RATE_LIMITED with Retry-After.',
    responses: answers(200, 'Revoked credentials', RevocationsResponse, [400, 401, 403, 429]),
  },
  verifyBoardingCredential: {
    summary: 'Check a scanned boarding credential at the door of a trip',
    description:
      'For the driver app (Authorization: Bearer <session token> of a company user with role DRIVER, OWNER, ADMIN or ' +
      "DISPATCHER of the trip's company; a trip of another company answers 404 TRIP_NOT_FOUND, and a DRIVER checks only " +
      'at the door of a trip assigned to them, else 403 TRIP_NOT_ASSIGNED). Checks, in this order: ' +
      'the key named by payload.keyId was published (else UNKNOWN_KEY); the signature verifies over the canonical JSON of ' +
      'payload (else SIGNATURE_INVALID); payload.tripId is the trip being boarded (else WRONG_TRIP); the ticket is not on ' +
      'the revocation list (else REVOKED); the ticket is now VALID with boarding_authorized true and carries this ' +
      'signature (else TICKET_NOT_VALID); its QR has not expired (else EXPIRED: as for the ticket document, the QR ' +
      "expires once the trip arrived, completed or was cancelled, or the bus left the traveller's boarding stop, at " +
      "DEPART for the first stop; before departure once the alighting stop's planned arrival plus the delay has " +
      'passed). A refused credential is a 200 answer with valid false and the reason; ticket ' +
      "details are returned only once the signature is authentic, and only for a ticket of the trip's company. Reads " +
      'only: nothing is marked as used.',
    responses: answers(200, 'The verdict', VerifyResponse, [400, 401, 403, 404]),
  },
});
