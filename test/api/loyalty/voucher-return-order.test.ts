import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { bookableTrip, lockSeats, roundTripPair } from '../../support/bookings.js';
import { openShift, refundInFull } from '../../support/finance.js';
import { mobileTraveller, type Caller } from '../../support/journeys.js';
import { creditPoints, giveReward, loyaltyProgram, redeemVoucher } from '../../support/loyalty.js';
import { dispatch } from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

/**
 * A voucher spent on a round trip pays for two bookings (loyalty_redemptions.used_booking_ids). It
 * comes back only when the company's trip CANCEL ended every one of them; a leg its traveller
 * cancelled or the company refunded keeps it spent. The outcome is the same whichever leg ends
 * first.
 */
describe('a voucher spent on a round trip, its legs ended one after the other', () => {
  const app = useTestApp();

  /**
   * A traveller with 150 points who redeemed a 100-point, 20% voucher and spent it on a round trip
   * (10,000 SYP a leg: 8,000 paid on each); the company's owner and accountant, its shift open.
   */
  async function voucherOnRoundTrip() {
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
        outbound_seat_lock_session_id: await lockSeats(app, caller, pair.outbound.tripId, ['1']),
        return_seat_lock_session_id: await lockSeats(app, caller, pair.inbound.tripId, ['1']),
        passenger_name: 'Lina Khoury',
        passenger_phone: '+963955111222',
        reward_code: voucher,
      },
    });
    expect(booked.status, booked.text).toBe(201);
    const [outbound, inbound] = booked.body.data.bookings as { id: string; total_price: number }[];
    expect([outbound!.total_price, inbound!.total_price]).toEqual([8_000, 8_000]);
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const accountant = await staffSession(app.db, app.config, companyId, 'ACCOUNTANT');
    await openShift(app, owner, 500_000);
    // Another trip of the company, to ask whether the voucher can be spent again.
    const next = await bookableTrip(app.db, { companyId, price: 10_000 });
    return {
      caller,
      voucher,
      next,
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
      /** The leg's cash collected at the office, then refunded in full by the accountant. */
      refund: async (leg: { bookingId: string }) => {
        const { paymentId } = await collectCash(app.db, leg.bookingId, { source: 'office' });
        const refunded = await refundInFull(app, accountant, paymentId);
        expect(refunded.body.data.booking).toMatchObject({ status: 'CANCELLED', payment_status: 'REFUNDED' });
      },
      /** The traveller cancels the leg (POST /bookings/{id}/cancel: the whole round trip ends). */
      ownCancel: async (leg: { bookingId: string }) => {
        const cancelled = await app.request(`/api/bookings/${leg.bookingId}/cancel`, {
          method: 'POST',
          headers: caller.headers,
          json: {},
        });
        expect(cancelled.status, cancelled.text).toBe(200);
      },
    };
  }

  type World = Awaited<ReturnType<typeof voucherOnRoundTrip>>;

  /** The voucher as stored, its holder's balance and ledger, and what a preview on another trip answers. */
  async function voucherState(world: World) {
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
    return {
      voucher: voucher!,
      balance: account!.balance,
      ledger,
      preview: await preview(world.caller, world),
    };
  }

  /** POST /loyalty/preview of the voucher on the company's other trip: 200, or its refusal code. */
  async function preview(caller: Caller, world: World) {
    const answer = await app.request('/api/loyalty/preview', {
      method: 'POST',
      headers: caller.headers,
      json: { redemptionCode: world.voucher, subtotal: 10_000, tripIds: [world.next.tripId] },
    });
    return answer.status === 200 ? 200 : [answer.status, answer.body.errorCode];
  }

  /** The voucher is still spent on both legs and the points stay as the redeem left them. */
  async function expectStillSpent(world: World, before: Awaited<ReturnType<typeof voucherState>>) {
    const after = await voucherState(world);
    expect(after.voucher).toEqual({
      status: 'USED',
      discount: '4000',
      used_booking_ids: [world.legs.A.bookingId, world.legs.B.bookingId],
    });
    expect(after.preview).toEqual([409, 'LOYALTY_REDEMPTION_USED']);
    expect(after.balance).toBe(50);
    expect(after.ledger).toEqual(before.ledger);
  }

  it('stays spent when one leg was refunded before the other trip was cancelled', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    await world.refund(world.legs.A);
    await world.cancelTrip(world.legs.B);
    await expectStillSpent(world, before);
  });

  it('stays spent when one trip was cancelled before the other leg was refunded', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    await world.cancelTrip(world.legs.B);
    expect((await voucherState(world)).voucher.status).toBe('USED');
    await world.refund(world.legs.A);
    await expectStillSpent(world, before);
  });

  it('stays spent when the traveller cancelled the round trip before a trip was cancelled', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    await world.ownCancel(world.legs.A);
    await world.cancelTrip(world.legs.B);
    await expectStillSpent(world, before);
  });

  it('stays spent when one trip was cancelled before the traveller cancelled the other leg', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    await world.cancelTrip(world.legs.B);
    await world.ownCancel(world.legs.A);
    await expectStillSpent(world, before);
  });

  it('comes back (ISSUED, usable again, no points moved) when both trips are cancelled, one after the other', async () => {
    const world = await voucherOnRoundTrip();
    const before = await voucherState(world);
    await world.cancelTrip(world.legs.B);
    expect((await voucherState(world)).voucher.status).toBe('USED');
    await world.cancelTrip(world.legs.A);
    const after = await voucherState(world);
    expect(after.voucher).toEqual({ status: 'ISSUED', discount: null, used_booking_ids: [] });
    expect(after.preview).toBe(200);
    expect(after.balance).toBe(50);
    expect(after.ledger).toEqual(before.ledger);
  });

  it('comes back when a trip-cancelled leg was refunded (its REFUND_DUE) before the other trip was cancelled', async () => {
    const world = await voucherOnRoundTrip();
    const { paymentId } = await collectCash(app.db, world.legs.B.bookingId, { source: 'office' });
    await world.cancelTrip(world.legs.B);
    const accountant = await staffSession(app.db, app.config, world.next.companyId, 'ACCOUNTANT');
    const refunded = await refundInFull(app, accountant, paymentId);
    expect(refunded.body.data.booking).toMatchObject({ status: 'CANCELLED', payment_status: 'REFUNDED' });
    await world.cancelTrip(world.legs.A);
    const after = await voucherState(world);
    expect([after.voucher.status, after.preview, after.balance]).toEqual(['ISSUED', 200, 50]);
  });
});
