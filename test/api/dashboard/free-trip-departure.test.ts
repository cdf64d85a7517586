import { describe, expect, it } from 'vitest';
import { createBooking } from '../../support/bookings.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { mobileTraveller } from '../../support/journeys.js';
import { creditPoints, giveReward, loyaltyProgram, redeemVoucher } from '../../support/loyalty.js';
import {
  bookSeats,
  dispatch,
  dispatchView,
  operationsSnapshot,
  operationsWorld,
  type OperationsWorld,
} from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

/**
 * CASH_TO_COLLECT holds the bus for checked-in travellers whose booking still owes cash. A booking
 * that costs nothing (here a free-trip voucher) stays UNPAID, since nothing is ever collected for
 * it, and must not hold the bus: the dispatcher could not clear it, and no one should record a
 * collection of 0 SYP to let it leave.
 */
describe('departure with a free-trip booking on board', () => {
  const app = useTestApp();

  /** A traveller books one seat with a free-trip voucher of the trip's company; the booking costs 0 SYP. */
  async function freeTripBooking(world: OperationsWorld, seatNumber: string) {
    await loyaltyProgram(app.db, world.companyId);
    const reward = await giveReward(app.db, world.companyId, {
      type: 'free_trip',
      freeSeats: 1,
      pointsCost: 100,
    });
    const traveller = await mobileTraveller(app);
    await creditPoints(app.db, { companyId: world.companyId, userId: traveller.userId, points: 100 });
    const voucher = await redeemVoucher(app, traveller, world.companyId, reward.code);
    const booking = await createBooking(app, traveller, {
      tripId: world.trip.tripId,
      seatNumbers: [seatNumber],
      rewardCode: voucher,
    });
    return { bookingId: booking.id, ticketId: await ticketOf(app, booking.journey_id) };
  }

  async function checkIn(world: OperationsWorld, ticketId: string) {
    const response = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CHECK_IN',
      manifest_item_id: ticketId,
      manifest_item_type: 'JOURNEY_TICKET',
    });
    expect(response.status, response.text).toBe(200);
  }

  it('a checked-in traveller whose booking costs nothing does not hold the bus', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const free = await freeTripBooking(world, world.trip.seatNumbers[0]!);
    const boarding = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'START_BOARDING' });
    expect(boarding.status, boarding.text).toBe(200);
    await checkIn(world, free.ticketId);

    const view = await dispatchView(app, world.dispatcher, world.trip.tripId);
    expect(view.status, view.text).toBe(200);
    expect(view.body.data.readiness.blockers).toEqual([]);
    const seat = view.body.data.manifest.find(
      (entry: { manifest_item_id: string }) => entry.manifest_item_id === free.ticketId,
    );
    expect(seat.payment).toMatchObject({ status: 'UNPAID', total_price: 0 });

    const departed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    expect(departed.status, departed.text).toBe(200);
    expect(departed.body.data.trip.status).toBe('DEPARTED');
    // Nothing was collected to let it leave: the booking is stored as it was, with no payment line.
    const [booking] = await app.db.query<{ payment_status: string; total_price: string }>(
      `select payment_status, total_price from bookings where id = $1`,
      [free.bookingId],
    );
    expect(booking).toEqual({ payment_status: 'UNPAID', total_price: '0' });
    const payments = await app.db.query(`select id from payment_operations where booking_id = $1`, [
      free.bookingId,
    ]);
    expect(payments).toEqual([]);
  });

  it('a checked-in unpaid booking with a price still holds the bus, and only it is counted', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const free = await freeTripBooking(world, world.trip.seatNumbers[0]!);
    const paying = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'START_BOARDING' });
    await checkIn(world, free.ticketId);
    await checkIn(world, paying.ticketIds[0]!);

    const before = await operationsSnapshot(app.db, world.trip.tripId);
    const refused = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({
      errorCode: 'TRIP_NOT_READY',
      details: { blockers: [{ code: 'CASH_TO_COLLECT', count: 1 }] },
    });
    expect(refused.body.details.blockers).toHaveLength(1);
    expect(await operationsSnapshot(app.db, world.trip.tripId)).toEqual(before);

    await collectCash(app.db, paying.bookingId, { source: 'driver' });
    const departed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    expect(departed.status, departed.text).toBe(200);
  });
});

async function ticketOf(app: TestApp, journeyId: string): Promise<string> {
  const [ticket] = await app.db.query<{ id: string }>(
    `select id from journey_tickets where journey_id = $1`,
    [journeyId],
  );
  return ticket!.id;
}
