import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount, recordReferral } from '../../../db/writes/loyalty/index.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { createBooking } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { mobileTraveller, type Caller } from '../../support/journeys.js';
import { creditPoints, giveReward, loyaltyProgram, redeemVoucher } from '../../support/loyalty.js';
import { companyWithProgramme, programmeCall, PROGRAM } from '../../support/loyalty-admin.js';
import {
  advance,
  boardAndPay,
  bookSeats,
  dispatch,
  operationsWorld,
  travellerAction,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';

/** COMPLETE closes the trip: attendance, bookings, trip.completed events, and loyalty points once per booking. */
describe('completing a trip', () => {
  const app = useTestApp();

  async function ledger(companyId: string, userId: string) {
    return app.db.query<{ kind: string; points: number; booking_id: string }>(
      `select t.kind, t.points, t.booking_id from loyalty_transactions t join loyalty_accounts a on a.id = t.account_id
       where a.company_id = $1 and a.user_id = $2 order by t.created_at`,
      [companyId, userId],
    );
  }

  /** A trip with a program of 10 points per 100 SYP, a referrer, a referred traveller who travels and one who does not. */
  async function travelledTrip() {
    const world = await operationsWorld(app, { seats: 8 });
    await loyaltyProgram(app.db, world.companyId, { pointsPer100: 10, referralPoints: 50 });
    const referrer = await mobileTraveller(app);
    const referrerAccount = await ensureAccount(app.db.pool, world.companyId, referrer.userId);
    const [{ referral_code: code }] = (await app.db.query<{ referral_code: string }>(
      'select referral_code from loyalty_accounts where id = $1',
      [referrerAccount],
    )) as [{ referral_code: string }];
    const rider = await mobileTraveller(app);
    await recordReferral(app.db, { companyId: world.companyId, userId: rider.userId, referralCode: code });
    const travelled = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!], rider);
    const missed = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    await boardAndPay(app, world, travelled);
    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE');
    return { world, referrer, rider, travelled, missed };
  }

  describe('once, even when sent twice', () => {
    let world: OperationsWorld;
    let travelled: BookedTraveller;
    let missed: BookedTraveller;
    let riderId: string;
    let referrerId: string;

    beforeAll(async () => {
      const trip = await travelledTrip();
      ({ world, travelled, missed } = trip);
      riderId = trip.rider.userId;
      referrerId = trip.referrer.userId;
    });

    it('completes the trip, closes attendance and credits points and the referral', async () => {
      const response = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toMatchObject({
        status: 'COMPLETED',
        replayed: false,
        effects: { completed_bookings: 1, no_shows: 1, events: 2 },
        loyalty: { bookings_credited: 1, points_credited: 1000, referrals_rewarded: 1 },
      });
      const rows = await app.db.query<{ id: string; status: string }>(
        'select id, status from bookings where id = any($1::uuid[])',
        [[travelled.bookingId, missed.bookingId]],
      );
      expect(Object.fromEntries(rows.map((row) => [row.id, row.status]))).toEqual({
        [travelled.bookingId]: 'COMPLETED',
        [missed.bookingId]: 'NO_SHOW',
      });
      const [noShow] = await app.db.query(
        'select attendance, attendance_source from journey_tickets where id = $1',
        [missed.ticketIds[0]],
      );
      expect(noShow).toEqual({ attendance: 'NO_SHOW', attendance_source: 'DASHBOARD' });
      expect(await ledger(world.companyId, riderId)).toEqual([
        { kind: 'EARN', points: 1000, booking_id: travelled.bookingId },
        { kind: 'REFERRAL_BONUS', points: 50, booking_id: travelled.bookingId },
      ]);
      expect(await ledger(world.companyId, referrerId)).toEqual([
        { kind: 'REFERRAL_BONUS', points: 50, booking_id: travelled.bookingId },
      ]);
      const events = await app.db.query<{ booking_id: string }>(
        `select booking_id from outbox_events where trip_id = $1 and event = 'trip.completed'`,
        [world.trip.tripId],
      );
      expect(events.map((event) => event.booking_id).sort()).toEqual(
        [travelled.bookingId, missed.bookingId].sort(),
      );
    });

    it("takes the no-show's boarding authorization away in the projection and the ticket list", async () => {
      // SPEC "Journey confirmation": every channel uses the same projection.
      const [row] = await app.db.query<{ journey_id: string }>(
        'select journey_id from bookings where id = $1',
        [missed.bookingId],
      );
      const projection = await app.request(`/api/journeys/${row!.journey_id}`, {
        headers: missed.caller.headers,
      });
      const list = await app.request(`/api/tickets`, { headers: missed.caller.headers });
      const pdf = await app.request(`/api/bookings/${missed.bookingId}/document?type=ticket&locale=en`, {
        headers: missed.caller.headers,
      });
      const projected = (
        projection.body.data.tickets as {
          status: string;
          boarding_authorized: boolean;
          signature: string | null;
        }[]
      ).map((t) => ({
        status: t.status,
        boarding_authorized: t.boarding_authorized,
        signed: t.signature !== null,
      }));
      const listed = JSON.stringify(list.body.data).slice(0, 600);
      const facts = `document=${pdf.status} ${pdf.body?.errorCode}; projection=${JSON.stringify(projected)}; tickets=${listed}`;
      expect(pdf.status, facts).toBe(410);
      expect(
        projected.every((t) => !t.boarding_authorized),
        facts,
      ).toBe(true);
    });

    it('answers a second COMPLETE as a replay that credits nothing', async () => {
      const again = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(again.status, again.text).toBe(200);
      expect(again.body.data).toMatchObject({
        status: 'COMPLETED',
        replayed: true,
        loyalty: { bookings_credited: 0, points_credited: 0, referrals_rewarded: 0 },
      });
      expect(await ledger(world.companyId, riderId)).toHaveLength(2);
      const completed = await app.db.query(
        `select 1 from trip_operation_events where trip_id = $1 and action = 'COMPLETE'`,
        [world.trip.tripId],
      );
      expect(completed).toHaveLength(1);
    });
  });

  it('credits once when two COMPLETE requests race', async () => {
    const { world, rider } = await travelledTrip();
    const answers = await Promise.all([
      dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' }),
      dispatch(app, world.sessions.OWNER, world.trip.tripId, { action: 'COMPLETE' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers.map((answer) => answer.body.data.replayed).sort()).toEqual([false, true]);
    const earned = (await ledger(world.companyId, rider.userId)).filter((row) => row.kind === 'EARN');
    expect(earned).toHaveLength(1);
    const [account] = await app.db.query<{ balance: number }>(
      'select balance from loyalty_accounts where company_id = $1 and user_id = $2',
      [world.companyId, rider.userId],
    );
    expect(account!.balance).toBe(1050);
  });

  /**
   * README Dispatch: a trip's bookings earn under the programme as COMPLETE found it; a second
   * COMPLETE (the operations room, or POST /trips/bulk) only finishes what that completion owed.
   * The programme is set through the dashboard (PUT /loyalty: 2 points per 100 SYP, 100 per
   * referral); one traveller with a 10,000 SYP booking checks in and pays, the bus arrives.
   */
  describe('earning is settled by the first COMPLETE', () => {
    async function arrivedTrip() {
      const world = await operationsWorld(app, { seats: 8 });
      const owner = await companyWithProgramme(app, world.companyId);
      const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
      await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
      await boardAndPay(app, world, booked);
      await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE');
      const setProgramme = async (terms: Partial<typeof PROGRAM>) => {
        const saved = await programmeCall(app, owner, 'PUT', '/loyalty', { ...PROGRAM, ...terms });
        expect(saved.status, saved.text).toBe(200);
      };
      return { world, booked, setProgramme };
    }

    const bulkComplete = (world: OperationsWorld) =>
      app.request('/dashboard/api/trips/bulk', {
        method: 'POST',
        headers: world.dispatcher.writeHeaders,
        json: { trip_ids: [world.trip.tripId], action: 'complete' },
      });

    it('a trip completed while the programme was switched off earns nothing when COMPLETE is sent again after it is switched back on', async () => {
      const { world, booked, setProgramme } = await arrivedTrip();
      await setProgramme({ active: false });
      const completed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(completed.status, completed.text).toBe(200);
      expect(completed.body.data.loyalty).toEqual({
        bookings_credited: 0,
        points_credited: 0,
        referrals_rewarded: 0,
      });

      await setProgramme({ active: true });
      const again = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(again.status, again.text).toBe(200);
      expect(again.body.data).toMatchObject({
        replayed: true,
        loyalty: { bookings_credited: 0, points_credited: 0, referrals_rewarded: 0 },
      });
      const bulk = await bulkComplete(world);
      expect(bulk.status, bulk.text).toBe(200);
      expect(bulk.body.data.results).toEqual([expect.objectContaining({ success: true, replayed: true })]);
      expect(await ledger(world.companyId, booked.caller.userId)).toEqual([]);
    });

    it('a trip completed at 0 points per 100 earns nothing when COMPLETE is sent again after the rate is raised', async () => {
      const { world, booked, setProgramme } = await arrivedTrip();
      await setProgramme({ pointsPer100: 0 });
      const completed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(completed.status, completed.text).toBe(200);
      expect(completed.body.data.loyalty).toMatchObject({ bookings_credited: 0, points_credited: 0 });

      await setProgramme({ pointsPer100: 50 });
      const again = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(again.status, again.text).toBe(200);
      expect(again.body.data).toMatchObject({
        replayed: true,
        loyalty: { points_credited: 0, referrals_rewarded: 0 },
      });
      const bulk = await bulkComplete(world);
      expect(bulk.status, bulk.text).toBe(200);
      expect(await ledger(world.companyId, booked.caller.userId)).toEqual([]);
    });

    it('a second COMPLETE finishes an earning a crash interrupted, under the terms the trip completed under', async () => {
      const { world, booked, setProgramme } = await arrivedTrip();
      // The traveller's account is held, so the award after COMPLETE's commit waits for it; its
      // connection is then cut, as a crash between the commit and the earning would leave it.
      const accountId = await ensureAccount(app.db.pool, world.companyId, booked.caller.userId);
      const accounts = await holdLock(
        app.db,
        `select 1 from loyalty_accounts where id = '${accountId}' for update`,
      );
      const completing = dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      const [award] = await waitersOf(app.db, accounts.pid);
      await app.db.query('select pg_terminate_backend($1)', [award]);
      const interrupted = await completing.finally(() => accounts.release());
      expect(interrupted.status, interrupted.text).toBeGreaterThanOrEqual(500);
      const [trip] = await app.db.query<{ status: string }>('select status from trips where id = $1', [
        world.trip.tripId,
      ]);
      expect(trip!.status).toBe('COMPLETED');
      expect(await ledger(world.companyId, booked.caller.userId)).toEqual([]);

      // The company raises its rate afterwards; the replay pays what the completion owed: 10,000 / 100 × 2.
      await setProgramme({ pointsPer100: 50 });
      const again = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(again.status, again.text).toBe(200);
      expect(again.body.data).toMatchObject({
        replayed: true,
        loyalty: { bookings_credited: 1, points_credited: 200 },
      });
      expect(await ledger(world.companyId, booked.caller.userId)).toEqual([
        { kind: 'EARN', points: 200, booking_id: booked.bookingId },
      ]);
    });
  });
  /**
   * README Loyalty / Dispatch: `bookings_credited` counts the bookings whose points this COMPLETE
   * posted, and a trip's bookings earn at the tier their traveller had when the trip was completed,
   * before that trip's own points (10 points per 100 SYP; 1,000 lifetime points reach 150%).
   */
  describe('what a COMPLETE credits', () => {
    const account = async (companyId: string, userId: string) =>
      (
        await app.db.query<{ balance: number; lifetime_points: number }>(
          'select balance, lifetime_points from loyalty_accounts where company_id = $1 and user_id = $2',
          [companyId, userId],
        )
      )[0];

    /** A traveller's booking of one seat made free by a free-trip voucher (100 points spent on it). */
    async function freeBooking(
      world: OperationsWorld,
      seat: string,
    ): Promise<{ caller: Caller; ticketId: string }> {
      const caller = await mobileTraveller(app);
      const reward = await giveReward(app.db, world.companyId, {
        type: 'free_trip',
        freeSeats: 1,
        pointsCost: 100,
      });
      await creditPoints(app.db, { companyId: world.companyId, userId: caller.userId, points: 100 });
      const voucher = await redeemVoucher(app, caller, world.companyId, reward.code);
      const booking = await createBooking(app, caller, {
        tripId: world.trip.tripId,
        seatNumbers: [seat],
        rewardCode: voucher,
      });
      expect(Number(booking.total_price)).toBe(0);
      const [ticket] = await app.db.query<{ id: string }>(
        `select id from journey_tickets where journey_id = $1 and status = 'VALID'`,
        [booking.journey_id],
      );
      return { caller, ticketId: ticket!.id };
    }

    it('reports no booking credited, first or on a replay, for a travelled booking that earns 0 points', async () => {
      const world = await operationsWorld(app, { seats: 8 });
      await loyaltyProgram(app.db, world.companyId, { pointsPer100: 10 });
      const { caller, ticketId } = await freeBooking(world, world.trip.seatNumbers[0]!);
      await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
      const checkIn = await travellerAction(app, world.dispatcher, world.trip.tripId, 'CHECK_IN', ticketId);
      expect(checkIn.status, checkIn.text).toBe(200);
      await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE');

      const nothing = { bookings_credited: 0, points_credited: 0, referrals_rewarded: 0 };
      const completed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(completed.status, completed.text).toBe(200);
      expect(completed.body.data).toMatchObject({ replayed: false, effects: { completed_bookings: 1 } });
      expect(completed.body.data.loyalty).toEqual(nothing);
      const again = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(again.status, again.text).toBe(200);
      expect(again.body.data).toMatchObject({ replayed: true, loyalty: nothing });
      // Nothing earned: the account holds what the voucher left of the 100 points credited.
      expect((await ledger(world.companyId, caller.userId)).filter((row) => row.kind === 'EARN')).toEqual([]);
      expect(await account(world.companyId, caller.userId)).toEqual({ balance: 0, lifetime_points: 100 });
    });

    it('two identical bookings of one traveller earn the same points, at the tier of before the trip', async () => {
      const world = await operationsWorld(app, { seats: 8 });
      await loyaltyProgram(app.db, world.companyId, {
        pointsPer100: 10,
        tiers: [
          [0, 100],
          [1000, 150],
        ],
      });
      const rider = await mobileTraveller(app);
      const bookings = [
        await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!], rider),
        await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!], rider),
      ];
      await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
      for (const booked of bookings) await boardAndPay(app, world, booked);
      await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE');

      const completed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(completed.status, completed.text).toBe(200);
      // 10,000 SYP / 100 × 10 × 100% each: the first credit reaching 1,000 does not raise the second.
      expect(completed.body.data.loyalty).toEqual({
        bookings_credited: 2,
        points_credited: 2000,
        referrals_rewarded: 0,
      });
      const earned = (await ledger(world.companyId, rider.userId)).map(({ points, booking_id }) => ({
        points,
        booking_id,
      }));
      expect(earned.sort((a, b) => a.booking_id.localeCompare(b.booking_id))).toEqual(
        bookings
          .map((booked) => ({ points: 1000, booking_id: booked.bookingId }))
          .sort((a, b) => a.booking_id.localeCompare(b.booking_id)),
      );
      const again = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
      expect(again.body.data).toMatchObject({
        replayed: true,
        loyalty: { bookings_credited: 0, points_credited: 0, referrals_rewarded: 0 },
      });
      expect(await account(world.companyId, rider.userId)).toEqual({ balance: 2000, lifetime_points: 2000 });
    });
  });
});
