import { beforeAll, describe, expect, it } from 'vitest';
import { waitersOf } from '../../drills/support/blocking.js';
import { useTestApp, type TestApp, type TestResponse } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import {
  bookJourney,
  connection,
  mobileTraveller,
  setConfirmation,
  type Caller,
} from '../../support/journeys.js';
import { bookableTrip, createBooking, lockSeats, type BookableTripFixture } from '../../support/bookings.js';
import { creditPoints, giveReward, loyaltyProgram, redeemVoucher } from '../../support/loyalty.js';
import { programmeCall } from '../../support/loyalty-admin.js';
import {
  assignDriver,
  createDriver,
  dispatch,
  operationsSnapshot,
  scan,
  setTripStatus,
} from '../../support/operations.js';
import { announceCashPayment, collectCash } from '../../support/payments.js';

/**
 * CANCEL of a trip ends every journey with a leg on it as a whole: here a connection whose first
 * leg is on company A's trip and whose second is on company B's.
 */
describe('cancelling a trip that carries one leg of a two-leg journey', () => {
  const app = useTestApp();
  let world: Awaited<ReturnType<typeof connection>>;
  let traveller: Caller;
  let journeyId: string;
  let bookings: { id: string; company_id: string; trip_id: string }[];
  let ticketIds: string[];
  let seatLockId: string;
  let dispatcherA: Awaited<ReturnType<typeof staffSession>>;

  beforeAll(async () => {
    world = await connection(app.db);
    traveller = await mobileTraveller(app);
    const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }], 2);
    journeyId = booked.journeyId;
    expect(booked.confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    bookings = await app.db.query(`select id, company_id, trip_id from bookings where journey_id = $1`, [
      journeyId,
    ]);
    expect(bookings).toHaveLength(2);
    ticketIds = (
      await app.db.query<{ id: string }>(`select id from journey_tickets where journey_id = $1`, [journeyId])
    ).map((row) => row.id);
    expect(ticketIds).toHaveLength(4);
    const legA = bookings.find((booking) => booking.trip_id === world.first.tripId)!;
    const legB = bookings.find((booking) => booking.trip_id === world.second.tripId)!;
    await announceCashPayment(app.db, legA.id, traveller.userId);
    await collectCash(app.db, legB.id);
    // Someone else is about to book the last seats of A's trip.
    const other = await mobileTraveller(app);
    const labels = await app.db.query<{ seat_number: string }>(
      `select s.seat_number from layout_seats s join bus_layouts l on l.id = s.layout_id join trips t on t.bus_id = l.bus_id
       where t.id = $1 and l.status = 'active' order by s.seat_number desc limit 1`,
      [world.first.tripId],
    );
    seatLockId = await lockSeats(app, other, world.first.tripId, [labels[0]!.seat_number]);
    dispatcherA = await staffSession(app.db, app.config, world.first.companyId, 'DISPATCHER');
  });

  it('refuses a cancel without a reason and changes nothing', async () => {
    const before = await operationsSnapshot(app.db, world.first.tripId);
    const response = await dispatch(app, dispatcherA, world.first.tripId, { action: 'CANCEL' });
    expect(response.status).toBe(400);
    expect(response.body.errorCode).toBe('REASON_REQUIRED');
    expect(await operationsSnapshot(app.db, world.first.tripId)).toEqual(before);
  });

  it('ends the journey on both legs, frees the seats, revokes the tickets and settles the money', async () => {
    const response = await dispatch(app, dispatcherA, world.first.tripId, {
      action: 'CANCEL',
      reason: 'Bus breakdown',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      status: 'CANCELLED',
      effects: {
        cancelled_journeys: 1,
        cancelled_bookings: 2,
        revoked_credentials: 4,
        cancelled_payments: 1,
        refund_due_payments: 1,
        events: 2,
      },
      allowed_actions: [],
    });

    const [journey] = await app.db.query(`select status, failure_reason from journeys where id = $1`, [
      journeyId,
    ]);
    expect(journey).toEqual({ status: 'CANCELLED', failure_reason: 'TRIP_CANCELLED' });
    const statuses = await app.db.query<{ status: string }>(
      `select status from bookings where journey_id = $1`,
      [journeyId],
    );
    expect(statuses.map((row) => row.status)).toEqual(['CANCELLED', 'CANCELLED']);
    const tickets = await app.db.query<{ status: string; boarding_authorized: boolean; revoked: boolean }>(
      `select k.status, k.boarding_authorized, r.ticket_id is not null as revoked
       from journey_tickets k left join credential_revocations r on r.ticket_id = k.id where k.journey_id = $1`,
      [journeyId],
    );
    expect(tickets).toHaveLength(4);
    for (const ticket of tickets) {
      expect(ticket).toEqual({ status: 'CANCELLED', boarding_authorized: false, revoked: true });
    }
    const live = await app.db.query(
      `select trip_id from seat_allocations where status in ('HELD', 'CONFIRMED')
       and (owner_id = $1 or hold_batch_id = $2)`,
      [journeyId, seatLockId],
    );
    expect(live).toEqual([]);
    const [lock] = await app.db.query(`select status from hold_batches where id = $1`, [seatLockId]);
    expect(lock).toEqual({ status: 'RELEASED' });

    const payments = await app.db.query<{
      booking_id: string;
      status: string;
      refund_due_reason: string | null;
    }>(
      `select booking_id, status, refund_due_reason from payment_operations where booking_id = any($1::uuid[])`,
      [bookings.map((booking) => booking.id)],
    );
    const legA = bookings.find((booking) => booking.trip_id === world.first.tripId)!;
    const legB = bookings.find((booking) => booking.trip_id === world.second.tripId)!;
    expect(payments.find((payment) => payment.booking_id === legA.id)).toMatchObject({
      status: 'CANCELLED',
      refund_due_reason: null,
    });
    // B's line: the code alone, A's dispatcher's words are A's (the trip's company's lines keep them).
    expect(payments.find((payment) => payment.booking_id === legB.id)).toMatchObject({
      status: 'REFUND_DUE',
      refund_due_reason: 'TRIP_CANCELLED',
    });

    const events = await app.db.query<{ booking_id: string; company_id: string; event: string }>(
      `select booking_id, company_id, event from outbox_events where booking_id = any($1::uuid[]) and event = 'booking.cancelled'`,
      [bookings.map((booking) => booking.id)],
    );
    expect(events.map((event) => [event.booking_id, event.company_id]).sort()).toEqual(
      bookings.map((booking) => [booking.id, booking.company_id]).sort(),
    );

    const [log] = await app.db.query(
      `select action, reason, before, after, details from trip_operation_events where trip_id = $1`,
      [world.first.tripId],
    );
    expect(log).toMatchObject({
      action: 'CANCEL',
      reason: 'Bus breakdown',
      before: { status: 'SCHEDULED' },
      after: { status: 'CANCELLED' },
      details: { cancelledBookings: 2 },
    });
  });

  it("hands the money to each company's finance: cancelled cash names who cancelled, collected cash is refundable", async () => {
    const lineOf = async (booking: { id: string; company_id: string }) => {
      const [operation] = await app.db.query<{ id: string }>(
        `select id from payment_operations where booking_id = $1`,
        [booking.id],
      );
      const owner = await staffSession(app.db, app.config, booking.company_id, 'OWNER');
      const response = await app.request(`/dashboard/api/payments/${operation!.id}`, {
        headers: { Cookie: owner.cookie },
      });
      expect(response.status, response.text).toBe(200);
      return response.body.data;
    };
    const legA = bookings.find((booking) => booking.trip_id === world.first.tripId)!;
    const legB = bookings.find((booking) => booking.trip_id === world.second.tripId)!;
    expect(await lineOf(legA)).toMatchObject({
      status: 'CANCELLED',
      cancelled_by: dispatcherA.staffUserId,
      allowed_actions: [],
    });
    expect(await lineOf(legB)).toMatchObject({
      status: 'REFUND_DUE',
      refund_due_reason: 'TRIP_CANCELLED',
      allowed_actions: ['refund'],
    });
  });

  it("lets company B's driver see the second leg's ticket refused as cancelled", async () => {
    const driver = await createDriver(app, world.second.companyId);
    await assignDriver(app.db, world.second.tripId, driver.staffUserId);
    await setTripStatus(app.db, world.second.tripId, 'BOARDING');
    const [credential] = await app.db.query<{ payload: object; signature: string }>(
      `select payload, signature from journey_tickets where journey_id = $1 and trip_id = $2 limit 1`,
      [journeyId, world.second.tripId],
    );
    const response = await scan(app, driver.token, world.second.tripId, credential!);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ outcome: 'REFUSED', reason: 'TICKET_CANCELLED' });
  });

  it('refuses to cancel a trip that has departed', async () => {
    await setTripStatus(app.db, world.second.tripId, 'DEPARTED');
    const dispatcherB = await staffSession(app.db, app.config, world.second.companyId, 'DISPATCHER');
    const response = await dispatch(app, dispatcherB, world.second.tripId, {
      action: 'CANCEL',
      reason: 'Too late',
    });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      errorCode: 'TRIP_ACTION_NOT_ALLOWED',
      details: { status: 'DEPARTED', allowedActions: ['ARRIVE', 'CHECK_IN', 'MARK_NO_SHOW', 'RESTORE'] },
    });
  });
});

/**
 * The connection's first trip, with a driver, run through `actions` by its OWNER, then its second
 * trip cancelled by the second company's OWNER (200).
 */
async function runFirstThenCancelSecond(
  app: TestApp,
  world: Awaited<ReturnType<typeof connection>>,
  actions: Record<string, unknown>[],
): Promise<void> {
  const ownerA = await staffSession(app.db, app.config, world.first.companyId, 'OWNER');
  const ownerB = await staffSession(app.db, app.config, world.second.companyId, 'OWNER');
  const driver = await createDriver(app, world.first.companyId);
  await assignDriver(app.db, world.first.tripId, driver.staffUserId);
  for (const body of actions) {
    const answer = await dispatch(app, ownerA, world.first.tripId, body);
    expect(answer.status, `${String(body.action)} ${answer.text}`).toBe(200);
  }
  const cancelled = await dispatch(app, ownerB, world.second.tripId, {
    action: 'CANCEL',
    reason: 'Breakdown',
  });
  expect(cancelled.status, cancelled.text).toBe(200);
}

/** Each leg of the journey by its trip: the booking's status and its seats' statuses. */
async function legsOf(app: TestApp, journeyId: string): Promise<Record<string, string>> {
  const rows = await app.db.query<{ trip_id: string; status: string; seats: string | null }>(
    `select b.trip_id, b.status,
            (select string_agg(a.status, ',') from seat_allocations a
              where a.owner_id = b.journey_id and a.trip_id = b.trip_id) as seats
       from bookings b where b.journey_id = $1`,
    [journeyId],
  );
  return Object.fromEntries(rows.map((row) => [row.trip_id, `${row.status} ${row.seats}`]));
}

describe('cancelling the second trip of a connection whose first leg has travelled', () => {
  const app = useTestApp();

  it('ends the second leg and keeps the journey: the travelled leg stands, COMPLETED with its seat', async () => {
    const world = await connection(app.db);
    const traveller = await mobileTraveller(app);
    const { journeyId } = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }]);
    const [legA] = await app.db.query<{ id: string }>(
      `select id from bookings where journey_id = $1 and trip_id = $2`,
      [journeyId, world.first.tripId],
    );
    await collectCash(app.db, legA!.id);
    const [ticket] = await app.db.query<{ id: string }>(
      `select id from journey_tickets where journey_id = $1 and trip_id = $2`,
      [journeyId, world.first.tripId],
    );
    await runFirstThenCancelSecond(app, world, [
      { action: 'START_BOARDING' },
      { action: 'CHECK_IN', manifest_item_id: ticket!.id, manifest_item_type: 'JOURNEY_TICKET' },
      { action: 'DEPART' },
      { action: 'ARRIVE' },
      { action: 'COMPLETE' },
    ]);
    expect(await legsOf(app, journeyId)).toEqual({
      [world.first.tripId]: 'COMPLETED CONFIRMED',
      [world.second.tripId]: 'CANCELLED RELEASED',
    });
    // Before: CANCELLED, an ended journey over a booking that travelled and kept its seat.
    const [journey] = await app.db.query<{ status: string }>(`select status from journeys where id = $1`, [
      journeyId,
    ]);
    expect(journey!.status).toBe('CONFIRMED');
  });
});

describe('cancelling the second trip of a connection still awaiting a company, whose first bus has left', () => {
  const app = useTestApp();

  it('ends the whole journey: both legs, their seats and the request (nothing travelled)', async () => {
    const world = await connection(app.db);
    await setConfirmation(app.db, world.second.companyId, { mode: 'MANUAL_CONFIRM' });
    const traveller = await mobileTraveller(app);
    const { journeyId, confirmed } = await bookJourney(app, traveller, [
      { trip: world.first },
      { trip: world.second },
    ]);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    await runFirstThenCancelSecond(app, world, [{ action: 'START_BOARDING' }, { action: 'DEPART' }]);
    // Before: the first leg stayed PENDING_CONFIRMATION with its seat HELD, so the journey stayed REQUESTED.
    expect(await legsOf(app, journeyId)).toEqual({
      [world.first.tripId]: 'CANCELLED RELEASED',
      [world.second.tripId]: 'CANCELLED RELEASED',
    });
    const [journey] = await app.db.query<{ status: string; failure_reason: string | null }>(
      `select status, failure_reason from journeys where id = $1`,
      [journeyId],
    );
    expect(journey).toEqual({ status: 'CANCELLED', failure_reason: 'TRIP_CANCELLED' });
    const requests = await app.db.query<{ status: string }>(
      `select status from confirmation_requests where scope_kind = 'JOURNEY' and scope_id = $1`,
      [journeyId],
    );
    expect(requests.map((request) => request.status)).toEqual(['CANCELLED']);
  });
});

describe("cancelling a trip: the other company's cancelled cash", () => {
  const app = useTestApp();

  it("names nobody of the cancelling company on the other leg's cancelled cash line, in either ledger", async () => {
    const world = await connection(app.db);
    const traveller = await mobileTraveller(app);
    const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }], 1);
    const legs = await app.db.query<{ id: string; trip_id: string }>(
      `select id, trip_id from bookings where journey_id = $1`,
      [booked.journeyId],
    );
    for (const leg of legs) await announceCashPayment(app.db, leg.id, traveller.userId);
    const dispatcherA = await staffSession(app.db, app.config, world.first.companyId, 'DISPATCHER');
    const cancelled = await dispatch(app, dispatcherA, world.first.tripId, {
      action: 'CANCEL',
      reason: 'Breakdown',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data.effects).toMatchObject({ cancelled_bookings: 2, cancelled_payments: 2 });

    const ledgerOf = async (companyId: string) => {
      const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
      const response = await app.request('/dashboard/api/payments', { headers: { Cookie: owner.cookie } });
      expect(response.status, response.text).toBe(200);
      return (
        response.body.data as { booking: { id: string }; status: string; cancelled_by: string | null }[]
      ).map(({ booking, status, cancelled_by }) => ({ booking_id: booking.id, status, cancelled_by }));
    };
    const legA = legs.find((leg) => leg.trip_id === world.first.tripId)!;
    const legB = legs.find((leg) => leg.trip_id === world.second.tripId)!;
    expect(await ledgerOf(world.first.companyId)).toEqual([
      { booking_id: legA.id, status: 'CANCELLED', cancelled_by: dispatcherA.staffUserId },
    ]);
    expect(await ledgerOf(world.second.companyId)).toEqual([
      { booking_id: legB.id, status: 'CANCELLED', cancelled_by: null },
    ]);
  });
});

/**
 * A voucher the traveller spent on a booking the company then cancels (the whole trip) is theirs
 * again: the cancellation is the company's, not the traveller's (whose own cancel keeps it spent).
 */
describe('cancelling a trip gives back the vouchers its bookings used', () => {
  const app = useTestApp();

  it('sets the voucher ISSUED again, usable on the next booking, and keeps a traveller-cancelled one spent', async () => {
    const trip = await bookableTrip(app.db, { price: 10_000 });
    await loyaltyProgram(app.db, trip.companyId, { pointsPer100: 10 });
    const traveller = await app.signIn();
    const { code: rewardCode } = await giveReward(app.db, trip.companyId, {
      pointsCost: 100,
      discountPercent: 20,
    });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 200 });
    const caller = {
      userId: traveller.userId,
      headers: traveller.writeHeaders,
      channel: 'CUSTOMER_WEB' as const,
    };
    const voucher = await redeemVoucher(app, traveller.token, trip.companyId, rewardCode);
    const kept = await redeemVoucher(app, traveller.token, trip.companyId, rewardCode);
    const onCancelledTrip = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: [trip.seatNumbers[0]!],
      rewardCode: voucher,
    });
    expect(onCancelledTrip.total_price).toBe(8_000);
    const other = await bookableTrip(app.db, { price: 10_000, companyId: trip.companyId });
    const travellerCancelled = await createBooking(app, caller, {
      tripId: other.tripId,
      seatNumbers: [other.seatNumbers[0]!],
      rewardCode: kept,
    });
    const ownCancel = await app.request(`/api/bookings/${travellerCancelled.id}/cancel`, {
      method: 'POST',
      headers: traveller.writeHeaders,
      json: {},
    });
    expect(ownCancel.status, ownCancel.text).toBe(200);

    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    const cancelled = await dispatch(app, owner, trip.tripId, { action: 'CANCEL', reason: 'Bus broke down' });
    expect(cancelled.status, cancelled.text).toBe(200);

    const vouchers = await app.db.query<{ code: string; status: string; discount: string | null }>(
      `select code, status, discount from loyalty_redemptions where code = any($1) order by code = $2 desc`,
      [[voucher, kept], voucher],
    );
    expect(vouchers).toEqual([
      { code: voucher, status: 'ISSUED', discount: null },
      { code: kept, status: 'USED', discount: '2000' },
    ]);
    const again = await createBooking(app, caller, {
      tripId: other.tripId,
      seatNumbers: [other.seatNumbers[1]!],
      rewardCode: voucher,
    });
    expect(again.total_price).toBe(8_000);
  });

  /** A traveller holding 150 points who spent a 100-point voucher of `reward` on a booking of the trip. */
  async function voucherOnTrip(trip: BookableTripFixture, reward: { code: string }) {
    const traveller = await app.signIn();
    const caller = {
      userId: traveller.userId,
      headers: traveller.writeHeaders,
      channel: 'CUSTOMER_WEB' as const,
    };
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 150 });
    const voucher = await redeemVoucher(app, traveller.token, trip.companyId, reward.code);
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: [trip.seatNumbers[0]!],
      rewardCode: voucher,
    });
    expect(booking.total_price).toBe(9_000);
    return { traveller, voucher };
  }

  /** The voucher, its holder's balance and the VOUCHER_REFUND entries of the holder's account. */
  async function afterCancel(companyId: string, userId: string, code: string) {
    const [voucher] = await app.db.query<{ id: string; status: string }>(
      `select id, status from loyalty_redemptions where code = $1`,
      [code],
    );
    const [account] = await app.db.query<{ id: string; balance: number }>(
      `select id, balance from loyalty_accounts where company_id = $1 and user_id = $2`,
      [companyId, userId],
    );
    const refunds = await app.db.query(
      `select points, balance_after, redemption_id, actor_staff_user_id, reason from loyalty_transactions
        where account_id = $1 and kind = 'VOUCHER_REFUND'`,
      [account!.id],
    );
    return { voucher: voucher!, balance: account!.balance, refunds };
  }

  it('cancels a voucher whose reward was withdrawn meanwhile and returns its points: one VOUCHER_REFUND', async () => {
    const trip = await bookableTrip(app.db, { price: 10_000 });
    await loyaltyProgram(app.db, trip.companyId);
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100, discountPercent: 10 });
    const { traveller, voucher } = await voucherOnTrip(trip, reward);
    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    // The voucher is USED: the withdrawal has nothing to cancel or return yet.
    const withdrawn = await programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${reward.id}`);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.data).toMatchObject({ removed: false, vouchersCancelled: 0, pointsReturned: 0 });

    const cancelled = await dispatch(app, owner, trip.tripId, { action: 'CANCEL', reason: 'Road closed' });
    expect(cancelled.status, cancelled.text).toBe(200);
    const after = await afterCancel(trip.companyId, traveller.userId, voucher);
    expect(after.voucher.status).toBe('CANCELLED');
    expect(after.balance).toBe(150);
    expect(after.refunds).toEqual([
      {
        points: 100,
        balance_after: 150,
        redemption_id: after.voucher.id,
        actor_staff_user_id: owner.staffUserId,
        reason: expect.stringContaining(reward.code),
      },
    ]);
    // Asking for the withdrawal again returns nothing twice.
    const again = await programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${reward.id}`);
    expect(again.body.data).toMatchObject({ vouchersCancelled: 0, pointsReturned: 0 });
    expect((await afterCancel(trip.companyId, traveller.userId, voucher)).balance).toBe(150);
  });

  it('a cancel meeting a withdrawal that is archiving the reward waits for it, then cancels and refunds the voucher', async () => {
    const trip = await bookableTrip(app.db, { price: 10_000 });
    await loyaltyProgram(app.db, trip.companyId);
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100, discountPercent: 10 });
    const { traveller, voucher } = await voucherOnTrip(trip, reward);
    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    // The withdrawal's first step in flight: the reward archived, not yet committed.
    const stepOne = await app.db.pool.connect();
    let cancel: Promise<TestResponse>;
    try {
      await stepOne.query('begin');
      await stepOne.query(`update loyalty_rewards set archived_at = now(), active = false where id = $1`, [
        reward.id,
      ]);
      const { rows } = await stepOne.query<{ pid: number }>('select pg_backend_pid() as pid');
      cancel = dispatch(app, owner, trip.tripId, { action: 'CANCEL', reason: 'Road closed' });
      await waitersOf(app.db, rows[0]!.pid);
      await stepOne.query('commit');
    } catch (error) {
      await stepOne.query('rollback');
      throw error;
    } finally {
      stepOne.release();
    }
    const cancelled = await cancel;
    expect(cancelled.status, cancelled.text).toBe(200);
    const after = await afterCancel(trip.companyId, traveller.userId, voucher);
    expect([after.voucher.status, after.balance, after.refunds.length]).toEqual(['CANCELLED', 150, 1]);
    // The withdrawal's second step then finds nothing left to return.
    const finished = await programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${reward.id}`);
    expect(finished.body.data).toMatchObject({ removed: false, vouchersCancelled: 0, pointsReturned: 0 });
    expect((await afterCancel(trip.companyId, traveller.userId, voucher)).balance).toBe(150);
  });
});
