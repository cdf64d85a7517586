import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import type { Caller } from '../../support/journeys.js';
import { legacyPassengerBooking } from '../../support/legacy-bookings.js';
import { loyaltyProgram } from '../../support/loyalty.js';
import {
  advance,
  bookSeats,
  dispatch,
  operationsWorldWithShift,
  type OperationsWorld,
} from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

/**
 * A referral is for a traveller new to the company (README "Loyalty"): one who has boarded a bus of
 * the company has travelled with it from the check-in on, not only once the company presses
 * COMPLETE. Refused then with 409 LOYALTY_REFERRAL_NOT_NEW and nothing written, so COMPLETE pays no
 * referral bonus for a trip taken before the referral. A traveller who never boarded (a no-show, a
 * check-in on a bus that was then cancelled) is still new.
 */
describe('a referral entered after boarding a bus of the company', () => {
  const app = useTestApp();

  /**
   * An 8-seat trip of a company whose programme pays 500 referral points (its cash shift open, so a
   * boarded traveller's cash can be collected before DEPART), and a referrer's code.
   */
  async function worldWithReferrer() {
    const world = await operationsWorldWithShift(app);
    await loyaltyProgram(app.db, world.companyId, { pointsPer100: 10, referralPoints: 500 });
    const referrer = await app.signIn();
    const answer = await app.request(`/api/loyalty/referral?companyId=${world.companyId}`, {
      token: referrer.token,
    });
    expect(answer.status, answer.text).toBe(200);
    return { world, referrer, code: answer.body.data.referralCode as string };
  }

  const refer = (caller: Caller, companyId: string, referralCode: string) =>
    app.request('/api/loyalty/referral', {
      method: 'POST',
      json: { companyId, referralCode },
      headers: caller.headers,
    });

  const travellerAction = (world: OperationsWorld, action: string, ticketId: string) =>
    dispatch(app, world.dispatcher, world.trip.tripId, {
      action,
      manifest_item_id: ticketId,
      manifest_item_type: 'JOURNEY_TICKET',
    });

  const referralsOf = (companyId: string) =>
    app.db.query(`select * from loyalty_referrals where company_id = $1`, [companyId]);

  const ledgerOf = (companyId: string, userId: string) =>
    app.db.query<{ kind: string; points: number }>(
      `select t.kind, t.points from loyalty_transactions t join loyalty_accounts a on a.id = t.account_id
        where a.company_id = $1 and a.user_id = $2 order by t.created_at, t.id`,
      [companyId, userId],
    );

  const refusal = (answer: { status: number; body: any }) => [answer.status, answer.body.errorCode];

  it('refuses a traveller checked in on a DEPARTED and then an ARRIVED trip not yet COMPLETE, writing nothing; COMPLETE pays no referral bonus', async () => {
    const { world, referrer, code } = await worldWithReferrer();
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const boarded = await travellerAction(world, 'CHECK_IN', traveller.ticketIds[0]!);
    expect(boarded.status, boarded.text).toBe(200);
    await collectCash(app.db, traveller.bookingId, { source: 'driver' });

    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART');
    const departed = await refer(traveller.caller, world.companyId, code);
    expect(refusal(departed), departed.text).toEqual([409, 'LOYALTY_REFERRAL_NOT_NEW']);
    expect(await referralsOf(world.companyId)).toEqual([]);

    await advance(app, world.dispatcher, world.trip.tripId, 'ARRIVE');
    const arrived = await refer(traveller.caller, world.companyId, code);
    expect(refusal(arrived), arrived.text).toEqual([409, 'LOYALTY_REFERRAL_NOT_NEW']);
    expect(await referralsOf(world.companyId)).toEqual([]);

    // COMPLETE credits the trip's points and no referral: the traveller has none pending.
    await advance(app, world.dispatcher, world.trip.tripId, 'COMPLETE');
    expect((await ledgerOf(world.companyId, traveller.caller.userId)).map((row) => row.kind)).toEqual([
      'EARN',
    ]);
    expect(await ledgerOf(world.companyId, referrer.userId)).toEqual([]);
  });

  it('refuses a traveller checked in on a bus still BOARDING: the referral would be paid for that trip', async () => {
    const { world, code } = await worldWithReferrer();
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    expect((await travellerAction(world, 'CHECK_IN', traveller.ticketIds[0]!)).status).toBe(200);

    const answer = await refer(traveller.caller, world.companyId, code);
    expect(refusal(answer), answer.text).toEqual([409, 'LOYALTY_REFERRAL_NOT_NEW']);
    expect(await referralsOf(world.companyId)).toEqual([]);
  });

  it('accepts a traveller who was only a no-show on an ARRIVED trip, and one checked in on a bus then cancelled', async () => {
    const { world, code } = await worldWithReferrer();
    const missed = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    expect((await travellerAction(world, 'MARK_NO_SHOW', missed.ticketIds[0]!)).status).toBe(200);
    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE');

    const noShow = await refer(missed.caller, world.companyId, code);
    expect(noShow.status, noShow.text).toBe(201);
    expect(noShow.body.data.referral.status).toBe('PENDING');

    const other = await worldWithReferrer();
    const stranded = await bookSeats(app, other.world.trip, [other.world.trip.seatNumbers[0]!]);
    await advance(app, other.world.dispatcher, other.world.trip.tripId, 'START_BOARDING');
    expect((await travellerAction(other.world, 'CHECK_IN', stranded.ticketIds[0]!)).status).toBe(200);
    const cancelled = await dispatch(app, other.world.dispatcher, other.world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Bus breakdown',
    });
    expect(cancelled.status, cancelled.text).toBe(200);

    const afterCancel = await refer(stranded.caller, other.world.companyId, other.code);
    expect(afterCancel.status, afterCancel.text).toBe(201);
  });

  it('refuses a traveller who travelled with the company on an imported booking of their passenger profile, writing nothing', async () => {
    const { world, code } = await worldWithReferrer();
    const traveller = await app.signIn();
    await legacyPassengerBooking(app.db, {
      trip: { id: world.trip.tripId, companyId: world.companyId },
      passengerId: traveller.passengerId,
      status: 'COMPLETED',
    });
    const caller: Caller = {
      userId: traveller.userId,
      headers: { Authorization: `Bearer ${traveller.token}` },
      channel: 'CUSTOMER_MOBILE',
    };

    const answer = await refer(caller, world.companyId, code);
    expect(refusal(answer), answer.text).toEqual([409, 'LOYALTY_REFERRAL_NOT_NEW']);
    expect(await referralsOf(world.companyId)).toEqual([]);
  });

  it('refuses the code of a traveller whose account is disabled as an unknown code (404), writing nothing', async () => {
    const { world, referrer, code } = await worldWithReferrer();
    // complete-phone moves a retired user's accounts to the surviving one; a code may still be left
    // on a disabled user (an account opened by a request in flight while its user was merged away).
    await app.db.query(`update users set status = 'DISABLED' where id = $1`, [referrer.userId]);
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);

    const answer = await refer(traveller.caller, world.companyId, code);
    expect(refusal(answer), answer.text).toEqual([404, 'LOYALTY_REFERRAL_NOT_FOUND']);
    expect(await referralsOf(world.companyId)).toEqual([]);
  });
});
