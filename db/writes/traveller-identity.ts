import { randomUUID } from 'node:crypto';
import { PG_UNIQUE_VIOLATION, pgCode } from '../pg-errors.js';
import type { PoolClient } from 'pg';
import { scopeFromAppMetadata, scopeToAppMetadata } from '../../domain/inventory-scope.js';
import type { Database } from '../orm.js';

/**
 * Traveller identities: signing in with the identity provider, linking and unlinking its subject,
 * and completing the phone identity (with the safe merge onto one canonical passenger_id).
 *
 * Every operation is one transaction. Rows that may not exist yet (a subject, an e-mail address,
 * a phone number) are serialised with transaction-scoped advisory locks on their key; rows that
 * exist are locked FOR UPDATE. Lock order is always key locks first, then users, then passengers,
 * so two operations never wait on each other in a cycle. Any conflict refuses the whole operation:
 * nothing is written and no parallel account appears.
 */

export type IdentityRefusal =
  | 'IDP_NONCE_INVALID'
  | 'IDP_STAFF_ACCOUNT_CONFLICT'
  | 'IDP_ACCOUNT_CONFLICT'
  | 'IDP_ALREADY_LINKED'
  | 'IDP_IDENTITY_NOT_FOUND'
  | 'LAST_SIGN_IN_METHOD'
  | 'ACCOUNT_DISABLED'
  | 'PHONE_ALREADY_SET'
  | 'ACCOUNT_LINK_REQUIRES_RECOVERY';

/** A refused identity change; the API turns `code` into its errorCode. */
export class IdentityRefused extends Error {
  constructor(
    readonly code: IdentityRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'IdentityRefused';
  }
}

export type NonceChannel = 'web' | 'pwa' | 'link';

/** The identity the provider vouched for (from a verified ID token only). */
export interface VerifiedIdentity {
  subject: string;
  email: string;
  name: string;
}

/** A nonce the caller presented: its flow, the SHA-256 of the token's nonce claim, the flow kind. */
export interface PresentedNonce {
  flowId: string;
  fingerprint: string;
  channel: NonceChannel;
}

export interface TravellerSummary {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  passengerId: string | null;
}

const PROVIDER = 'idp';
const ISO_CREATED_AT = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// ---------------------------------------------------------------------------------------------
// Nonces

/** Stores a new nonce (only its fingerprint) for one sign-in flow; returns the raw nonce once. */
export async function issueIdpNonce(
  db: Database,
  input: {
    channel: NonceChannel;
    fingerprintOf: (nonce: string) => string;
    nonce: string;
    ttlSeconds: number;
  },
): Promise<{ flowId: string; expiresAt: number }> {
  const flowId = randomUUID();
  // Expired flows are swept as new ones start, so the table stays small without a scheduled job.
  await db.query(
    `delete from idp_nonces where flow_id in (select flow_id from idp_nonces where expires_at < now() - interval '1 hour' limit 100)`,
  );
  const [row] = await db.query<{ expires_at: number }>(
    `insert into idp_nonces (flow_id, nonce_hash, channel, expires_at)
     values ($1, $2, $3, now() + make_interval(secs => $4)) returning floor(extract(epoch from expires_at))::int as expires_at`,
    [flowId, input.fingerprintOf(input.nonce), input.channel, input.ttlSeconds],
  );
  return { flowId, expiresAt: row!.expires_at };
}

/**
 * Marks the flow's nonce used, inside the caller's transaction: if the operation later fails the
 * rollback leaves the nonce usable, so only a successful attempt consumes it. A second attempt
 * with the same nonce, a nonce of another flow or kind, or an expired one is refused.
 */
async function consumeNonce(client: PoolClient, nonce: PresentedNonce): Promise<void> {
  const { rowCount } = await client.query(
    `update idp_nonces set consumed_at = now()
     where flow_id = $1 and nonce_hash = $2 and channel = $3 and consumed_at is null and expires_at > now()`,
    [nonce.flowId, nonce.fingerprint, nonce.channel],
  );
  if (rowCount !== 1)
    throw new IdentityRefused('IDP_NONCE_INVALID', 'The sign-in attempt is unknown, expired or already used');
}

// ---------------------------------------------------------------------------------------------
// Locks and shared reads

async function lockKey(client: PoolClient, key: string): Promise<void> {
  await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

async function lockIdentityKeys(client: PoolClient, identity: VerifiedIdentity): Promise<void> {
  await lockKey(client, `idp-subject:${identity.subject}`);
  await lockKey(client, `email:${identity.email.toLowerCase()}`);
}

/** Company staff and administrators sign in elsewhere; their addresses never become travellers here. */
async function refuseStaffEmail(client: PoolClient, email: string): Promise<void> {
  const { rows } = await client.query<{ taken: boolean }>(
    `select exists (select 1 from staff_users where lower(email) = lower($1))
         or exists (select 1 from admins where lower(email) = lower($1)) as taken`,
    [email],
  );
  if (rows[0]!.taken) {
    throw new IdentityRefused(
      'IDP_STAFF_ACCOUNT_CONFLICT',
      'This e-mail address belongs to a staff account; use the staff sign-in',
    );
  }
}

async function summaryOf(client: PoolClient, userId: string): Promise<TravellerSummary> {
  const { rows } = await client.query<{
    id: string;
    name: string;
    email: string | null;
    phone: string | null;
    passenger_id: string | null;
  }>('select id, name, email, phone, passenger_id from users where id = $1', [userId]);
  const row = rows[0]!;
  return { id: row.id, name: row.name, email: row.email, phone: row.phone, passengerId: row.passenger_id };
}

/** Unique-index races that the key locks do not cover still fail closed, as a conflict. */
async function failClosed<T>(work: () => Promise<T>, code: IdentityRefusal): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (pgCode(error) === PG_UNIQUE_VIOLATION) {
      throw new IdentityRefused(code, 'The identity conflicts with another account');
    }
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Sign-in

export interface IdpSignIn {
  user: TravellerSummary;
  isNewUser: boolean;
}

/**
 * Finds or creates the traveller for a verified identity:
 *   1. the subject is already linked → that user (refused if the account is disabled);
 *   2. else a traveller whose own e-mail is that address and verified, with no identity-provider
 *      subject yet (a phone traveller, or an e-mail and password account) → the subject is added
 *      to that same user; its password and phone are not touched;
 *   3. else an account holds the address in any other way (unverified, linked to another subject,
 *      disabled) → IDP_ACCOUNT_CONFLICT;
 *   4. else a new user with the verified e-mail, no phone and no passenger profile yet.
 * Addresses of company staff or administrators are refused first (IDP_STAFF_ACCOUNT_CONFLICT).
 */
export async function signInWithIdentity(
  db: Database,
  identity: VerifiedIdentity,
  nonce?: PresentedNonce,
): Promise<IdpSignIn> {
  return failClosed(
    () =>
      db.transaction(async (client) => {
        await lockIdentityKeys(client, identity);
        if (nonce) await consumeNonce(client, nonce);
        await refuseStaffEmail(client, identity.email);
        const linked = await linkedUser(client, identity.subject);
        if (linked) {
          if (linked.status !== 'ACTIVE')
            throw new IdentityRefused('ACCOUNT_DISABLED', 'This account is disabled');
          await client.query('update user_identities set email = $3 where provider = $1 and subject = $2', [
            PROVIDER,
            identity.subject,
            identity.email,
          ]);
          return { user: await summaryOf(client, linked.id), isNewUser: false };
        }
        const holder = await emailHolder(client, identity.email);
        if (holder) {
          if (holder.hasIdentity || holder.status !== 'ACTIVE' || !holder.emailVerified) {
            throw new IdentityRefused(
              'IDP_ACCOUNT_CONFLICT',
              'This e-mail address is already used by another account',
            );
          }
          await insertIdentity(client, holder.id, identity);
          await client.query(`update users set name = $2, updated_at = now() where id = $1 and name = ''`, [
            holder.id,
            identity.name,
          ]);
          return { user: await summaryOf(client, holder.id), isNewUser: false };
        }
        const { rows } = await client.query<{ id: string }>(
          `insert into users (email, email_verified_at, name) values ($1, now(), $2) returning id`,
          [identity.email, identity.name],
        );
        await insertIdentity(client, rows[0]!.id, identity);
        return { user: await summaryOf(client, rows[0]!.id), isNewUser: true };
      }),
    'IDP_ACCOUNT_CONFLICT',
  );
}

async function linkedUser(
  client: PoolClient,
  subject: string,
): Promise<{ id: string; status: string } | null> {
  const { rows } = await client.query<{ id: string; status: string }>(
    `select u.id, u.status from user_identities i join users u on u.id = i.user_id
     where i.provider = $1 and i.subject = $2 for update of u`,
    [PROVIDER, subject],
  );
  return rows[0] ?? null;
}

async function emailHolder(
  client: PoolClient,
  email: string,
): Promise<{ id: string; status: string; emailVerified: boolean; hasIdentity: boolean } | null> {
  const { rows } = await client.query<{
    id: string;
    status: string;
    email_verified: boolean;
    has_identity: boolean;
  }>(
    `select u.id, u.status, u.email_verified_at is not null as email_verified,
            exists (select 1 from user_identities i where i.user_id = u.id) as has_identity
     from users u where lower(u.email) = lower($1) for update`,
    [email],
  );
  const row = rows[0];
  return row
    ? { id: row.id, status: row.status, emailVerified: row.email_verified, hasIdentity: row.has_identity }
    : null;
}

async function insertIdentity(client: PoolClient, userId: string, identity: VerifiedIdentity): Promise<void> {
  await client.query(
    `insert into user_identities (user_id, provider, subject, email) values ($1, $2, $3, $4)`,
    [userId, PROVIDER, identity.subject, identity.email],
  );
}

// ---------------------------------------------------------------------------------------------
// Linking and unlinking on a signed-in account

export interface LinkedIdentity {
  provider: typeof PROVIDER;
  email: string;
  linkedAt: string;
  alreadyLinked: boolean;
}

/**
 * Links a verified subject to the signed-in traveller. Refused when the address belongs to staff,
 * when the subject is linked to another user, when another user holds the address, or when this
 * user already has a different subject. The account's e-mail is filled in (as verified) only when
 * it has none, or marked verified when it is the same address; a different address is kept.
 */
export async function linkIdentity(
  db: Database,
  userId: string,
  identity: VerifiedIdentity,
  nonce: PresentedNonce,
): Promise<LinkedIdentity> {
  return failClosed(
    () =>
      db.transaction(async (client) => {
        await lockIdentityKeys(client, identity);
        await consumeNonce(client, nonce);
        await refuseStaffEmail(client, identity.email);
        const { rows: users } = await client.query<{ email: string | null }>(
          'select email from users where id = $1 for update',
          [userId],
        );
        if (!users[0]) throw new IdentityRefused('ACCOUNT_DISABLED', 'This account no longer exists');
        const { rows: current } = await client.query<{ subject: string; email: string; linked_at: string }>(
          `select subject, email, ${ISO_CREATED_AT} as linked_at from user_identities where user_id = $1 and provider = $2`,
          [userId, PROVIDER],
        );
        if (current[0]) {
          if (current[0].subject !== identity.subject) {
            throw new IdentityRefused(
              'IDP_ALREADY_LINKED',
              'Another identity-provider account is already linked; unlink it first',
            );
          }
          return {
            provider: PROVIDER,
            email: current[0].email,
            linkedAt: current[0].linked_at,
            alreadyLinked: true,
          };
        }
        const elsewhere = await linkedUser(client, identity.subject);
        const holder = await emailHolder(client, identity.email);
        if (elsewhere || (holder && holder.id !== userId)) {
          throw new IdentityRefused(
            'IDP_ACCOUNT_CONFLICT',
            'This identity or e-mail address is already used by another account',
          );
        }
        const { rows } = await client.query<{ linked_at: string }>(
          `insert into user_identities (user_id, provider, subject, email) values ($1, $2, $3, $4) returning ${ISO_CREATED_AT} as linked_at`,
          [userId, PROVIDER, identity.subject, identity.email],
        );
        await client.query(
          `update users set email = coalesce(email, $2),
                  email_verified_at = case when email is null or lower(email) = lower($2) then coalesce(email_verified_at, now())
                                           else email_verified_at end,
                  updated_at = now()
           where id = $1`,
          [userId, identity.email],
        );
        return {
          provider: PROVIDER,
          email: identity.email,
          linkedAt: rows[0]!.linked_at,
          alreadyLinked: false,
        };
      }),
    'IDP_ACCOUNT_CONFLICT',
  );
}

/**
 * Removes the identity-provider subject while another way to sign in remains: a phone (one-time
 * code) or a password with a verified e-mail address (recovery possible). Otherwise the account
 * would be locked out: LAST_SIGN_IN_METHOD.
 */
export async function unlinkIdentity(db: Database, userId: string): Promise<void> {
  await db.transaction(async (client) => {
    const { rows } = await client.query<{ other_method: boolean }>(
      `select phone is not null or (password_hash is not null and email_verified_at is not null) as other_method
       from users where id = $1 for update`,
      [userId],
    );
    const { rowCount } = await client.query(
      'select 1 from user_identities where user_id = $1 and provider = $2',
      [userId, PROVIDER],
    );
    if (!rows[0] || rowCount === 0) {
      throw new IdentityRefused('IDP_IDENTITY_NOT_FOUND', 'No identity-provider account is linked');
    }
    if (!rows[0].other_method) {
      throw new IdentityRefused(
        'LAST_SIGN_IN_METHOD',
        'Add a phone number or a password first; this is your only way to sign in',
      );
    }
    await client.query('delete from user_identities where user_id = $1 and provider = $2', [
      userId,
      PROVIDER,
    ]);
  });
}

// ---------------------------------------------------------------------------------------------
// Completing the phone identity

export interface PhoneCompletion {
  /** The canonical passenger profile the user now points at. */
  passengerId: string;
  /** True when an older traveller record with this phone was merged in. */
  merged: boolean;
  user: TravellerSummary;
}

interface UserRow {
  id: string;
  phone: string | null;
  passenger_id: string | null;
  app_metadata: unknown;
  status: string;
  has_password: boolean;
  has_identity: boolean;
}

interface PassengerRow {
  id: string;
  phone: string | null;
  /** created_at as epoch seconds: which record is older decides the canonical one. */
  created_epoch: number;
  merged_into_id: string | null;
  has_operational_data: boolean;
}

const recovery = () =>
  new IdentityRefused(
    'ACCOUNT_LINK_REQUIRES_RECOVERY',
    'This phone number belongs to another traveller record that cannot be merged automatically; contact support',
  );

/**
 * Gives the signed-in user a phone number whose one-time code was already verified.
 *
 * No traveller record has the number: the user gets it, and a passenger profile if it has none.
 * An older phone traveller record exists (a passengers row with the number, and possibly an old
 * phone-only user) and is safe to merge when
 *   - the old user has no sign-in method of its own besides the phone (no identity-provider
 *     subject, no password), is active, and has the same inventory scope as this user, and
 *   - at most one of the two passenger records carries operational data (today: favorites;
 *     bookings count as soon as they exist);
 * then the older passenger becomes canonical, the other's favorites move to it, the other is
 * marked merged_into_id, the phone moves to this user and the old user (now without any way to
 * sign in) is disabled with its sessions ended. Anything else: ACCOUNT_LINK_REQUIRES_RECOVERY and
 * nothing moves.
 */
export async function completePhone(db: Database, userId: string, phone: string): Promise<PhoneCompletion> {
  return failClosed(
    () =>
      db.transaction(async (client) => {
        await lockKey(client, `phone:${phone}`);
        const users = await lockUsers(client, userId, phone);
        const me = users.find((user) => user.id === userId);
        if (!me) throw new IdentityRefused('ACCOUNT_DISABLED', 'This account no longer exists');
        if (me.phone && me.phone !== phone)
          throw new IdentityRefused('PHONE_ALREADY_SET', 'This account already has another phone number');
        if (me.phone === phone && me.passenger_id) {
          return { passengerId: me.passenger_id, merged: false, user: await summaryOf(client, userId) };
        }
        const oldUser = users.find((user) => user.id !== userId) ?? null;
        const passengers = await lockPassengers(client, phone, [me.passenger_id, oldUser?.passenger_id]);
        const mine = passengers.find((passenger) => passenger.id === me.passenger_id) ?? null;
        const others = passengers.filter((passenger) => passenger.id !== me.passenger_id);
        if (others.length === 0 && !oldUser) {
          const passengerId = await attachPhone(client, userId, phone, mine);
          return { passengerId, merged: false, user: await summaryOf(client, userId) };
        }
        if (others.length > 1) throw recovery();
        const old = others[0] ?? null;
        if (oldUser && !safeToAbsorb(oldUser, me)) throw recovery();
        if (old?.merged_into_id || (old?.has_operational_data && mine?.has_operational_data))
          throw recovery();
        const passengerId = await mergePassengers(client, phone, mine, old);
        if (oldUser) await retireOldUser(client, oldUser.id, passengerId);
        await client.query(
          'update users set phone = $2, passenger_id = $3, updated_at = now() where id = $1',
          [userId, phone, passengerId],
        );
        return { passengerId, merged: true, user: await summaryOf(client, userId) };
      }),
    'ACCOUNT_LINK_REQUIRES_RECOVERY',
  );
}

async function lockUsers(client: PoolClient, userId: string, phone: string): Promise<UserRow[]> {
  const { rows } = await client.query<UserRow>(
    `select u.id, u.phone, u.passenger_id, u.app_metadata, u.status, u.password_hash is not null as has_password,
            exists (select 1 from user_identities i where i.user_id = u.id) as has_identity
     from users u where u.id = $1 or u.phone = $2 order by u.id for update`,
    [userId, phone],
  );
  return rows;
}

/** Operational data a merge must never combine from two records; bookings join here when they exist. */
const HAS_OPERATIONAL_DATA = 'exists (select 1 from favorites f where f.passenger_id = p.id)';

async function lockPassengers(
  client: PoolClient,
  phone: string,
  ids: (string | null | undefined)[],
): Promise<PassengerRow[]> {
  const { rows } = await client.query<PassengerRow>(
    `select p.id, p.phone, extract(epoch from p.created_at)::float8 as created_epoch, p.merged_into_id, ${HAS_OPERATIONAL_DATA} as has_operational_data
     from passengers p where p.phone = $1 or p.id = any($2::uuid[]) order by p.id for update`,
    [phone, ids.filter((id): id is string => Boolean(id))],
  );
  return rows;
}

function sameScope(left: unknown, right: unknown): boolean {
  const a = scopeFromAppMetadata(left);
  const b = scopeFromAppMetadata(right);
  return (
    a !== null &&
    b !== null &&
    JSON.stringify(scopeToAppMetadata(a)) === JSON.stringify(scopeToAppMetadata(b))
  );
}

/** The old user may be folded in only if the phone was its one way in and it saw the same inventory. */
function safeToAbsorb(oldUser: UserRow, me: UserRow): boolean {
  return (
    oldUser.status === 'ACTIVE' &&
    !oldUser.has_identity &&
    !oldUser.has_password &&
    sameScope(oldUser.app_metadata, me.app_metadata)
  );
}

async function attachPhone(
  client: PoolClient,
  userId: string,
  phone: string,
  mine: PassengerRow | null,
): Promise<string> {
  if (mine) {
    await client.query('update passengers set phone = $2, updated_at = now() where id = $1', [
      mine.id,
      phone,
    ]);
    await client.query('update users set phone = $2, updated_at = now() where id = $1', [userId, phone]);
    return mine.id;
  }
  const { rows } = await client.query<{ id: string }>(
    `insert into passengers (phone, name, email) select $2, name, email from users where id = $1 returning id`,
    [userId, phone],
  );
  await client.query('update users set phone = $2, passenger_id = $3, updated_at = now() where id = $1', [
    userId,
    phone,
    rows[0]!.id,
  ]);
  return rows[0]!.id;
}

/** Keeps the older record as canonical, moves the other's favorites to it and marks the other merged. */
async function mergePassengers(
  client: PoolClient,
  phone: string,
  mine: PassengerRow | null,
  old: PassengerRow | null,
): Promise<string> {
  const records = [mine, old].filter((record): record is PassengerRow => record !== null);
  records.sort((a, b) => a.created_epoch - b.created_epoch || a.id.localeCompare(b.id));
  const [canonical, absorbed] = records;
  if (!canonical) {
    const { rows } = await client.query<{ id: string }>(
      `insert into passengers (phone) values ($1) returning id`,
      [phone],
    );
    return rows[0]!.id;
  }
  if (absorbed) {
    await client.query('update favorites set passenger_id = $2 where passenger_id = $1', [
      absorbed.id,
      canonical.id,
    ]);
    await client.query(
      'update passengers set merged_into_id = $2, phone = null, updated_at = now() where id = $1',
      [absorbed.id, canonical.id],
    );
    await client.query('update users set passenger_id = $2, updated_at = now() where passenger_id = $1', [
      absorbed.id,
      canonical.id,
    ]);
  }
  await client.query('update passengers set phone = $2, updated_at = now() where id = $1', [
    canonical.id,
    phone,
  ]);
  return canonical.id;
}

/**
 * The old user's contact e-mail (it had no password, so it was no way in) is kept on the canonical
 * profile and released from the disabled row, so a later identity-provider sign-in with that
 * address is not caught by an account nobody can use.
 */
async function retireOldUser(client: PoolClient, oldUserId: string, passengerId: string): Promise<void> {
  await client.query(
    `update passengers p set email = u.email, updated_at = now()
     from users u where u.id = $1 and p.id = $2 and p.email is null and u.email is not null`,
    [oldUserId, passengerId],
  );
  await client.query(
    `update users set phone = null, email = null, email_verified_at = null, passenger_id = $2, status = 'DISABLED',
            updated_at = now()
     where id = $1`,
    [oldUserId, passengerId],
  );
  await client.query(
    `update traveller_sessions set revoked_at = now(), revoked_reason = 'ACCOUNT_MERGED' where user_id = $1 and revoked_at is null`,
    [oldUserId],
  );
}
