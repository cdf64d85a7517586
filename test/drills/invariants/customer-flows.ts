import { randomUUID } from 'node:crypto';
import type { BookableTripFixture } from '../../support/bookings.js';
import {
  allTrips,
  callerOf,
  companyIds,
  pickRow,
  pickTrip,
  randomSeats,
  travellerWrite,
  type World,
} from './world.js';

/**
 * What travellers do, each step one flow through the public API: lock seats and book (with a loyalty
 * voucher most times one is at hand), quote/hold/confirm a journey (or release the hold), cancel,
 * move a booking to another trip, announce a cash payment, redeem points for a voucher.
 */

/** The traveller's ISSUED voucher in the AUTO company, if any. */
export async function issuedVoucher(world: World, userId: string): Promise<string | undefined> {
  const [voucher] = await world.app.db.query<{ code: string }>(
    `select code from loyalty_redemptions where user_id = $1 and company_id = $2 and status = 'ISSUED' limit 1`,
    [userId, world.auto.id],
  );
  return voucher?.code;
}

/** POST /api/seat-locks then POST /api/bookings, with the caller's voucher 85 % of the times there is one. */
export async function lockAndBook(world: World): Promise<void> {
  const { dice, answers } = world;
  const { trip } = await pickTrip(world, world.auto);
  const caller = dice.pick(world.travellers)!;
  const seats = randomSeats(world, dice.int(1, 2));
  const lock = answers.record(
    'seat-lock',
    await travellerWrite(world, caller, '/api/seat-locks', { trip_id: trip.tripId, seat_numbers: seats }),
  );
  if (lock.status !== 201) return;
  const voucher = dice.chance(0.85) ? await issuedVoucher(world, caller.userId) : undefined;
  answers.record(
    voucher ? 'book+voucher' : 'book',
    await travellerWrite(world, caller, '/api/bookings', {
      trip_id: trip.tripId,
      passenger_name: 'Random Traveller',
      passenger_phone: '+963944123456',
      seats_count: seats.length,
      seat_numbers: seats,
      seat_lock_session_id: lock.body.data.seat_lock_session_id,
      ...(voucher ? { reward_code: voucher } : {}),
    }),
  );
}

/** Quote, hold and confirm a journey of one or two travellers on any trip; one hold in ten is released instead. */
export async function journey(world: World): Promise<void> {
  const { dice, answers } = world;
  const { company, trip } = await pickTrip(world);
  const caller = dice.pick(world.travellers)!;
  const party = dice.int(1, 2);
  const quoted = answers.record(
    'quote',
    await travellerWrite(world, caller, '/api/journeys/quote', {
      party_size: party,
      legs: [
        {
          trip_id: trip.tripId,
          board_stop_call_id: trip.stopCallIds[0],
          alight_stop_call_id: trip.stopCallIds[1],
        },
      ],
      resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: party, assignments: [] }],
      idempotency_key: `quote-${randomUUID()}`,
    }),
  );
  if (quoted.status !== 200) return;
  const { quote_id, journey_id } = quoted.body.data;
  const held = answers.record(
    'hold',
    await travellerWrite(world, caller, `/api/journeys/${journey_id}/hold`, { quote_id }),
  );
  if (held.status !== 200) return;
  const holdBatchId = held.body.data.holdBatchId;
  if (dice.chance(0.1)) {
    answers.record(
      'release',
      await travellerWrite(
        world,
        caller,
        `/api/journeys/${journey_id}/holds/${holdBatchId}`,
        undefined,
        'DELETE',
      ),
    );
    return;
  }
  answers.record(
    company.manual ? 'confirm-manual' : 'confirm-auto',
    await travellerWrite(world, caller, `/api/journeys/${journey_id}/confirm`, {
      quote_id,
      hold_batch_id: holdBatchId,
      travellers: Array.from({ length: party }, (_, index) => ({ name: `Traveller ${index + 1}` })),
      idempotency_key: `confirm-${randomUUID()}`,
    }),
  );
}

export async function cancel(world: World): Promise<void> {
  const booking = await pickRow<{ id: string; owner_user_id: string }>(
    world,
    `select id, owner_user_id from bookings where company_id = any($1) and status in ('CONFIRMED', 'PENDING_CONFIRMATION')
      order by created_at`,
    [companyIds(world)],
  );
  if (!booking) return;
  world.answers.record(
    'cancel',
    await travellerWrite(world, callerOf(world, booking.owner_user_id), `/api/bookings/${booking.id}/cancel`),
  );
}

/** The PATCH that moves a booking to another trip and seats (SPEC "Booking modification"). */
export const modifyBooking = (
  world: World,
  booking: { id: string; owner_user_id: string },
  tripId: string,
  seats: string[],
) =>
  travellerWrite(
    world,
    callerOf(world, booking.owner_user_id),
    `/api/bookings/${booking.id}`,
    { action: 'modify', newTripId: tripId, newSeatNumbers: seats },
    'PATCH',
  );

export async function modify(world: World): Promise<void> {
  const booking = await pickRow<{ id: string; owner_user_id: string; trip_id: string; seats_count: number }>(
    world,
    `select id, owner_user_id, trip_id, seats_count from bookings where company_id = $1 and status = 'CONFIRMED'
      order by created_at`,
    [world.auto.id],
  );
  if (!booking) return;
  const from = allTrips(world).find(({ trip }) => trip.tripId === booking.trip_id)?.trip;
  const sameRoute = (trip: BookableTripFixture) =>
    trip.from.id === from?.from.id && trip.to.id === from?.to.id;
  const { trip: target } = await pickTrip(world, world.auto, booking.trip_id, sameRoute);
  world.answers.record(
    'modify',
    await modifyBooking(world, booking, target.tripId, randomSeats(world, booking.seats_count)),
  );
}

/** The traveller says they will pay cash (POST /api/payments/create): a PENDING payment line. */
export async function announceCash(world: World): Promise<void> {
  const booking = await pickRow<{ id: string; owner_user_id: string }>(
    world,
    `select id, owner_user_id from bookings where company_id = any($1) and status = 'CONFIRMED' and payment_status = 'UNPAID'
      order by created_at`,
    [companyIds(world)],
  );
  if (!booking) return;
  world.answers.record(
    'announce',
    await travellerWrite(world, callerOf(world, booking.owner_user_id), '/api/payments/create', {
      booking_id: booking.id,
      method: 'CASH',
    }),
  );
}

export const redeemReward = (world: World, caller: World['travellers'][number]) =>
  travellerWrite(world, caller, '/api/loyalty/redeem', {
    companyId: world.auto.id,
    rewardCode: world.reward.code,
  });

export async function redeem(world: World): Promise<void> {
  world.answers.record('redeem', await redeemReward(world, world.dice.pick(world.travellers)!));
}
