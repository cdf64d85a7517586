import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Logger } from '../../config/logger.js';
import {
  canonicalJson,
  CREDENTIAL_ALGORITHM,
  credentialPayload,
  publicJwk,
  signCredential,
  type BoardingCredentialPayload,
} from '../../domain/boarding-credential.js';
import { prepared } from '../prepared.js';
import { writeTime } from './write-time.js';

/**
 * Boarding credentials in the database: the signing keys, signing the tickets of a confirmed
 * journey or order, and the revocation list. Every function runs inside the caller's transaction
 * (the confirm or finalize transaction of the journey), so tickets become VALID exactly when the
 * journey becomes CONFIRMED.
 *
 * Keys: one ACTIVE key signs; RETIRED keys stay published so tickets signed before a rotation
 * still verify. A key's id is derived from its public key (RFC 7638 thumbprint, first 16
 * characters), so the same key always has the same id. Where the private key lives:
 *   - SIGNING_PRIVATE_KEY_PEM set (production, from the secret store): the row stores only the
 *     public key and the marker EXTERNAL_PRIVATE_KEY; signing uses the configured key. On first use
 *     it takes over when another key is active (a database that ran without the setting, or a new
 *     key in the secret store): that key is retired, and the private halves of generated keys are
 *     erased (ERASED_PRIVATE_KEY). A key once retired never takes back over by itself.
 *   - unset (development, tests): a key pair is generated on first use and the PKCS#8 PEM of the
 *     private key is stored in the row.
 */
export const EXTERNAL_PRIVATE_KEY = 'external:SIGNING_PRIVATE_KEY_PEM';

/** In place of a retired generated key's private half once a configured key took over: it signs no more. */
export const ERASED_PRIVATE_KEY = 'erased:replaced-by-SIGNING_PRIVATE_KEY_PEM';

export type CredentialScope = { kind: 'JOURNEY' | 'ORDER'; id: string };

export interface SigningOptions {
  /** config.SIGNING_PRIVATE_KEY_PEM: the configured signing key, when there is one. */
  privateKeyPem?: string | undefined;
  /** Told when the configured key takes over as the active signing key (the process's logger). */
  logger?: Pick<Logger, 'info' | 'warn'> | undefined;
}

export interface SigningKey {
  keyId: string;
  privateKey: KeyObject;
}

/** The key id of a public key: the first 16 characters of its RFC 7638 JWK thumbprint. */
export function keyIdOf(publicKey: KeyObject): string {
  const { crv, kty, x } = publicJwk(publicKey, '');
  return createHash('sha256').update(canonicalJson({ crv, kty, x })).digest('base64url').slice(0, 16);
}

function newKeyRow(options: SigningOptions): {
  keyId: string;
  publicPem: string;
  privateColumn: string;
  privateKey: KeyObject;
} {
  if (options.privateKeyPem) {
    const privateKey = createPrivateKey(options.privateKeyPem);
    if (privateKey.asymmetricKeyType !== 'ed25519')
      throw new Error('SIGNING_PRIVATE_KEY_PEM is not an Ed25519 key');
    const publicKey = createPublicKey(privateKey);
    return {
      keyId: keyIdOf(publicKey),
      publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      privateColumn: EXTERNAL_PRIVATE_KEY,
      privateKey,
    };
  }
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    keyId: keyIdOf(publicKey),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateColumn: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    privateKey,
  };
}

const parsedKeys = new Map<string, SigningKey>();

/**
 * A PEM private key and its key id, parsed once per process: parsing it for every booking took
 * about 4% of the API's CPU under POST /bookings load.
 */
function parsedPrivateKey(pem: string): SigningKey {
  let parsed = parsedKeys.get(pem);
  if (!parsed) {
    const privateKey = createPrivateKey(pem);
    parsed = { keyId: keyIdOf(createPublicKey(privateKey)), privateKey };
    parsedKeys.set(pem, parsed);
  }
  return parsed;
}

/** Columns of an outer join's side: null when no row matched. */
type NullableColumns<Row> = { [Column in keyof Row]: Row[Column] | null };

/** A signing_keys row: PEM texts, or EXTERNAL_PRIVATE_KEY in place of a private key held outside. */
interface SigningKeyRow {
  key_id: string;
  public_key: string;
  private_key: string;
}

/**
 * The key the ACTIVE row signs with: with a key configured, that key when the row is its public
 * half, else null (the configured key must take over first); without one, the row's stored key.
 */
function signingKeyOf(row: SigningKeyRow, options: SigningOptions): SigningKey | null {
  if (options.privateKeyPem) {
    const configured = parsedPrivateKey(options.privateKeyPem);
    return configured.keyId === row.key_id && row.private_key === EXTERNAL_PRIVATE_KEY ? configured : null;
  }
  if (row.private_key === EXTERNAL_PRIVATE_KEY) {
    throw new Error(`Signing key ${row.key_id} is held outside the database; set SIGNING_PRIVATE_KEY_PEM`);
  }
  return parsedPrivateKey(row.private_key);
}

/**
 * The ACTIVE signing key, created on first use. Two transactions creating it at once meet on
 * the one-ACTIVE-key index: the second waits, inserts nothing and reads the first one's key.
 * With a key configured, that key is the one returned: it takes over when another is active.
 */
export async function activeSigningKey(
  client: PoolClient,
  options: SigningOptions = {},
): Promise<SigningKey> {
  const select = `select key_id, public_key, private_key from signing_keys where status = 'ACTIVE'`;
  let [row] = (await client.query<SigningKeyRow>(prepared(select, []))).rows;
  if (!row) {
    const created = newKeyRow(options);
    await client.query(
      `insert into signing_keys (key_id, algorithm, public_key, private_key, status)
       values ($1, $2, $3, $4, 'ACTIVE')
       on conflict do nothing`,
      [created.keyId, CREDENTIAL_ALGORITHM, created.publicPem, created.privateColumn],
    );
    [row] = (await client.query<SigningKeyRow>(select)).rows;
    // Only when the configured key exists but was retired: rotate to make a key active again.
    if (!row)
      throw new Error(
        `No active signing key: key ${created.keyId} exists but is retired; rotate the signing key`,
      );
  }
  return signingKeyOf(row, options) ?? takeOverWithConfiguredKey(client, options);
}

/**
 * Makes the configured key the ACTIVE one: on a database that ran without SIGNING_PRIVATE_KEY_PEM
 * (development, or staging promoted to production) a generated key, private half in its row, would
 * otherwise go on signing; after a new key is put in the secret store, the previous one. Under the
 * rotation lock, so transactions taking over at once rotate once: the later ones find the
 * configured key active. A configured key that was already retired while another configured key
 * signs is refused (a process left with the previous key would otherwise take turns with the
 * processes holding the new one).
 */
async function takeOverWithConfiguredKey(client: PoolClient, options: SigningOptions): Promise<SigningKey> {
  const configured = parsedPrivateKey(options.privateKeyPem!);
  await lockRotation(client);
  const { rows } = await client.query<SigningKeyRow & { status: 'ACTIVE' | 'RETIRED' }>(
    `select key_id, public_key, private_key, status from signing_keys where status = 'ACTIVE' or key_id = $1`,
    [configured.keyId],
  );
  const active = rows.find((row) => row.status === 'ACTIVE');
  if (active && signingKeyOf(active, options)) return configured;
  const replacedExternal = active?.private_key === EXTERNAL_PRIVATE_KEY;
  const replacedStored = active !== undefined && !replacedExternal;
  if (replacedExternal && rows.some((row) => row.key_id === configured.keyId && row.status === 'RETIRED')) {
    throw new Error(
      `SIGNING_PRIVATE_KEY_PEM is the retired signing key ${configured.keyId}: key ${active.key_id} took over from it`,
    );
  }
  const { erased } = await rotateLocked(client, options);
  const details = {
    keyId: configured.keyId,
    replacedKeyId: active?.key_id ?? null,
    erasedPrivateKeys: erased,
  };
  if (replacedStored) {
    options.logger?.warn(
      details,
      'SIGNING_PRIVATE_KEY_PEM took over as the active signing key from a key held in the database; its private half is erased',
    );
  } else {
    options.logger?.info(details, 'SIGNING_PRIVATE_KEY_PEM took over as the active signing key');
  }
  return configured;
}

/** Two rotations at once would each retire the key the other just made active. */
async function lockRotation(client: PoolClient): Promise<void> {
  await client.query(`select pg_advisory_xact_lock(hashtext('signing_keys.rotate'))`);
}

/**
 * Retires the ACTIVE key and makes a new one active (generated, or the configured key when it
 * is not the active one already). Old keys stay published: tickets they signed keep verifying.
 * When the configured key becomes active, retired generated keys lose their private half: the
 * database keeps only public halves. Returns the new key id.
 */
export async function rotateSigningKey(client: PoolClient, options: SigningOptions = {}): Promise<string> {
  await lockRotation(client);
  return (await rotateLocked(client, options)).keyId;
}

async function rotateLocked(
  client: PoolClient,
  options: SigningOptions,
): Promise<{ keyId: string; erased: number }> {
  const created = newKeyRow(options);
  await client.query(
    `update signing_keys set status = 'RETIRED', retired_at = now() where status = 'ACTIVE'`,
  );
  await client.query(
    `insert into signing_keys (key_id, algorithm, public_key, private_key, status)
     values ($1, $2, $3, $4, 'ACTIVE')
     on conflict (key_id) do update set status = 'ACTIVE', retired_at = null, private_key = excluded.private_key`,
    [created.keyId, CREDENTIAL_ALGORITHM, created.publicPem, created.privateColumn],
  );
  if (created.privateColumn !== EXTERNAL_PRIVATE_KEY) return { keyId: created.keyId, erased: 0 };
  const erased = await client.query(
    `update signing_keys set private_key = $1 where status = 'RETIRED' and private_key not in ($1, $2)`,
    [ERASED_PRIVATE_KEY, EXTERNAL_PRIVATE_KEY],
  );
  return { keyId: created.keyId, erased: erased.rowCount ?? 0 };
}

/** What a ticket's credential says: the ticket and the stop calls of its leg. */
export interface TicketToSign {
  id: string;
  trip_id: string;
  company_id: string;
  leg_sequence: number;
  traveller_name: string;
  seat_number: string;
  board_stop_call_id: string;
  alight_stop_call_id: string;
  /** timestamptz arrives from the pool as PostgreSQL text. */
  departure_at: string;
}

/** A ticket's credential: the canonical JSON payload and its signature (base64url). */
export interface SignedTicket {
  id: string;
  payload: string;
  signature: string;
}

/**
 * Builds and signs the credential of each ticket with one key at one instant. Writes nothing: a
 * caller that inserts tickets signs them first and stores them VALID in the same statement.
 */
export function signTickets(tickets: TicketToSign[], key: SigningKey, issuedAt: Date): SignedTicket[] {
  return tickets.map((ticket) => {
    const payload: BoardingCredentialPayload = credentialPayload(
      {
        ticketId: ticket.id,
        tripId: ticket.trip_id,
        companyId: ticket.company_id,
        legSequence: ticket.leg_sequence,
        travellerName: ticket.traveller_name,
        seatNumber: ticket.seat_number,
        boardStopCallId: ticket.board_stop_call_id,
        alightStopCallId: ticket.alight_stop_call_id,
        departureAt: new Date(ticket.departure_at),
      },
      issuedAt,
      key.keyId,
    );
    return {
      id: ticket.id,
      payload: canonicalJson(payload),
      signature: signCredential(payload, key.privateKey),
    };
  });
}

/** The tickets of a journey, or of every journey of an order. */
function scopeCondition(scope: CredentialScope): string {
  return scope.kind === 'JOURNEY' ? 'j.id = $1' : 'j.order_id = $1';
}

/**
 * Signs every ticket of the scope still PENDING_CONFIRMATION: builds its payload, signs the
 * canonical JSON with the active key and sets status VALID, payload, signature (base64url),
 * key_id, issued_at and boarding_authorized true. Tickets already signed are left as they are,
 * so running it again (an activity retry) changes nothing. Returns how many tickets it signed.
 */
export async function signTicketsOf(
  client: PoolClient,
  scope: CredentialScope,
  options: SigningOptions = {},
  at?: string,
): Promise<{ signed: number; keyId: string | null }> {
  // The active key comes with the tickets (one round trip less on every confirm); null before the
  // first key exists, which activeSigningKey then creates.
  const { rows: tickets } = await client.query<TicketToSign & NullableColumns<SigningKeyRow>>(
    `select t.id, t.trip_id, t.company_id, t.leg_sequence, t.traveller_name, t.seat_number,
            l.board_stop_call_id, l.alight_stop_call_id, board.departure_at,
            k.key_id, k.public_key, k.private_key
     from journey_tickets t
     join journeys j on j.id = t.journey_id
     join journey_legs l on l.journey_id = t.journey_id and l.sequence = t.leg_sequence
     join trip_stop_calls board on board.id = l.board_stop_call_id
     left join signing_keys k on k.status = 'ACTIVE'
     where ${scopeCondition(scope)} and t.status = 'PENDING_CONFIRMATION'
     order by t.journey_id, t.leg_sequence, t.traveller_index
     for update of t`,
    [scope.id],
  );
  const [first] = tickets;
  if (!first) return { signed: 0, keyId: null };

  const { key_id, public_key, private_key } = first;
  const key =
    (key_id !== null && public_key !== null && private_key !== null
      ? signingKeyOf({ key_id, public_key, private_key }, options)
      : null) ?? (await activeSigningKey(client, options));
  // A database instant, never this host's clock: the confirm's own (`at`, read once it held the
  // scope, whose lock every writer of these tickets takes first), else read once the tickets are
  // held. So never before the journey's confirm, never after a scan that follows it.
  const issuedAt = new Date(at ?? (await writeTime(client)));
  const signed = signTickets(tickets, key, issuedAt);
  await client.query(
    `update journey_tickets t
     set status = 'VALID', payload = v.payload::jsonb, signature = v.signature, key_id = $4,
         issued_at = $5, boarding_authorized = true
     from unnest($1::uuid[], $2::text[], $3::text[]) as v(id, payload, signature)
     where t.id = v.id`,
    [
      signed.map((s) => s.id),
      signed.map((s) => s.payload),
      signed.map((s) => s.signature),
      key.keyId,
      issuedAt,
    ],
  );
  return { signed: signed.length, keyId: key.keyId };
}

/**
 * Puts the credentials of these tickets on the revocation list (a confirmed journey cancelled,
 * a ticket re-issued). Only tickets that were signed have a credential to revoke; a ticket
 * already listed keeps its first entry. Each entry carries its ticket's company: the driver app
 * reads only its own company's list. Returns how many entries were added. Revoked at `revokedAt`
 * when given (a trip CANCEL's write time, read after its locks), else at the transaction's start.
 */
export async function revokeCredentials(
  client: PoolClient,
  ticketIds: readonly string[],
  reason: string,
  revokedAt?: string,
): Promise<number> {
  if (ticketIds.length === 0) return 0;
  const result = await client.query(
    `insert into credential_revocations (ticket_id, key_id, reason, company_id, revoked_at)
     select id, key_id, $2, company_id, coalesce($3::timestamptz, now()) from journey_tickets
      where id = any($1::uuid[]) and signature is not null
     on conflict (ticket_id) do nothing`,
    [ticketIds, reason, revokedAt ?? null],
  );
  return result.rowCount ?? 0;
}

/** revokeCredentials for every signed ticket of a journey or order (the whole scope is cancelled). */
export async function revokeCredentialsOf(
  client: PoolClient,
  scope: CredentialScope,
  reason: string,
): Promise<number> {
  const result = await client.query(
    `insert into credential_revocations (ticket_id, key_id, reason, company_id)
     select t.id, t.key_id, $2, t.company_id from journey_tickets t join journeys j on j.id = t.journey_id
     where ${scopeCondition(scope)} and t.signature is not null
     on conflict (ticket_id) do nothing`,
    [scope.id, reason],
  );
  return result.rowCount ?? 0;
}
