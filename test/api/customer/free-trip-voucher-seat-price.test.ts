import { describe, expect, it } from 'vitest';
import { minutesFromNow, modifyBooking, moveTo } from '../../support/booking-changes.js';
import { bookableTrip, createBooking, lockSeats, type BookableTripFixture } from '../../support/bookings.js';
import { atDamascus, createCity, createStop, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { mobileTraveller, type Caller } from '../../support/journeys.js';
import { creditPoints, giveReward, loyaltyProgram, redeemVoucher } from '../../support/loyalty.js';

/**
 * A free_trip voucher makes freeSeats real seats free: on a booking of seats of different classes
 * it takes off the cheapest seats' own fares, never an average that is the price of no seat (a
 * standard seat of 10 000 and a VIP seat of 15 000 once paid 12 500). On a round trip it is the
 * cheapest trip's seats, and a modification prices it again on the new trip's seats.
 */
describe('free_trip voucher on seats of different prices', () => {
  const app = useTestApp();

  /** A bus of 8 seats whose row 1 (0-based) is VIP: standard seats at `price`, VIP at `priceVip`. */
  const mixedTrip = (options: Parameters<typeof bookableTrip>[1] = {}) =>
    bookableTrip(app.db, { seats: 8, vipRows: [1], price: 10_000, priceVip: 15_000, ...options });

  /** The seat labels of one class on the trip's active layout. */
  async function seatsOfClass(trip: BookableTripFixture, seatClass: 'STANDARD' | 'VIP'): Promise<string[]> {
    const seats = await app.db.query<{ seat_number: string }>(
      `select s.seat_number from layout_seats s join bus_layouts l on l.id = s.layout_id
        where l.bus_id = $1 and l.status = 'active' and s.seat_class = $2 order by s.seat_number`,
      [trip.busId, seatClass],
    );
    return seats.map((seat) => seat.seat_number);
  }

  /** One standard and one VIP seat label of the trip. */
  const standardAndVip = async (trip: BookableTripFixture) => [
    (await seatsOfClass(trip, 'STANDARD'))[0]!,
    (await seatsOfClass(trip, 'VIP'))[0]!,
  ];

  /** A free_trip voucher of the company for one seat, bought with points by the caller. */
  async function freeSeatVoucher(caller: Caller, companyId: string): Promise<string> {
    await loyaltyProgram(app.db, companyId);
    const reward = await giveReward(app.db, companyId, { type: 'free_trip', freeSeats: 1, pointsCost: 100 });
    await creditPoints(app.db, { companyId, userId: caller.userId, points: 100 });
    return redeemVoucher(app, caller, companyId, reward.code);
  }

  async function voucherRecord(code: string) {
    const [row] = await app.db.query<{ status: string; discount: number }>(
      `select status, discount::int from loyalty_redemptions where code = $1`,
      [code],
    );
    return row;
  }

  it('takes the standard seat off a booking of one standard and one VIP seat, as the preview said', async () => {
    const trip = await mixedTrip();
    const caller = await mobileTraveller(app);
    const code = await freeSeatVoucher(caller, trip.companyId);

    // The preview values a free seat at the trip's base (standard) fare.
    const preview = await app.request('/api/loyalty/preview', {
      method: 'POST',
      headers: caller.headers,
      json: { redemptionCode: code, subtotal: 25_000, tripIds: [trip.tripId] },
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ discount: 10_000, finalTotal: 15_000 });

    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: await standardAndVip(trip),
      rewardCode: code,
    });
    // The traveller pays the VIP seat; the standard seat is the free one.
    expect(booking).toMatchObject({ subtotal: 25_000, discount: 10_000, total_price: 15_000 });
    expect(await voucherRecord(code)).toEqual({ status: 'USED', discount: 10_000 });
  });

  it('on a round trip takes off the cheapest seat of the cheaper direction', async () => {
    const a = await createStop(app.db, (await createCity(app.db)).id);
    const b = await createStop(app.db, (await createCity(app.db)).id);
    const outbound = await mixedTrip({ from: a, to: b, departAt: atDamascus(futureDay(3), '08:00') });
    // The return's seats cost 12 000 and 20 000: its cheapest seat is dearer than the outbound's.
    const inbound = await mixedTrip({
      companyId: outbound.companyId,
      from: b,
      to: a,
      departAt: atDamascus(futureDay(5), '08:00'),
      price: 12_000,
      priceVip: 20_000,
    });
    const caller = await mobileTraveller(app);
    const code = await freeSeatVoucher(caller, outbound.companyId);

    const response = await app.request('/api/bookings/round-trip', {
      method: 'POST',
      headers: caller.headers,
      json: {
        outbound_seat_lock_session_id: await lockSeats(
          app,
          caller,
          outbound.tripId,
          await standardAndVip(outbound),
        ),
        return_seat_lock_session_id: await lockSeats(
          app,
          caller,
          inbound.tripId,
          await standardAndVip(inbound),
        ),
        passenger_name: 'Lina Khoury',
        passenger_phone: '+963955111222',
        reward_code: code,
      },
    });
    expect(response.status, response.text).toBe(201);
    // The outbound standard seat (10 000) is free, split over both bookings as every voucher is.
    expect(response.body.data).toMatchObject({ subtotal: 57_000, discount: 10_000, finalPrice: 47_000 });
    const [there, back] = response.body.data.bookings as { discount: number; total_price: number }[];
    expect(there!.discount + back!.discount).toBe(10_000);
    expect(there!.total_price + back!.total_price).toBe(47_000);
    expect(await voucherRecord(code)).toEqual({ status: 'USED', discount: 10_000 });
  });

  it("prices the booking's voucher again on the new trip's own seat fares when the booking is moved", async () => {
    const trip = await mixedTrip({ departAt: minutesFromNow(48 * 60) });
    const caller = await mobileTraveller(app);
    const code = await freeSeatVoucher(caller, trip.companyId);
    // Two standard seats: one of them (10 000) is free.
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: (await seatsOfClass(trip, 'STANDARD')).slice(0, 2),
      rewardCode: code,
    });
    expect(booking).toMatchObject({ subtotal: 20_000, discount: 10_000, total_price: 10_000 });

    // The same route later, a standard seat at 8 000 and a VIP seat at 12 000.
    const later = await mixedTrip({
      companyId: trip.companyId,
      from: trip.from,
      to: trip.to,
      departAt: minutesFromNow(72 * 60),
      price: 8_000,
      priceVip: 12_000,
    });
    const moved = await modifyBooking(
      app,
      caller,
      booking.id,
      moveTo(later.tripId, await standardAndVip(later)),
    );

    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ subtotal: 20_000, discount: 8_000, total_price: 12_000 });
    expect(await voucherRecord(code)).toEqual({ status: 'USED', discount: 8_000 });
  });
});
