import { describe, expect, it } from 'vitest';
import { MAX_ROUND_TRIP_SUBTOTAL, MAX_SEATS_PER_BOOKING } from '../../../domain/booking.js';
import { MAX_FARE } from '../../../domain/pricing.js';
import { bookableTrip, lockSeats } from '../../support/bookings.js';
import { atDamascus, createCity, createStop, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { mobileTraveller } from '../../support/journeys.js';
import { creditPoints, giveReward, loyaltyProgram, redeemVoucher } from '../../support/loyalty.js';

/**
 * POST /loyalty/preview states one subtotal for the trips it previews, outbound and return. The most
 * a round trip costs is two bookings of MAX_SEATS_PER_BOOKING seats at the highest fare a company may
 * set (2,000,000,000 SYP): the booking route takes that round trip with the voucher, so the preview
 * of it must answer too, and only a subtotal above it is refused.
 */
describe('loyalty preview: the subtotal of the dearest round trip', () => {
  const app = useTestApp();

  it('previews the voucher of a round trip of the most seats at the highest fare, as the booking then takes it', async () => {
    const a = await createStop(app.db, (await createCity(app.db)).id);
    const b = await createStop(app.db, (await createCity(app.db)).id);
    const trip = { price: MAX_FARE, seats: MAX_SEATS_PER_BOOKING + 2 };
    const outbound = await bookableTrip(app.db, {
      ...trip,
      from: a,
      to: b,
      departAt: atDamascus(futureDay(3), '08:00'),
    });
    const inbound = await bookableTrip(app.db, {
      ...trip,
      companyId: outbound.companyId,
      from: b,
      to: a,
      departAt: atDamascus(futureDay(5), '08:00'),
    });
    const caller = await mobileTraveller(app);
    await loyaltyProgram(app.db, outbound.companyId);
    const reward = await giveReward(app.db, outbound.companyId, { discountPercent: 10, maxDiscount: 1_000 });
    await creditPoints(app.db, { companyId: outbound.companyId, userId: caller.userId, points: 100 });
    const code = await redeemVoucher(app, caller, outbound.companyId, reward.code);
    const seats = Array.from({ length: MAX_SEATS_PER_BOOKING }, (_, index) => String(index + 1));
    const subtotal = 2 * seats.length * MAX_FARE;
    expect(subtotal).toBe(2_000_000_000);
    const preview = (amount: number) =>
      app.request('/api/loyalty/preview', {
        method: 'POST',
        headers: caller.headers,
        json: { redemptionCode: code, subtotal: amount, tripIds: [outbound.tripId, inbound.tripId] },
      });

    const previewed = await preview(subtotal);
    expect(previewed.status, previewed.text).toBe(200);
    expect(previewed.body).toMatchObject({ valid: true, discount: 1_000, finalTotal: subtotal - 1_000 });
    // One pound more than any round trip can cost is still refused.
    const beyond = await preview(MAX_ROUND_TRIP_SUBTOTAL + 1);
    expect([beyond.status, beyond.body.errorCode]).toEqual([400, 'VALIDATION_FAILED']);

    const booked = await app.request('/api/bookings/round-trip', {
      method: 'POST',
      headers: caller.headers,
      json: {
        outbound_seat_lock_session_id: await lockSeats(app, caller, outbound.tripId, seats),
        return_seat_lock_session_id: await lockSeats(app, caller, inbound.tripId, seats),
        passenger_name: 'Lina Khoury',
        passenger_phone: '+963955111222',
        reward_code: code,
      },
    });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body.data).toMatchObject({ subtotal, discount: previewed.body.discount });
  }, 120_000);
});
