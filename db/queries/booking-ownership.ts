import type { BookingTraveller } from '../../domain/booking-ownership.js';
import type { Database } from '../orm.js';

/**
 * SQL boolean: the bookings row `booking` (an alias) is the traveller's whose user id is the SQL
 * expression `user` (a parameter such as `$1`): they own it, or it was made for their canonical
 * passenger profile (an imported legacy booking has only the passenger). The SQL form of
 * domain/booking-ownership.ts ownsBooking, the one rule of every traveller surface; both columns
 * are indexed (bookings_owner_idx, bookings_passenger_idx).
 */
export const ownBookingSql = (user: string, booking = 'b') =>
  `(${booking}.owner_user_id = ${user} or ${booking}.passenger_id = (select u.passenger_id from users u where u.id = ${user}))`;

/**
 * The signed-in traveller as ownsBooking weighs them: their canonical passenger profile read now
 * (a phone merge repoints it), null for an unknown user.
 */
export async function bookingTraveller(db: Database, userId: string): Promise<BookingTraveller> {
  const [row] = await db.query<{ passenger_id: string | null }>(
    `select passenger_id from users where id = $1`,
    [userId],
  );
  return { userId, passengerId: row?.passenger_id ?? null };
}
