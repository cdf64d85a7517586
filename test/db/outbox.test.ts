import { describe, expect, it } from 'vitest';
import { recordTripEvent, withBookingEvents } from '../../db/writes/outbox.js';
import { useTestApp } from '../support/harness.js';
import { createCorridor } from '../support/factories.js';
import { completedBooking } from '../support/loyalty.js';

describe('outbox: booking events recorded with the change that causes them', () => {
  const app = useTestApp();

  it("records SPEC's data for each booking (passenger_count its seats), and nothing when the transaction rolls back", async () => {
    const { company, trip } = await createCorridor(app.db);
    const traveller = await app.signIn();
    // Three seats: passenger_count is the booking's seats, not one per booking.
    const bookingId = await completedBooking(
      app.db,
      { tripId: trip.id, companyId: company.id },
      traveller.userId,
      { seats: 3, totalPrice: 75_000 },
    );
    const [booking] = await app.db.query<{ booking_code: string; trip_id: string; total_price: string }>(
      'select booking_code, trip_id, total_price from bookings where id = $1',
      [bookingId],
    );
    await app.db
      .transaction(async (client) => {
        await client.query(
          withBookingEvents(`update bookings set status = 'CANCELLED', updated_at = now() where id = $1`, [
            'booking.cancelled',
          ]),
          [bookingId],
        );
        throw new Error('the change failed');
      })
      .catch(() => undefined);
    expect(await app.db.query('select 1 from outbox_events where booking_id = $1', [bookingId])).toEqual([]);

    const recorded = await app.db.transaction((client) =>
      recordTripEvent(client, booking!.trip_id, 'COMPLETE'),
    );
    // The trip's one booking: one event, with its data exactly.
    expect(recorded).toBe(1);
    const events = await app.db.query<{ event: string; data: Record<string, unknown> }>(
      'select event, data from outbox_events where booking_id = $1',
      [bookingId],
    );
    expect(events).toEqual([
      {
        event: 'trip.completed',
        data: {
          booking_id: bookingId,
          booking_code: booking!.booking_code,
          trip_id: booking!.trip_id,
          passenger_count: 3,
          total_amount: 75_000,
        },
      },
    ]);
    expect(Number(booking!.total_price)).toBe(75_000);
  });
});
