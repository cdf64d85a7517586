import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { bookableTrip, createBooking, lockSeats, roundTripPair } from '../../support/bookings.js';
import { openShift, refundInFull } from '../../support/finance.js';
import { mobileTraveller } from '../../support/journeys.js';
import { creditPoints, giveReward, loyaltyProgram, redeemVoucher } from '../../support/loyalty.js';
import { advance, assignDriver, createDriver, dispatch, scan } from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

/**
 * A voucher pays for one booking (POST /bookings) or for both legs of a round trip
 * (loyalty_redemptions.used_booking_ids). The company's trip CANCEL gives it back once trip cancels
 * ended every one of them. A refund of a live leg (ending it or, once its traveller boarded,
 * compensating) keeps it spent for good, whatever ends first and whether or not the refund had a
 * credential left to revoke; so does its traveller's own cancel. A refund of a leg a trip cancel
 * already ended (its REFUND_DUE) does not: that booking ended by the company's cancel.
 */
describe('a voucher given back by trip CANCELs, or kept spent by a refund or its traveller', () => {
  const app = useTestApp();

  /**
   * A traveller with 150 points who redeemed a 100-point, 20% voucher and spent it on a round trip
   * of `seats` seats a leg (10,000 SYP a seat, a fifth off); the company's owner and accountant,
   * its shift open, and a driver on each leg's trip.
   */
  async function voucherOnRoundTrip(seats = ['1']) {
    const pair = await roundTripPair(app);
    const { companyId } = pair.outbound;
    await loyaltyProgram(app.db, companyId);
    const reward = await giveReward(app.db, companyId, { pointsCost: 100, discountPercent: 20 });
    const caller = await mobileTraveller(app);
    await creditPoints(app.db, { companyId, userId: caller.userId, points: 150 });
    const voucher = await redeemVoucher(app, caller, companyId, reward.code);
    const booked = await app.request('/api/bookings/round-trip', {
      method: 'POST',
      headers: caller.headers,
      json: {
        outbound_seat_lock_session_id: await lockSeats(app, caller, pair.outbound.tripId, seats),
        return_seat_lock_session_id: await lockSeats(app, caller, pair.inbound.tripId, seats),
        passenger_name: 'Lina Khoury',
        passenger_phone: '+963955111222',
        reward_code: voucher,
      },
    });
    expect(booked.status, booked.text).toBe(201);
    const [outbound, inbound] = booked.body.data.bookings as { id: string; total_price: number }[];
    const fare = seats.length * 8_000;
    expect([outbound!.total_price, inbound!.total_price]).toEqual([fare, fare]);
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const accountant = await staffSession(app.db, app.config, companyId, 'ACCOUNTANT');
    const driver = await createDriver(app, companyId);
    for (const trip of [pair.outbound, pair.inbound])
      await assignDriver(app.db, trip.tripId, driver.staffUserId);
    await openShift(app, owner, 500_000);
    // Another trip of the company, to ask whether the voucher can be spent again.
    const next = await bookableTrip(app.db, { companyId, price: 10_000 });
    return {
      caller,
      voucher,
      next,
      discount: String(seats.length * 4_000),
      legs: {
        A: { bookingId: outbound!.id, tripId: pair.outbound.tripId },
        B: { bookingId: inbound!.id, tripId: pair.inbound.tripId },
      },
      /** The company cancels the leg's trip (dispatch CANCEL). */
      cancelTrip: async (leg: { tripId: string }) => {
        const cancelled = await dispatch(app, owner, leg.tripId, {
          action: 'CANCEL',
          reason: 'Bus broke down',
        });
        expect(cancelled.status, cancelled.text).toBe(200);
      },
      /** The leg's cash collected at the office; answers the payment to refund. */
      collect: async (leg: { bookingId: string }) =>
        (await collectCash(app.db, leg.bookingId, { source: 'office' })).paymentId,
      /** The accountant refunds the payment in full; answers the booking as the refund leaves it. */
      refund: async (paymentId: string) => {
        const refunded = await refundInFull(app, accountant, paymentId);
        return refunded.body.data.booking as { status: string; payment_status: string };
      },
      /** The leg's trip starts boarding and the driver scans `count` of its tickets at the door (USED). */
      board: async (leg: { bookingId: string; tripId: string }, count: number) => {
        await advance(app, owner, leg.tripId, 'START_BOARDING');
        const credentials = await app.db.query<{ payload: unknown; signature: string }>(
          `select k.payload, k.signature from journey_tickets k join bookings b on b.journey_id = k.journey_id
            where b.id = $1 and k.trip_id = b.trip_id order by k.traveller_index`,
          [leg.bookingId],
        );
        for (const credential of credentials.slice(0, count)) {
          const scanned = await scan(app, driver.token, leg.tripId, credential);
          expect(scanned.body.data, scanned.text).toMatchObject({ outcome: 'CHECKED_IN' });
        }
      },
    };
  }

  type World = Awaited<ReturnType<typeof voucherOnRoundTrip>>;
  /** A traveller, their voucher and another trip of its company. */
  type Holder = Pick<World, 'caller' | 'voucher' | 'next'>;

  /** The voucher as stored, its holder's balance and ledger, and what a preview on another trip answers. */
  async function voucherState(world: Holder) {
    const [voucher] = await app.db.query<{
      status: string;
      discount: string | null;
      used_booking_ids: string[];
    }>(`select status, discount, used_booking_ids from loyalty_redemptions where code = $1`, [world.voucher]);
    const ledger = await app.db.query<{ kind: string; points: number }>(
      `select t.kind, t.points, t.balance_after from loyalty_transactions t
         join loyalty_accounts a on a.id = t.account_id
        where a.company_id = $1 and a.user_id = $2 order by t.created_at, t.id`,
      [world.next.companyId, world.caller.userId],
    );
    const [account] = await app.db.query<{ balance: number }>(
      `select balance from loyalty_accounts where company_id = $1 and user_id = $2`,
      [world.next.companyId, world.caller.userId],
    );
    return { voucher: voucher!, balance: account!.balance, ledger, preview: await preview(world) };
  }

  /** POST /loyalty/preview of the voucher on the company's other trip: 200, or its refusal code. */
  async function preview(world: Holder) {
    const answer = await app.request('/api/loyalty/preview', {
      method: 'POST',
      headers: world.caller.headers,
      json: { redemptionCode: world.voucher, subtotal: 10_000, tripIds: [world.next.tripId] },
    });
    return answer.status === 200 ? 200 : [answer.status, answer.body.errorCode];
  }

  /** The voucher is still spent on both legs, and the points and ledger are as the redeem left them. */
  async function expectStillSpent(world: World, before: Awaited<ReturnType<typeof voucherState>>) {
    const after = await voucherState(world);
    expect(after.voucher).toEqual({
      status: 'USED',
      discount: world.discount,
      used_booking_ids: [world.legs.A.bookingId, world.legs.B.bookingId],
    });
    expect(after.preview).toEqual([409, 'LOYALTY_REDEMPTION_USED']);
    expect(after.balance).toBe(50);
    expect(after.ledger).toEqual(before.ledger);
  }

  /** The voucher is the traveller's again (ISSUED, usable), its points not moved: the redeem paid for it. */
  async function expectGivenBack(world: Holder, before: Awaited<ReturnType<typeof voucherState>>) {
    const after = await voucherState(world);
    expect(after.voucher).toEqual({ status: 'ISSUED', discount: null, used_booking_ids: [] });
    expect(after.preview).toBe(200);
    expect(after.balance).toBe(50);
    expect(after.ledger).toEqual(before.ledger);
  }

  it('stays spent when one leg was refunded (ending it) before the other trip was cancelled', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    const refunded = await world.refund(await world.collect(world.legs.A));
    expect(refunded).toMatchObject({ status: 'CANCELLED', payment_status: 'REFUNDED' });
    await world.cancelTrip(world.legs.B);
    await expectStillSpent(world, before);
  });

  it('stays spent when a boarded leg, all its tickets scanned, was refunded as a compensation before both trips were cancelled', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    const paymentId = await world.collect(world.legs.A);
    await world.board(world.legs.A, 1);
    // A compensation: the booking and its USED ticket stay, so no credential is left to revoke.
    expect(await world.refund(paymentId)).toMatchObject({ status: 'CHECKED_IN', payment_status: 'REFUNDED' });
    // The bus still boards, so the company can cancel the trip, and then the other one.
    await world.cancelTrip(world.legs.A);
    await world.cancelTrip(world.legs.B);
    await expectStillSpent(world, before);
  });

  it('stays spent when a boarded leg with a ticket still VALID was refunded as a compensation before both trips were cancelled', async () => {
    const world = await voucherOnRoundTrip(['1', '2']);
    const before = await voucherState(world);
    const paymentId = await world.collect(world.legs.A);
    // One traveller boards; the other's ticket stays VALID, and the refund revokes its credential.
    await world.board(world.legs.A, 1);
    expect(await world.refund(paymentId)).toMatchObject({ status: 'CHECKED_IN', payment_status: 'REFUNDED' });
    await world.cancelTrip(world.legs.A);
    await world.cancelTrip(world.legs.B);
    await expectStillSpent(world, before);
  });

  it('comes back when both trips are cancelled, one after the other', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    await world.cancelTrip(world.legs.B);
    expect((await voucherState(world)).voucher.status).toBe('USED');
    await world.cancelTrip(world.legs.A);
    await expectGivenBack(world, before);
  });

  it('comes back when a trip-cancelled leg was refunded (its REFUND_DUE) before the other trip was cancelled', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    const paymentId = await world.collect(world.legs.B);
    await world.cancelTrip(world.legs.B);
    expect(await world.refund(paymentId)).toMatchObject({ status: 'CANCELLED', payment_status: 'REFUNDED' });
    await world.cancelTrip(world.legs.A);
    await expectGivenBack(world, before);
  });

  /**
   * A traveller's 100-point, 20% voucher spent on one seat of a trip (10,000 SYP: 8,000 paid) through
   * POST /bookings; the company's owner.
   */
  async function voucherOnBooking() {
    const trip = await bookableTrip(app.db, { price: 10_000 });
    const { companyId } = trip;
    await loyaltyProgram(app.db, companyId);
    const reward = await giveReward(app.db, companyId, { pointsCost: 100, discountPercent: 20 });
    const caller = await mobileTraveller(app);
    await creditPoints(app.db, { companyId, userId: caller.userId, points: 150 });
    const voucher = await redeemVoucher(app, caller, companyId, reward.code);
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: ['1'],
      rewardCode: voucher,
    });
    expect(booking.total_price).toBe(8_000);
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const next = await bookableTrip(app.db, { companyId, price: 10_000 });
    return { trip, caller, voucher, next, booking, owner };
  }

  it('comes back when the company cancels the trip of the one booking it paid for', async () => {
    const world = await voucherOnBooking();
    const before = await voucherState(world);
    const cancelled = await dispatch(app, world.owner, world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Bus broke down',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    await expectGivenBack(world, before);
  });

  it('stays spent for good, recorded in the cancel, once its traveller cancelled the booking', async () => {
    const world = await voucherOnBooking();
    const before = await voucherState(world);
    const cancelled = await app.request(`/api/bookings/${world.booking.id}/cancel`, {
      method: 'POST',
      headers: world.caller.headers,
      json: {},
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const after = await voucherState(world);
    expect([after.voucher.status, after.preview, after.balance]).toEqual([
      'USED',
      [409, 'LOYALTY_REDEMPTION_USED'],
      50,
    ]);
    expect(after.ledger).toEqual(before.ledger);
    const [stored] = await app.db.query<{ forfeited: boolean }>(
      `select forfeited_at is not null as forfeited from loyalty_redemptions where code = $1`,
      [world.voucher],
    );
    expect(stored).toEqual({ forfeited: true });
  });
});
