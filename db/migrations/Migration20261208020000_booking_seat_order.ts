import { Migration } from '@mikro-orm/migrations';

/**
 * A booking's seat_numbers list its travellers' seats in traveller order: the i-th traveller's
 * seat i-th, the order the tickets seat them in (traveller_index) and PATCH /bookings/{id} modify's
 * newSeatNumbers speaks in. A journey's confirmation (db/writes/journeys/confirm.ts) stored them in
 * the order the held seats were read instead, so a family that chose seats 3, 2 and 1 had tickets
 * seating its travellers in 1, 2 and 3 while the booking said 3, 2, 1; GET /bookings/{id} showed
 * the two orders side by side (seat_numbers next to the tickets' traveller_name and seat_number).
 * The confirmation stores them in traveller order now, and modify compares a request with the seats
 * the travellers hold (their tickets), not with the row.
 *
 * Existing data: a booking with current tickets on its trip takes its tickets' seats in traveller
 * order when they are the same labels as its row's, in another order. Any other booking is left as
 * it is (one without tickets has no traveller order; labels that differ are not this defect).
 * updated_at is left alone: the booking did not change, only the order its seats are listed in.
 */
export const BOOKING_SEAT_ORDER = `
  update bookings b set seat_numbers = s.seats
    from (select x.id, array_agg(k.seat_number order by k.leg_sequence, k.traveller_index) as seats
            from bookings x
            join journey_tickets k on k.journey_id = x.journey_id and k.trip_id = x.trip_id
                                  and k.company_id = x.company_id and k.status <> 'REISSUED'
           group by x.id) s
   where s.id = b.id and s.seats <> b.seat_numbers
     and (select array_agg(v order by v) from unnest(s.seats) v) = (select array_agg(v order by v) from unnest(b.seat_numbers) v)`;

export class Migration20261208020000_booking_seat_order extends Migration {
  override up(): void {
    this.addSql(BOOKING_SEAT_ORDER);
  }

  override down(): void {
    // The order replaced was the order the held seats happened to be read in: nothing to restore.
  }
}
