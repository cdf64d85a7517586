import type { PoolClient } from 'pg';
import type { Database } from '../orm.js';

/** The signed-in traveller as GET /auth/customer/me shows it (SPEC "Customer user"). */
export interface CustomerUser {
  id: string;
  phone: string | null;
  name: string;
  email: string | null;
  gender: string;
  nationalId: string;
  created_at: string;
}

interface CustomerUserRow {
  id: string;
  phone: string | null;
  name: string;
  email: string | null;
  gender: string | null;
  national_id: string | null;
  /** ISO 8601 UTC (formatted in SQL). */
  created_at: string;
}

const toCustomerUser = (row: CustomerUserRow): CustomerUser => ({
  id: row.id,
  phone: row.phone,
  name: row.name,
  email: row.email,
  gender: row.gender ?? '',
  nationalId: row.national_id ?? '',
  created_at: row.created_at,
});

/**
 * The account (users) with its traveller profile (passengers): the profile's name wins once it
 * has one, because bookings and the profile page edit it there. Null for a missing or disabled
 * account.
 */
export async function findCustomerUser(db: Database, userId: string): Promise<CustomerUser | null> {
  const [row] = await db.query<CustomerUserRow>(
    `select u.id, u.phone, coalesce(nullif(p.name, ''), u.name) as name, u.email,
            p.gender, p.national_id,
            to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at
     from users u left join passengers p on p.id = u.passenger_id
     where u.id = $1 and u.status = 'ACTIVE'`,
    [userId],
  );
  return row ? toCustomerUser(row) : null;
}

/** The account as a sign-in answer shows it. */
export interface UserSummary {
  id: string;
  phone: string | null;
  name: string;
  email: string | null;
}

interface UserSummaryRow {
  id: string;
  phone: string | null;
  name: string;
  email: string | null;
}

const toUserSummary = (row: UserSummaryRow): UserSummary => ({
  id: row.id,
  phone: row.phone,
  name: row.name,
  email: row.email,
});

/**
 * The account's own name, phone and e-mail (undefined when there is no such account), read by the
 * pool or inside the transaction of a sign-in (a password reset reads it with its session).
 */
export async function findUserSummary(
  sql: Pick<PoolClient, 'query'>,
  userId: string,
): Promise<UserSummary | undefined> {
  const { rows } = await sql.query<UserSummaryRow>('select id, phone, name, email from users where id = $1', [
    userId,
  ]);
  const row = rows[0];
  return row && toUserSummary(row);
}
