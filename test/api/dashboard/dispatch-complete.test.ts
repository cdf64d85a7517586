import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount, recordReferral } from '../../../db/writes/loyalty/index.js';
import { useTestApp } from '../../support/harness.js';
import { mobileTraveller } from '../../support/journeys.js';
import { loyaltyProgram } from '../../support/loyalty.js';
import {
  advance,
  bookSeats,
  dispatch,
  operationsWorld,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

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
    const checkIn = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CHECK_IN',
      manifest_item_id: travelled.ticketIds[0],
      manifest_item_type: 'JOURNEY_TICKET',
    });
    expect(checkIn.status).toBe(200);
    await collectCash(app.db, travelled.bookingId, { source: 'driver' });
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
});
