import type { PoolClient } from 'pg';
import {
  IdentityRefusal,
  type EmailHolder,
  type IdentityRefusalCode,
} from '../../../domain/traveller-identity.js';
import type { Database } from '../../orm.js';
import { PG_UNIQUE_VIOLATION, pgCode } from '../../pg-errors.js';
import { recordAudit, type RequestOrigin } from '../audit.js';
import { consumeNonce, type PresentedNonce } from './nonces.js';

/**
 * What the identity transactions share: key locks, the staff-address check, and reads of the
 * accounts involved. Rows that may not exist yet (a subject, an e-mail address, a phone number)
 * are serialised with transaction-scoped advisory locks on their key; rows that exist are locked
 * FOR UPDATE. Lock order is always key locks first, then users, then passengers, so two operations
 * never wait on each other in a cycle.
 */

export const PROVIDER = 'idp';

/** The identity the provider vouched for (from a verified ID token only). */
export interface VerifiedIdentity {
  subject: string;
  email: string;
  name: string;
}

export interface TravellerSummary {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  passengerId: string | null;
}

export async function lockKey(client: PoolClient, key: string): Promise<void> {
  await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

export async function lockIdentityKeys(client: PoolClient, identity: VerifiedIdentity): Promise<void> {
  await lockKey(client, `idp-subject:${identity.subject}`);
  await lockKey(client, `email:${identity.email.toLowerCase()}`);
}

interface TakenRow {
  taken: boolean;
}

/**
 * Company staff and administrators sign in elsewhere; their addresses never become travellers here.
 * Asked only before a subject is linked (by its address, or to a new account): a subject already
 * linked keeps signing in, whatever account somebody made with its address since.
 */
export async function refuseStaffEmail(client: PoolClient, email: string): Promise<void> {
  const { rows } = await client.query<TakenRow>(
    `select exists (select 1 from staff_users where lower(email) = lower($1))
         or exists (select 1 from admins where lower(email) = lower($1)) as taken`,
    [email],
  );
  if (rows[0]!.taken) {
    throw new IdentityRefusal(
      'IDP_STAFF_ACCOUNT_CONFLICT',
      'This e-mail address belongs to a staff account; use the staff sign-in',
    );
  }
}

interface SummaryRow {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  passenger_id: string | null;
}

const toSummary = (row: SummaryRow): TravellerSummary => ({
  id: row.id,
  name: row.name,
  email: row.email,
  phone: row.phone,
  passengerId: row.passenger_id,
});

export async function summaryOf(client: PoolClient, userId: string): Promise<TravellerSummary> {
  const { rows } = await client.query<SummaryRow>(
    'select id, name, email, phone, passenger_id from users where id = $1',
    [userId],
  );
  return toSummary(rows[0]!);
}

/** Unique-index races that the key locks do not cover still fail closed, as a conflict. */
export async function failClosed<T>(work: () => Promise<T>, code: IdentityRefusalCode): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (pgCode(error) === PG_UNIQUE_VIOLATION) {
      throw new IdentityRefusal(code, 'The identity conflicts with another account');
    }
    throw error;
  }
}

/**
 * One transaction for a verified identity: the identity's keys locked and the nonce spent (when one
 * is presented) before `work` runs; a conflict is IDP_ACCOUNT_CONFLICT.
 */
export function identityTransaction<T>(
  db: Database,
  identity: VerifiedIdentity,
  nonce: PresentedNonce | undefined,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return failClosed(
    () =>
      db.transaction(async (client) => {
        await lockIdentityKeys(client, identity);
        if (nonce) await consumeNonce(client, nonce);
        return work(client);
      }),
    'IDP_ACCOUNT_CONFLICT',
  );
}

interface LinkedUserRow {
  id: string;
  status: string;
}

/**
 * The account the subject is linked to, locked. The link is read again once the account's row is
 * ours, in a statement of its own: the locking statement, had it waited for the row, would keep the
 * link it saw when it began, and an unlink holds the account while it deletes the link (link.ts).
 * Links of the subject are only added under its key lock, which the caller holds.
 */
export async function linkedUser(client: PoolClient, subject: string): Promise<LinkedUserRow | null> {
  const { rows: locked } = await client.query<{ id: string }>(
    `select u.id from user_identities i join users u on u.id = i.user_id
     where i.provider = $1 and i.subject = $2 for update of u`,
    [PROVIDER, subject],
  );
  if (!locked[0]) return null;
  const { rows } = await client.query<LinkedUserRow>(
    `select u.id, u.status from user_identities i join users u on u.id = i.user_id
     where i.provider = $1 and i.subject = $2 and u.id = $3`,
    [PROVIDER, subject, locked[0].id],
  );
  return rows[0] ?? null;
}

interface EmailHolderRow {
  id: string;
  status: string;
  email_verified: boolean;
  has_identity: boolean;
}

const toEmailHolder = (row: EmailHolderRow): EmailHolder => ({
  id: row.id,
  status: row.status,
  emailVerified: row.email_verified,
  hasIdentity: row.has_identity,
});

/**
 * The account that holds the address, locked; what it is is read once its row is ours, in a later
 * statement: a subquery of the locking statement would keep that statement's snapshot from before
 * it waited (READ COMMITTED re-checks only the locked row), and miss a subject linked meanwhile.
 */
export async function emailHolder(client: PoolClient, email: string): Promise<EmailHolder | null> {
  const { rows: locked } = await client.query<{ id: string }>(
    'select u.id from users u where lower(u.email) = lower($1) for update',
    [email],
  );
  if (!locked[0]) return null;
  const { rows } = await client.query<EmailHolderRow>(
    `select u.id, u.status, u.email_verified_at is not null as email_verified,
            exists (select 1 from user_identities i where i.user_id = u.id) as has_identity
     from users u where u.id = $1`,
    [locked[0].id],
  );
  return toEmailHolder(rows[0]!);
}

/**
 * Takes an address off an account that holds it unverified (domain unprovenClaim), for a traveller
 * whose identity provider proved the mailbox; the caller holds the address's key lock and the
 * holder's row. The holder's unused links for that address (verification, recovery) expire with
 * it, so the address coming back to the account later does not bring them back.
 */
export async function releaseUnprovenClaim(
  client: PoolClient,
  holderId: string,
  email: string,
): Promise<void> {
  await client.query(
    `update users set email = null, updated_at = now()
     where id = $1 and lower(email) = lower($2) and email_verified_at is null`,
    [holderId, email],
  );
  await client.query(
    `update email_tokens set expires_at = least(expires_at, now())
     where user_id = $1 and lower(email) = lower($2) and used_at is null`,
    [holderId, email],
  );
}

/**
 * The audit row of an unverified address taken from `holderId` by the traveller `byUserId`, with
 * the IP and id of the request that took it.
 */
export async function recordClaimReleased(
  client: PoolClient,
  released: { holderId: string; email: string; byUserId: string },
  origin: RequestOrigin,
): Promise<void> {
  await recordAudit(client, {
    actorKind: 'TRAVELLER',
    actorId: released.byUserId,
    ip: origin.ip,
    requestId: origin.requestId,
    action: 'travellers.unverified_email_released',
    targetKind: 'user',
    targetId: released.holderId,
    details: { email: released.email, provenBy: PROVIDER },
  });
}
