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

type Caller = World['travellers'][number];

/** POST /api/seat-locks: these seats of the trip, for the caller. */
export const lockSeats = (world: World, caller: Caller, tripId: string, seats: string[]) =>
  travellerWrite(world, caller, '/api/seat-locks', { trip_id: tripId, seat_numbers: seats });

/**
 * POST /api/journeys/quote then /hold of a journey over these trips (each from its first to its
 * second stop call), a seat each for `party` travellers, recorded as `${labels[0]}` and
 * `${labels[1]}`. The held journey, or undefined when either was refused.
 */
export async function quoteAndHold(
  world: World,
  caller: Caller,
  trips: BookableTripFixture[],
  party: number,
  labels: [quote: string, hold: string],
): Promise<HeldJourney | undefined> {
  const quoted = world.answers.record(
    labels[0],
    await travellerWrite(world, caller, '/api/journeys/quote', {
      party_size: party,
      legs: trips.map((trip) => ({
        trip_id: trip.tripId,
        board_stop_call_id: trip.stopCallIds[0],
        alight_stop_call_id: trip.stopCallIds[1],
      })),
      resources: trips.map((_, index) => ({
        leg_sequence: index + 1,
        resource_code: 'SEAT',
        quantity: party,
        assignments: [],
      })),
      idempotency_key: `quote-${randomUUID()}`,
    }),
  );
  if (quoted.status !== 200) return undefined;
  const { quote_id: quoteId, journey_id: journeyId } = quoted.body.data;
  const held = world.answers.record(
    labels[1],
    await travellerWrite(world, caller, `/api/journeys/${journeyId}/hold`, { quote_id: quoteId }),
  );
  if (held.status !== 200) return undefined;
  return { journeyId, quoteId, holdBatchId: held.body.data.holdBatchId, party };
}

interface HeldJourney {
  journeyId: string;
  quoteId: string;
  holdBatchId: string;
  party: number;
}

/** POST /api/journeys/{id}/confirm of a held journey, its travellers named Traveller 1, 2, ... */
export const confirmJourney = (world: World, caller: Caller, held: HeldJourney) =>
  travellerWrite(world, caller, `/api/journeys/${held.journeyId}/confirm`, {
    quote_id: held.quoteId,
    hold_batch_id: held.holdBatchId,
    travellers: Array.from({ length: held.party }, (_, index) => ({ name: `Traveller ${index + 1}` })),
    idempotency_key: `confirm-${randomUUID()}`,
  });

/** POST /api/seat-locks then POST /api/bookings, with the caller's voucher 85 % of the times there is one. */
export async function lockAndBook(world: World): Promise<void> {
  const { dice, answers } = world;
  const { trip } = await pickTrip(world, world.auto);
  const caller = dice.pick(world.travellers)!;
  const seats = randomSeats(world, dice.int(1, 2));
  const lock = answers.record('seat-lock', await lockSeats(world, caller, trip.tripId, seats));
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
  const held = await quoteAndHold(world, caller, [trip], dice.int(1, 2), ['quote', 'hold']);
  if (!held) return;
  if (dice.chance(0.1)) {
    const release = `/api/journeys/${held.journeyId}/holds/${held.holdBatchId}`;
    answers.record('release', await travellerWrite(world, caller, release, undefined, 'DELETE'));
    return;
  }
  answers.record(
    company.manual ? 'confirm-manual' : 'confirm-auto',
    await confirmJourney(world, caller, held),
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
