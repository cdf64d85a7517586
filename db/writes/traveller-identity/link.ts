import type { PoolClient } from 'pg';
import { Refusal } from '../../../domain/refusal.js';
import {
  accountGone,
  linkRefusal,
  releasesClaim,
  unlinkRefusal,
} from '../../../domain/traveller-identity.js';
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
  type VerifiedIdentity,
} from './accounts.js';
import type { PresentedNonce } from './nonces.js';

export interface LinkedIdentity {
  provider: typeof PROVIDER;
  email: string;
  linkedAt: string;
  alreadyLinked: boolean;
}

const ISO_CREATED_AT = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

interface CurrentIdentityRow {
  subject: string;
  email: string;
  /** ISO 8601 UTC (formatted in SQL). */
  linked_at: string;
}

interface LinkedAtRow {
  linked_at: string;
}

interface StatusRow {
  status: string;
}

/**
 * Links a verified subject to the signed-in traveller, in one transaction. Refused when the
 * address belongs to staff (unless the subject is the one already linked here), when the subject
 * is linked to another user, when another user holds the address verified, or when this user
 * already has a different subject; and when the account is no longer active once its row is
 * locked (401 AUTH_REQUIRED: a phone merge retired it while this waited), so no subject lands on an
 * account nobody can sign in to. Another user that holds the address unverified gives it up, in
 * the same transaction (releaseUnprovenClaim, with an audit row carrying `origin`, the request's IP
 * and id). The account's e-mail is filled in (as verified) only when it has none, or marked
 * verified when it is the same address; a different address is kept. Linking a subject the
 * account once unlinked is the traveller's own choice: the record that kept it from signing in
 * (unlinkIdentity) is removed.
 */
export async function linkIdentity(
  db: Database,
  userId: string,
  identity: VerifiedIdentity,
  nonce: PresentedNonce,
  origin: RequestOrigin,
): Promise<LinkedIdentity> {
  return identityTransaction(db, identity, nonce, async (client) => {
    const { rows: users } = await client.query<StatusRow>(
      'select status from users where id = $1 for update',
      [userId],
    );
    if (!users[0]) throw accountGone();
    // No longer ACTIVE once its row is ours: merged into another while this waited (complete-phone
    // disables it and ends its sessions, holding the row). 401 AUTH_REQUIRED, as the same request
    // gets a moment later and as lockActiveTraveller (db/writes/inventory-caps.ts) answers.
    if (users[0].status !== 'ACTIVE') throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to continue');
    const { rows: current } = await client.query<CurrentIdentityRow>(
      `select subject, email, ${ISO_CREATED_AT} as linked_at from user_identities where user_id = $1 and provider = $2`,
      [userId, PROVIDER],
    );
    const linked = current[0] ?? null;
    if (linked?.subject !== identity.subject) await refuseStaffEmail(client, identity.email);
    // Only a new link needs the other accounts (and their row locks).
    const elsewhere = linked ? null : await linkedUser(client, identity.subject);
    const holder = linked ? null : await emailHolder(client, identity.email);
    const refusal = linkRefusal({
      userId,
      subject: identity.subject,
      currentSubject: linked?.subject ?? null,
      linkedElsewhere: elsewhere !== null,
      emailHolder: holder,
    });
    if (refusal) throw refusal;
    if (linked) {
      return { provider: PROVIDER, email: linked.email, linkedAt: linked.linked_at, alreadyLinked: true };
    }
    const releasedFrom = releasesClaim(userId, holder);
    if (releasedFrom) {
      await releaseUnprovenClaim(client, releasedFrom, identity.email);
      await recordClaimReleased(
        client,
        { holderId: releasedFrom, email: identity.email, byUserId: userId },
        origin,
      );
    }
    const linkedAt = await insertLinkedIdentity(client, userId, identity);
    return { provider: PROVIDER, email: identity.email, linkedAt, alreadyLinked: false };
  });
}

async function insertLinkedIdentity(
  client: PoolClient,
  userId: string,
  identity: VerifiedIdentity,
): Promise<string> {
  const { rows } = await client.query<LinkedAtRow>(
    `insert into user_identities (user_id, provider, subject, email) values ($1, $2, $3, $4) returning ${ISO_CREATED_AT} as linked_at`,
    [userId, PROVIDER, identity.subject, identity.email],
  );
  await client.query(
    'delete from unlinked_identities where user_id = $1 and provider = $2 and subject = $3',
    [userId, PROVIDER, identity.subject],
  );
  await client.query(
    `update users set email = coalesce(email, $2),
            email_verified_at = case when email is null or lower(email) = lower($2) then coalesce(email_verified_at, now())
                                     else email_verified_at end,
            updated_at = now()
     where id = $1`,
    [userId, identity.email],
  );
  return rows[0]!.linked_at;
}

interface SignInMethodsRow {
  has_phone: boolean;
  has_password: boolean;
  email_verified: boolean;
}

/**
 * Removes the identity-provider subject while another way to sign in remains; otherwise the
 * account would be locked out: LAST_SIGN_IN_METHOD. The subject is remembered as unlinked: the
 * account keeps the address the link verified, and sign-in would otherwise add the subject back to
 * the account by that address (sign-in.ts, step 2).
 */
export async function unlinkIdentity(db: Database, userId: string): Promise<void> {
  await db.transaction(async (client) => {
    const { rows } = await client.query<SignInMethodsRow>(
      `select phone is not null as has_phone, password_hash is not null as has_password,
              email_verified_at is not null as email_verified
       from users where id = $1 for update`,
      [userId],
    );
    const { rowCount } = await client.query(
      'select 1 from user_identities where user_id = $1 and provider = $2',
      [userId, PROVIDER],
    );
    const methods = rows[0];
    const account = methods
      ? {
          hasPhone: methods.has_phone,
          hasPassword: methods.has_password,
          emailVerified: methods.email_verified,
        }
      : null;
    const refusal = unlinkRefusal(account, rowCount !== 0);
    if (refusal) throw refusal;
    await forgetLink(client, userId);
  });
}

/** Deletes the account's link and records its subject as unlinked (unlinking it again moves the time). */
async function forgetLink(client: PoolClient, userId: string): Promise<void> {
  await client.query(
    `with unlinked as (
       delete from user_identities where user_id = $1 and provider = $2 returning user_id, provider, subject
     )
     insert into unlinked_identities (user_id, provider, subject)
     select user_id, provider, subject from unlinked
     on conflict (user_id, provider, subject) do update set unlinked_at = now()`,
    [userId, PROVIDER],
  );
}
