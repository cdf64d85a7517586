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

/**
 * The account (users) with its traveller profile (passengers): the profile's name wins once it
 * has one, because bookings and the profile page edit it there. Null for a missing or disabled
 * account.
 */
export async function findCustomerUser(db: Database, userId: string): Promise<CustomerUser | null> {
  const [row] = await db.query<{
    id: string;
    phone: string | null;
    name: string;
    email: string | null;
    gender: string | null;
    national_id: string | null;
    created_at: string;
  }>(
    `select u.id, u.phone, coalesce(nullif(p.name, ''), u.name) as name, u.email,
            p.gender, p.national_id,
            to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at
     from users u left join passengers p on p.id = u.passenger_id
     where u.id = $1 and u.status = 'ACTIVE'`,
    [userId],
  );
  if (!row) return null;
  return {
    id: row.id,
    phone: row.phone,
    name: row.name,
    email: row.email,
    gender: row.gender ?? '',
    nationalId: row.national_id ?? '',
    created_at: row.created_at,
  };
}
