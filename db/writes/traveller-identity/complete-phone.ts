import type { PoolClient } from 'pg';
import {
  accountGone,
  completedProfile,
  phoneOwnerRefusal,
  planPhoneCompletion,
  type PhoneAccount,
  type TravellerRecord,
} from '../../../domain/traveller-identity.js';
import type { Database } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import type { SpendCode } from '../otp-challenges.js';
import { failClosed, lockKey, summaryOf, type TravellerSummary } from './accounts.js';
import {
  ACCOUNT_HAS_OPERATIONAL_DATA,
  lockIdleLoyaltyAccounts,
  moveAccountData,
  moveProfileData,
  PROFILE_HAS_OPERATIONAL_DATA,
} from './traveller-data.js';

export interface PhoneCompletion {
  /** The canonical passenger profile the user now points at. */
  passengerId: string;
  /** True when an older traveller record with this phone was merged in. */
  merged: boolean;
  user: TravellerSummary;
}

/**
 * Gives the signed-in user a phone number whose one-time code was already verified, in one
 * transaction, by the rule of domain/traveller-identity.ts (planPhoneCompletion). A merge keeps
 * the older profile as canonical, moves what hangs on the other one to it and marks it
 * merged_into_id, gives this user everything the old user did (journeys, bookings, loyalty, ...:
 * traveller-data.ts), moves the phone to this user, and disables the old user (now without any way
 * to sign in) with its sessions ended. The one-time code is spent first in the same transaction
 * (`spend`, api/auth/otp.ts checkOtp): a refusal or a failure leaves everything as it was, the code
 * still usable.
 */
export async function completePhone(
  db: Database,
  userId: string,
  phone: string,
  spend: SpendCode,
): Promise<PhoneCompletion> {
  // It locks the users before their journeys, where a confirm in flight locks them the other way
  // round: PostgreSQL aborts one of the two, and the merge then runs again from the start.
  return failClosed(
    () =>
      withDeadlockRetry(() =>
        db.transaction(async (client) => {
          await spend(client);
          await lockKey(client, `phone:${phone}`);
          const users = await lockUsers(client, userId, phone);
          const me = users.find((user) => user.id === userId);
          if (!me) throw accountGone();
          const refusal = phoneOwnerRefusal(me, phone);
          if (refusal) throw refusal;
          const completed = completedProfile(me, phone);
          if (completed)
            return { passengerId: completed, merged: false, user: await summaryOf(client, userId) };
          const oldUser = users.find((user) => user.id !== userId) ?? null;
          const records = await lockPassengers(client, phone, [me.passengerId, oldUser?.passengerId]);
          const plan = planPhoneCompletion({ me, oldUser, records });
          if (plan.kind === 'attach') {
            const passengerId = await attachPhone(client, userId, phone, plan.mine);
            return { passengerId, merged: false, user: await summaryOf(client, userId) };
          }
          await weighAgainWithIdleLoyalty(client, userId, users, records);
          if (plan.oldUserId) await moveAccountData(client, plan.oldUserId, userId);
          const passengerId = await mergePassengers(client, phone, plan.canonical, plan.absorbed);
          if (plan.oldUserId) await retireOldUser(client, plan.oldUserId, passengerId);
          await client.query(
            'update users set phone = $2, passenger_id = $3, updated_at = now() where id = $1',
            [userId, phone, passengerId],
          );
          return { passengerId, merged: true, user: await summaryOf(client, userId) };
        }),
      ),
    'ACCOUNT_LINK_REQUIRES_RECOVERY',
  );
}

interface PhoneAccountRow {
  id: string;
  phone: string | null;
  passenger_id: string | null;
  app_metadata: unknown;
  status: string;
  has_password: boolean;
  has_identity: boolean;
  email_verified: boolean;
  has_operational_data: boolean;
}

interface IdRow {
  id: string;
}

const idsOf = (rows: readonly IdRow[]): string[] => rows.map((row) => row.id);

const toPhoneAccount = (row: PhoneAccountRow): PhoneAccount => ({
  id: row.id,
  phone: row.phone,
  passengerId: row.passenger_id,
  appMetadata: row.app_metadata,
  status: row.status,
  hasPassword: row.has_password,
  hasIdentity: row.has_identity,
  emailVerified: row.email_verified,
  hasOperationalData: row.has_operational_data,
});

/**
 * This user and the one that has the number, locked; what they did is read once both rows are
 * ours (a later statement, so it sees every insert that held either row before us, and none can
 * start until we end).
 */
async function lockUsers(client: PoolClient, userId: string, phone: string): Promise<PhoneAccount[]> {
  const { rows: locked } = await client.query<IdRow>(
    'select u.id from users u where u.id = $1 or u.phone = $2 order by u.id for update',
    [userId, phone],
  );
  return weighUsers(client, idsOf(locked));
}

async function weighUsers(client: PoolClient, userIds: string[]): Promise<PhoneAccount[]> {
  const { rows } = await client.query<PhoneAccountRow>(
    `select u.id, u.phone, u.passenger_id, u.app_metadata, u.status, u.password_hash is not null as has_password,
            u.email_verified_at is not null as email_verified,
            exists (select 1 from user_identities i where i.user_id = u.id) as has_identity,
            ${ACCOUNT_HAS_OPERATIONAL_DATA} as has_operational_data
     from users u where u.id = any($1::uuid[]) order by u.id`,
    [userIds],
  );
  return rows.map(toPhoneAccount);
}

interface TravellerRecordRow {
  id: string;
  created_epoch: number;
  merged_into_id: string | null;
  has_operational_data: boolean;
}

const toTravellerRecord = (row: TravellerRecordRow): TravellerRecord => ({
  id: row.id,
  createdEpoch: row.created_epoch,
  mergedIntoId: row.merged_into_id,
  hasOperationalData: row.has_operational_data,
});

/** The profiles with the number or of either user, locked, then what hangs on them (as for the users). */
async function lockPassengers(
  client: PoolClient,
  phone: string,
  ids: (string | null | undefined)[],
): Promise<TravellerRecord[]> {
  const { rows: locked } = await client.query<IdRow>(
    'select p.id from passengers p where p.phone = $1 or p.id = any($2::uuid[]) order by p.id for update',
    [phone, ids.filter((id): id is string => Boolean(id))],
  );
  return weighPassengers(client, idsOf(locked));
}

async function weighPassengers(client: PoolClient, passengerIds: string[]): Promise<TravellerRecord[]> {
  const { rows } = await client.query<TravellerRecordRow>(
    `select p.id, extract(epoch from p.created_at)::float8 as created_epoch, p.merged_into_id,
            ${PROFILE_HAS_OPERATIONAL_DATA} as has_operational_data
     from passengers p where p.id = any($1::uuid[]) order by p.id`,
    [passengerIds],
  );
  return rows.map(toTravellerRecord);
}

/**
 * Before anything moves: the loyalty accounts of both users, and of the profiles weighed without
 * operational data, are locked (lockIdleLoyaltyAccounts: a referral naming one of them, or points
 * posted to it, may have been under way; any empty one may be the account a move deletes, on either
 * side, a side with operational data elsewhere included), and when there are any the same users and
 * profiles are weighed again by the same rule, which refuses (409 ACCOUNT_LINK_REQUIRES_RECOVERY,
 * nothing moved) once such an account is no longer idle and the other side has operational data
 * too. The moves that follow are later statements: an account that became a referrer is no longer
 * idle for them, so it moves instead of being deleted. Nothing else the rule reads can change
 * meanwhile (the users and profiles are ours), so a plan that passes again is the same plan.
 */
async function weighAgainWithIdleLoyalty(
  client: PoolClient,
  userId: string,
  users: PhoneAccount[],
  records: TravellerRecord[],
): Promise<void> {
  const locked = await lockIdleLoyaltyAccounts(
    client,
    idsOf(users),
    records.filter((record) => !record.hasOperationalData).map((record) => record.id),
  );
  if (!locked) return;
  const again = await weighUsers(client, idsOf(users));
  planPhoneCompletion({
    me: again.find((user) => user.id === userId)!,
    oldUser: again.find((user) => user.id !== userId) ?? null,
    records: await weighPassengers(client, idsOf(records)),
  });
}

async function attachPhone(
  client: PoolClient,
  userId: string,
  phone: string,
  mine: TravellerRecord | null,
): Promise<string> {
  if (mine) {
    await client.query('update passengers set phone = $2, updated_at = now() where id = $1', [
      mine.id,
      phone,
    ]);
    await client.query('update users set phone = $2, updated_at = now() where id = $1', [userId, phone]);
    return mine.id;
  }
  const { rows } = await client.query<IdRow>(
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

/** Keeps the canonical record (a new one when there is none), moving what hangs on the absorbed one to it. */
async function mergePassengers(
  client: PoolClient,
  phone: string,
  canonical: TravellerRecord | null,
  absorbed: TravellerRecord | null,
): Promise<string> {
  if (!canonical) {
    const { rows } = await client.query<IdRow>(`insert into passengers (phone) values ($1) returning id`, [
      phone,
    ]);
    return rows[0]!.id;
  }
  if (absorbed) {
    await moveProfileData(client, absorbed.id, canonical.id);
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
 * The old user's contact e-mail (never verified, so it was no way in: a verified one refuses the
 * merge) is kept on the canonical profile and released from the disabled row, so a later
 * identity-provider sign-in with that address is not caught by an account nobody can use.
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
