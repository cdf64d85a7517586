import type { Database } from '../../db/orm.js';
import type { JourneyTrip } from './journey-rows.js';

/**
 * An imported legacy booking (no journey, no tickets) as the import leaves it: keyed by the
 * traveller's canonical passenger profile (bookings.passenger_id), with no owner_user_id. It is the
 * traveller's own booking on every traveller surface (GET /bookings, documents, shares, payments).
 */
export async function legacyPassengerBooking(
  db: Database,
  options: {
    trip: Pick<JourneyTrip, 'id' | 'companyId'>;
    passengerId: string;
    status?: 'CONFIRMED' | 'CHECKED_IN' | 'NO_SHOW' | 'COMPLETED' | 'CANCELLED';
    totalPrice?: number;
  },
): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `insert into bookings (booking_code, company_id, trip_id, passenger_id, passenger_name, passenger_phone,
                           seats_count, seat_numbers, status, payment_status, total_price, discount)
     values ('BK-LEGACY-' || substr(md5(random()::text), 1, 8), $1, $2, $3, 'Legacy Traveller',
             '+963944000001', 1, array['1'], $4, 'UNPAID', $5, 0) returning id`,
    [
      options.trip.companyId,
      options.trip.id,
      options.passengerId,
      options.status ?? 'CONFIRMED',
      options.totalPrice ?? 10_000,
    ],
  );
  return row!.id;
}
