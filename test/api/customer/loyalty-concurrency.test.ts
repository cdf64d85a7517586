import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { awardTripPoints } from '../../../db/writes/loyalty/index.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { bookableTrip, bookingBody, lockSeats, postBooking } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { programmeCall } from '../../support/loyalty-admin.js';
import {
  completedBooking,
  completeTripForEarning,
  creditPoints,
  giveReward,
  loyaltyProgram,
  redeemVoucher,
} from '../../support/loyalty.js';

describe('loyalty under concurrency', () => {
  const app = useTestApp();

  it('10 identical redeems sent at once with one Idempotency-Key: one voucher, one spend, every answer that voucher', async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 1_000 });

    const key = `redeem-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        app.request('/api/loyalty/redeem', {
          method: 'POST',
          json: { companyId: trip.companyId, rewardCode: reward.code },
          headers: { 'Idempotency-Key': key },
          token: traveller.token,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);

    const [account] = await app.db.query<{ id: string; balance: number }>(
      `select id, balance from loyalty_accounts where company_id = $1 and user_id = $2`,
      [trip.companyId, traveller.userId],
    );
    expect(account!.balance).toBe(900);
    const vouchers = await app.db.query<{ code: string }>(
      `select code from loyalty_redemptions where account_id = $1`,
      [account!.id],
    );
    expect(vouchers).toEqual([{ code: answers[0]!.body.redemption.code }]);
  });

  it('50 concurrent redeems against a balance that covers one: exactly one voucher, balance never negative', async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 400 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 700 });

    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        app.request('/api/loyalty/redeem', {
          method: 'POST',
          json: { companyId: trip.companyId, rewardCode: reward.code },
          token: traveller.token,
        }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(49);
    for (const answer of refused) {
      expect(answer.status).toBe(409);
      expect(answer.body.errorCode).toBe('LOYALTY_INSUFFICIENT_POINTS');
    }

    const [account] = await app.db.query<{ id: string; balance: number }>(
      `select id, balance from loyalty_accounts where company_id = $1 and user_id = $2`,
      [trip.companyId, traveller.userId],
    );
    expect(account!.balance).toBe(300);
    const redeems = await app.db.query<{ balance_after: number }>(
      `select balance_after from loyalty_transactions where account_id = $1 and kind = 'REDEEM'`,
      [account!.id],
    );
    expect(redeems).toEqual([{ balance_after: 300 }]);
    const vouchers = await app.db.query(`select 1 from loyalty_redemptions where account_id = $1`, [
      account!.id,
    ]);
    expect(vouchers).toHaveLength(1);
    const [counter] = await app.db.query<{ redemption_count: number }>(
      `select redemption_count from loyalty_rewards where id = $1`,
      [reward.id],
    );
    expect(counter!.redemption_count).toBe(1);
  });

  it('a reward limited to one redemption goes to exactly one of many travellers racing for it', async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId);
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100, maxRedemptions: 1 });
    const travellers = await Promise.all(Array.from({ length: 8 }, () => app.signIn()));
    for (const traveller of travellers) {
      await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 100 });
    }
    const answers = await Promise.all(
      travellers.map((traveller) =>
        app.request('/api/loyalty/redeem', {
          method: 'POST',
          json: { companyId: trip.companyId, rewardCode: reward.code },
          token: traveller.token,
        }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.body.errorCode === 'LOYALTY_REWARD_EXHAUSTED')).toHaveLength(7);
    const [spent] = await app.db.query<{ n: number }>(
      `select count(*)::int as n from loyalty_accounts where company_id = $1 and balance = 0`,
      [trip.companyId],
    );
    expect(spent!.n).toBe(1);
  });

  it('two concurrent bookings with the same voucher: exactly one gets the discount, the other 409 LOYALTY_REDEMPTION_USED', async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100, discountPercent: 10 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 100 });
    const voucher = await redeemVoucher(app, traveller, trip.companyId, reward.code);
    const caller = {
      userId: traveller.userId,
      headers: traveller.writeHeaders,
      channel: 'CUSTOMER_WEB' as const,
    };
    const locks = [
      await lockSeats(app, caller, trip.tripId, [trip.seatNumbers[0]!]),
      await lockSeats(app, caller, trip.tripId, [trip.seatNumbers[1]!]),
    ];

    const answers = await Promise.all(
      locks.map((seatLockSessionId, index) =>
        postBooking(
          app,
          caller,
          bookingBody({
            tripId: trip.tripId,
            seatNumbers: [trip.seatNumbers[index]!],
            seatLockSessionId,
            rewardCode: voucher,
          }),
        ),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409]);
    const refused = answers.find((answer) => answer.status === 409)!;
    expect(refused.body.errorCode).toBe('LOYALTY_REDEMPTION_USED');
    const booked = answers.find((answer) => answer.status === 201)!;
    const [used] = await app.db.query<{ used_booking_ids: string[] }>(
      `select used_booking_ids::text[] as used_booking_ids from loyalty_redemptions where code = $1`,
      [voucher],
    );
    expect(used!.used_booking_ids).toEqual([booked.body.data.booking.id]);
  });

  it('a booking that takes its voucher after the reward was withdrawn is refused, and the withdrawal gives the points back', async () => {
    const trip = await bookableTrip(app.db, { price: 10_000 });
    await loyaltyProgram(app.db, trip.companyId);
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100, discountPercent: 10 });
    const traveller = await app.signIn();
    const caller = {
      userId: traveller.userId,
      headers: traveller.writeHeaders,
      channel: 'CUSTOMER_WEB' as const,
    };
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 150 });
    const voucher = await redeemVoucher(app, traveller, trip.companyId, reward.code);
    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    const seats = [trip.seatNumbers[0]!];
    const lock = await lockSeats(app, caller, trip.tripId, seats);

    // Another transaction holds the voucher row (as another booking trying it would): the booking waits.
    const blocker = await holdLock(
      app.db,
      `select 1 from loyalty_redemptions where code = '${voucher}' for update`,
    );
    const booking = postBooking(
      app,
      caller,
      bookingBody({ tripId: trip.tripId, seatNumbers: seats, seatLockSessionId: lock, rewardCode: voucher }),
    );
    await waitersOf(app.db, blocker.pid);
    // The company withdraws the reward: its first step (archive) commits, its second queues behind.
    const withdrawal = programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${reward.id}`);
    await waitersOf(app.db, blocker.pid, 2);
    const [archived] = await app.db.query<{ archived: boolean }>(
      `select archived_at is not null as archived from loyalty_rewards where id = $1`,
      [reward.id],
    );
    expect(archived!.archived).toBe(true);
    await blocker.release();
    const [booked, withdrawn] = await Promise.all([booking, withdrawal]);

    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect([booked.status, booked.body.errorCode]).toEqual([409, 'LOYALTY_REWARD_UNSUPPORTED']);
    const [state] = await app.db.query<{ status: string; balance: number; bookings: number }>(
      `select r.status, a.balance,
              (select count(*)::int from bookings b where b.trip_id = $2 and b.owner_user_id = a.user_id) as bookings
         from loyalty_redemptions r join loyalty_accounts a on a.id = r.account_id
        where r.code = $1`,
      [voucher, trip.tripId],
    );
    expect(state).toEqual({ status: 'CANCELLED', balance: 150, bookings: 0 });
  });

  it('earning is idempotent when completion is replayed concurrently', async () => {
    const trip = await bookableTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { pointsPer100: 5 });
    const travellers = await Promise.all(Array.from({ length: 4 }, () => app.signIn()));
    for (const traveller of travellers) {
      await completedBooking(app.db, trip, traveller.userId, { totalPrice: 20_000 });
    }
    await completeTripForEarning(app.db, trip.tripId);

    const runs = await Promise.all(Array.from({ length: 5 }, () => awardTripPoints(app.db, trip.tripId)));
    // Runs serialize on each account's lock: together they credit every booking exactly once.
    expect(runs.reduce((sum, run) => sum + run.bookingsCredited, 0)).toBe(4);

    const rows = await app.db.query<{ user_id: string; balance: number; earns: number }>(
      `select a.user_id, a.balance,
              (select count(*)::int from loyalty_transactions t where t.account_id = a.id and t.kind = 'EARN') as earns
         from loyalty_accounts a where a.company_id = $1`,
      [trip.companyId],
    );
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row).toMatchObject({ balance: 1000, earns: 1 });
  });
});
