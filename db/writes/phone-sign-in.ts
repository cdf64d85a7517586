import type { PoolClient } from 'pg';
import { scopeToAppMetadata } from '../../domain/inventory-scope.js';
import type { Database } from '../orm.js';
import { DEMO_TRAVELLERS, demoTravellerScope } from '../seed/demo-identities.js';
import type { SpendCode } from './otp-challenges.js';
import { lockKey } from './traveller-identity/accounts.js';

/**
 * The account behind a phone number whose one-time code was just verified: the existing user, or
 * a new passenger profile plus user (pointing at it) created in one transaction, the one that
 * spends the code and starts the session.
 *
 * Inventory scope is server-side metadata only: the reserved demo numbers get their persona's
 * app_metadata each time they sign in; nothing from the request reaches app_metadata.
 */

export interface PhoneSignIn {
  user: { id: string; phone: string | null; name: string; email: string | null };
  isNewUser: boolean;
  /** An e-mail address is on the account and not verified yet. */
  emailVerificationPending: boolean;
  active: boolean;
}

export interface PhoneSignInInput {
  phone: string;
  /** Used only when the account is created. */
  name?: string;
  /** Used only when the account is created; kept on the account only while no other account holds it. */
  email?: string;
}

/** The app_metadata a reserved demo number always carries, or null for every other number. */
export function reservedAppMetadata(phone: string): Record<string, string> | null {
  const persona = DEMO_TRAVELLERS.find((traveller) => traveller.phone === phone);
  return persona ? scopeToAppMetadata(demoTravellerScope(persona)) : null;
}

interface IdRow {
  id: string;
}

interface UserRow {
  id: string;
  phone: string | null;
  name: string;
  email: string | null;
  email_verified: boolean;
  passenger_id: string | null;
  status: string;
}

/** What a code sign-in does in its transaction besides finding or creating the account. */
export interface PhoneSignInSteps<Session> {
  /** Uses the one-time code up, first (api/auth/otp.ts checkOtp). */
  spend: SpendCode;
  /** Starts the session of the account found or created, last (or refuses it: nothing is kept). */
  start: (client: PoolClient, signIn: PhoneSignIn) => Promise<Session>;
}

/**
 * Signs in with a verified code in one transaction: the code is spent, the account found or
 * created and the session started together, so a refusal or a failure of any of them leaves the
 * code usable and creates no account (the retry is still a new user's sign-in).
 */
export async function signInByPhone<Session>(
  db: Database,
  input: PhoneSignInInput,
  steps: PhoneSignInSteps<Session>,
): Promise<PhoneSignIn & { session: Session }> {
  return db.transaction(async (client) => {
    await steps.spend(client);
    const signIn = await signInByPhoneWithin(client, input);
    return { ...signIn, session: await steps.start(client, signIn) };
  });
}

/** The same inside the caller's transaction (the demo seed runs in one). */
export async function signInByPhoneWithin(client: PoolClient, input: PhoneSignInInput): Promise<PhoneSignIn> {
  const metadata = reservedAppMetadata(input.phone);
  // The same key the phone-completion flow locks: one phone, one account, whoever comes first.
  await lockKey(client, `phone:${input.phone}`);
  const existing = await userByPhone(client, input.phone);
  if (existing) {
    if (metadata)
      await client.query('update users set app_metadata = $2 where id = $1', [
        existing.id,
        JSON.stringify(metadata),
      ]);
    if (!existing.passenger_id)
      await attachPassenger(client, existing.id, input.phone, existing.name, existing.email);
    return outcome(existing, false);
  }
  const name = input.name ?? '';
  const email = input.email && (await emailIsFree(client, input.email)) ? input.email : null;
  const passengerId = await passengerFor(client, input.phone, name, input.email ?? null);
  const { rows } = await client.query<IdRow>(
    `insert into users (phone, name, email, passenger_id, app_metadata) values ($1, $2, $3, $4, $5) returning id`,
    [input.phone, name, email, passengerId, JSON.stringify(metadata ?? {})],
  );
  return outcome(await userById(client, rows[0]!.id), true);
}

function outcome(row: UserRow, isNewUser: boolean): PhoneSignIn {
  return {
    user: { id: row.id, phone: row.phone, name: row.name, email: row.email },
    isNewUser,
    emailVerificationPending: row.email !== null && !row.email_verified,
    active: row.status === 'ACTIVE',
  };
}

const USER_COLUMNS = `id, phone, name, email, email_verified_at is not null as email_verified, passenger_id, status`;

async function userByPhone(client: PoolClient, phone: string): Promise<UserRow | null> {
  const { rows } = await client.query<UserRow>(
    `select ${USER_COLUMNS} from users where phone = $1 for update`,
    [phone],
  );
  return rows[0] ?? null;
}

async function userById(client: PoolClient, id: string): Promise<UserRow> {
  const { rows } = await client.query<UserRow>(`select ${USER_COLUMNS} from users where id = $1`, [id]);
  return rows[0]!;
}

/**
 * Sign-up never takes an address another account holds (the unique index would refuse it); the
 * address is still kept on the traveller profile as contact data.
 */
async function emailIsFree(client: PoolClient, email: string): Promise<boolean> {
  await lockKey(client, `email:${email.toLowerCase()}`);
  const { rows } = await client.query('select 1 from users where lower(email) = lower($1)', [email]);
  return rows.length === 0;
}

/**
 * The passenger profile of this phone: an earlier record with the number (a traveller known
 * before signing up, now proven to own it) or a new one.
 */
async function passengerFor(
  client: PoolClient,
  phone: string,
  name: string,
  email: string | null,
): Promise<string> {
  const { rows } = await client.query<IdRow>(
    `insert into passengers (phone, name, email) values ($1, $2, $3)
     on conflict (phone) do update set
       name = case when passengers.name = '' then excluded.name else passengers.name end,
       email = coalesce(passengers.email, excluded.email),
       updated_at = now()
     returning id`,
    [phone, name, email],
  );
  return rows[0]!.id;
}

async function attachPassenger(
  client: PoolClient,
  userId: string,
  phone: string,
  name: string,
  email: string | null,
): Promise<void> {
  const passengerId = await passengerFor(client, phone, name, email);
  await client.query('update users set passenger_id = $2, updated_at = now() where id = $1', [
    userId,
    passengerId,
  ]);
}
