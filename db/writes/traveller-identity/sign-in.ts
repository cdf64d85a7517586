import type { PoolClient } from 'pg';
import { addressHolderOutcome, linkedAccountRefusal } from '../../../domain/traveller-identity.js';
import type { RequestOrigin } from '../audit.js';
import type { Database } from '../../orm.js';
import {
  emailHolder,
  identityTransaction,
  linkedUser,
  PROVIDER,
  recordClaimReleased,
  refuseStaffEmail,
  releaseUnprovenClaim,
  summaryOf,
  type TravellerSummary,
  type VerifiedIdentity,
} from './accounts.js';
import type { PresentedNonce } from './nonces.js';

export interface IdpSignIn {
  user: TravellerSummary;
  isNewUser: boolean;
}

/**
 * Finds or creates the traveller for a verified identity, in one transaction:
 *   1. the subject is already linked → that user (refused if the account is disabled), whatever
 *      holds its address now;
 *   2. else an address of company staff or administrators → IDP_STAFF_ACCOUNT_CONFLICT;
 *   3. else a traveller whose own e-mail is that address and verified, with no identity-provider
 *      subject yet (a phone traveller, or an e-mail and password account) → the subject is added
 *      to that same user; its password and phone are not touched;
 *   4. else an account that unlinked this very subject, or holds the address verified but linked
 *      to another subject or disabled → IDP_ACCOUNT_CONFLICT;
 *   5. else a new user with the verified e-mail, no phone and no passenger profile yet; an account
 *      that held the address unverified gives it up first (releaseUnprovenClaim, with an audit row
 *      carrying `origin`, the request's IP and id).
 * Any conflict refuses the whole operation: nothing is written and no parallel account appears.
 * The session is started last (`start`) in the same transaction, so the nonce is spent and a new
 * account kept only with it.
 */
export async function signInWithIdentity<Session>(
  db: Database,
  identity: VerifiedIdentity,
  nonce: PresentedNonce | undefined,
  origin: RequestOrigin,
  start: (client: PoolClient, signIn: IdpSignIn) => Promise<Session>,
): Promise<IdpSignIn & { session: Session }> {
  return identityTransaction(db, identity, nonce, async (client) => {
    const signIn = await findOrCreateTraveller(client, identity, origin);
    return { ...signIn, session: await start(client, signIn) };
  });
}

async function findOrCreateTraveller(
  client: PoolClient,
  identity: VerifiedIdentity,
  origin: RequestOrigin,
): Promise<IdpSignIn> {
  const linked = await linkedUser(client, identity.subject);
  if (linked) {
    const refusal = linkedAccountRefusal(linked);
    if (refusal) throw refusal;
    await client.query('update user_identities set email = $3 where provider = $1 and subject = $2', [
      PROVIDER,
      identity.subject,
      identity.email,
    ]);
    return { user: await summaryOf(client, linked.id), isNewUser: false };
  }
  await refuseStaffEmail(client, identity.email);
  const holder = await emailHolder(client, identity.email);
  if (holder) {
    const outcome = addressHolderOutcome(holder, await unlinkedBy(client, holder.id, identity.subject));
    if (outcome.kind === 'refuse') throw outcome.refusal;
    if (outcome.kind === 'join') return joinHolder(client, holder.id, identity);
    await releaseUnprovenClaim(client, holder.id, identity.email);
  }
  const userId = await insertUser(client, identity);
  await insertIdentity(client, userId, identity);
  if (holder) {
    await recordClaimReleased(
      client,
      { holderId: holder.id, email: identity.email, byUserId: userId },
      origin,
    );
  }
  return { user: await summaryOf(client, userId), isNewUser: true };
}

/** Adds the subject to the account whose own verified address it is (its name only when it has none). */
async function joinHolder(
  client: PoolClient,
  holderId: string,
  identity: VerifiedIdentity,
): Promise<IdpSignIn> {
  await insertIdentity(client, holderId, identity);
  await client.query(`update users set name = $2, updated_at = now() where id = $1 and name = ''`, [
    holderId,
    identity.name,
  ]);
  return { user: await summaryOf(client, holderId), isNewUser: false };
}

interface IdRow {
  id: string;
}

/**
 * Whether the account unlinked this subject (and has not linked it again since): read once the
 * account's row is ours, as the unlink writes the record holding that row (link.ts).
 */
async function unlinkedBy(client: PoolClient, userId: string, subject: string): Promise<boolean> {
  const { rowCount } = await client.query(
    'select 1 from unlinked_identities where user_id = $1 and provider = $2 and subject = $3',
    [userId, PROVIDER, subject],
  );
  return rowCount !== 0;
}

async function insertUser(client: PoolClient, identity: VerifiedIdentity): Promise<string> {
  const { rows } = await client.query<IdRow>(
    `insert into users (email, email_verified_at, name) values ($1, now(), $2) returning id`,
    [identity.email, identity.name],
  );
  return rows[0]!.id;
}

async function insertIdentity(client: PoolClient, userId: string, identity: VerifiedIdentity): Promise<void> {
  await client.query(
    `insert into user_identities (user_id, provider, subject, email) values ($1, $2, $3, $4)`,
    [userId, PROVIDER, identity.subject, identity.email],
  );
}
