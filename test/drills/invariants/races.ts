import type { TestResponse } from '../../support/harness.js';
import { issuedVoucher, lockSeats, modifyBooking, redeemReward } from './customer-flows.js';
import {
  collectAtOffice,
  currentShift,
  decideBooking,
  dispatchTrip,
  paymentAction,
  shiftCommand,
} from './company-flows.js';
import {
  callerOf,
  companyIds,
  companyOf,
  pickRow,
  pickTrip,
  randomSeats,
  travellerWrite,
  type World,
} from './world.js';

/**
 * Requests that contend for one thing, sent at once. Each race returns its requests (none when the
 * drawn booking does not suit it); the drill fires them together and the invariants decide whether
 * the outcome is one the product allows, whichever request won.
 */
type Race = () => Promise<TestResponse>;

interface RacedBooking {
  id: string;
  owner_user_id: string;
  trip_id: string;
  company_id: string;
  seats_count: number;
  payment_id: string | null;
  payment_status: string | null;
}

/** Two or three conflicting actions on one live booking. */
const bookingRaces: Record<string, (world: World, booking: RacedBooking) => Race[] | Promise<Race[]>> = {
  'cancel+office': (world, booking) => [travellerCancel(world, booking), office(world, booking)],
  'cancel+modify': async (world, booking) => {
    const company = companyOf(world, booking.company_id);
    if (company.manual) return [];
    const { trip: target } = await pickTrip(world, world.auto, booking.trip_id);
    const seats = randomSeats(world, booking.seats_count);
    return [travellerCancel(world, booking), () => modifyBooking(world, booking, target.tripId, seats)];
  },
  'refund+refund': (world, booking) =>
    paidOrDue(booking) ? [payment(world, booking, 'refund'), payment(world, booking, 'refund')] : [],
  'verify+cancel-payment+cancel': (world, booking) =>
    booking.payment_status === 'PENDING'
      ? [
          payment(world, booking, 'verify'),
          payment(world, booking, 'cancel'),
          travellerCancel(world, booking),
        ]
      : [],
  'trip-cancel+lock': (world, booking) => {
    if (!world.dice.chance(0.15)) return [];
    const caller = callerOf(world, booking.owner_user_id);
    const seats = randomSeats(world, 1);
    return [tripCancel(world, booking), () => lockSeats(world, caller, booking.trip_id, seats)];
  },
  'refund+trip-cancel': (world, booking) =>
    booking.payment_status === 'COMPLETED' && world.dice.chance(0.3)
      ? [payment(world, booking, 'refund'), tripCancel(world, booking)]
      : [],
  'approve+cancel': (world, booking) =>
    companyOf(world, booking.company_id).manual
      ? [() => decideBooking(world, booking.id, 'APPROVE'), travellerCancel(world, booking)]
      : [],
};

const paidOrDue = (booking: RacedBooking) =>
  ['COMPLETED', 'REFUND_DUE'].includes(booking.payment_status ?? '');
const travellerCancel =
  (world: World, booking: RacedBooking): Race =>
  () =>
    travellerWrite(world, callerOf(world, booking.owner_user_id), `/api/bookings/${booking.id}/cancel`);
const office =
  (world: World, booking: RacedBooking): Race =>
  () =>
    collectAtOffice(world, companyOf(world, booking.company_id), booking.id);
const payment =
  (world: World, booking: RacedBooking, action: 'verify' | 'cancel' | 'refund'): Race =>
  () =>
    paymentAction(world, companyOf(world, booking.company_id), booking.payment_id!, action);
const tripCancel =
  (world: World, booking: RacedBooking): Race =>
  () =>
    dispatchTrip(world, companyOf(world, booking.company_id), booking.trip_id, {
      action: 'CANCEL',
      reason: 'Race',
    });

export async function raceOnBooking(world: World): Promise<void> {
  const kind = world.dice.pick(Object.keys(bookingRaces))!;
  const booking = await pickRow<RacedBooking>(
    world,
    `select b.id, b.owner_user_id, b.trip_id, b.company_id, b.seats_count, p.id as payment_id, p.status as payment_status
       from bookings b
       left join lateral (select id, status from payment_operations p where p.booking_id = b.id
                          order by created_at desc limit 1) p on true
      where b.company_id = any($1) and b.status in ('CONFIRMED', 'PENDING_CONFIRMATION')
      order by b.created_at, b.id`,
    [companyIds(world)],
  );
  if (booking) await fireTogether(world, kind, await bookingRaces[kind]!(world, booking));
}

/**
 * Races over shared things: a voucher, the reward's cap, a till, a decision, a seat. `afterwards` runs
 * after the race, alone.
 */
const sharedRaces: Record<string, (world: World) => Promise<{ races: Race[]; afterwards?: Race }>> = {
  async 'voucher-twice'(world) {
    // One voucher on two bookings of the same traveller: at most one booking may carry it.
    const caller = world.dice.pick(world.travellers)!;
    const voucher = await issuedVoucher(world, caller.userId);
    if (!voucher) return { races: [] };
    const { trip } = await pickTrip(world, world.auto);
    const locks: { seats: string[]; id: string }[] = [];
    for (const seats of [randomSeats(world, 1), randomSeats(world, 1)]) {
      const lock = world.answers.record(
        'race voucher-twice lock',
        await lockSeats(world, caller, trip.tripId, seats),
      );
      if (lock.status === 201) locks.push({ seats, id: lock.body.data.seat_lock_session_id });
    }
    if (locks.length < 2) return { races: [] };
    const races = locks.map(
      (lock) => () =>
        travellerWrite(world, caller, '/api/bookings', {
          trip_id: trip.tripId,
          passenger_name: 'Racer',
          passenger_phone: '+963944123456',
          seats_count: 1,
          seat_numbers: lock.seats,
          seat_lock_session_id: lock.id,
          reward_code: voucher,
        }),
    );
    return { races };
  },
  async 'redeem-twice'(world) {
    // Points spent twice at once: the balance and the reward's cap must hold.
    const caller = world.dice.pick(world.travellers)!;
    return { races: [() => redeemReward(world, caller), () => redeemReward(world, caller)] };
  },
  async 'close+collect'(world) {
    // Closing the till while money moves through it: every line lands in one shift, before or after.
    const company = world.dice.pick(world.companies)!;
    const unpaid = await pickRow<{ id: string }>(
      world,
      `select id from bookings where company_id = $1 and status = 'CONFIRMED' and payment_status = 'UNPAID'
        order by created_at, id`,
      [company.id],
    );
    const paid = await pickRow<{ id: string }>(
      world,
      `select id from payment_operations where company_id = $1 and status = 'COMPLETED' order by created_at, id`,
      [company.id],
    );
    const current = await currentShift(world, company);
    if (!current) return { races: [] };
    return {
      races: [
        () => shiftCommand(world, company, { action: 'CLOSE', declared_amount: current.expected_amount }),
        ...(unpaid ? [() => collectAtOffice(world, company, unpaid.id)] : []),
        ...(paid ? [() => paymentAction(world, company, paid.id, 'refund')] : []),
        () =>
          shiftCommand(world, company, {
            action: 'ADJUST',
            direction: 'IN',
            amount: 1_000,
            reason: 'Race in',
          }),
      ],
      // The next steps need an open till.
      afterwards: () => shiftCommand(world, company, { action: 'OPEN', opening_balance: 50_000 }),
    };
  },
  async 'approve+reject'(world) {
    const booking = await pickRow<{ id: string }>(
      world,
      `select id from bookings where company_id = $1 and status = 'PENDING_CONFIRMATION' order by created_at, id`,
      [world.manual.id],
    );
    if (!booking) return { races: [] };
    return {
      races: [
        () => decideBooking(world, booking.id, 'APPROVE'),
        () => decideBooking(world, booking.id, 'REJECT'),
      ],
    };
  },
  async 'same-seat'(world) {
    // Three travellers lock one seat at once: one wins.
    const { trip } = await pickTrip(world, world.auto);
    const seats = randomSeats(world, 1);
    const races = world.travellers
      .slice(0, 3)
      .map((caller) => () => lockSeats(world, caller, trip.tripId, seats));
    return { races };
  },
  async 'modify-same-seat'(world) {
    // Two bookings moved onto the same seat of the same trip at once: one wins.
    const candidates = await world.app.db.query<{ id: string; owner_user_id: string; trip_id: string }>(
      `select id, owner_user_id, trip_id from bookings where company_id = $1 and status = 'CONFIRMED'
          and payment_status = 'UNPAID' and seats_count = 1 order by created_at, id`,
      [world.auto.id],
    );
    const first = world.dice.pick(candidates);
    const second = world.dice.pick(candidates.filter((booking) => booking !== first));
    if (!first || !second) return { races: [] };
    const bookings = [first, second];
    const { trip: target } = await pickTrip(world, world.auto, first.trip_id);
    if (target.tripId === second.trip_id) return { races: [] };
    const seats = randomSeats(world, 1);
    return { races: bookings.map((booking) => () => modifyBooking(world, booking, target.tripId, seats)) };
  },
};

export async function raceOnShared(world: World): Promise<void> {
  const kind = world.dice.pick(Object.keys(sharedRaces))!;
  const { races, afterwards } = await sharedRaces[kind]!(world);
  await fireTogether(world, kind, races);
  if (afterwards && races.length) world.answers.record(`race ${kind} afterwards`, await afterwards());
}

async function fireTogether(world: World, kind: string, races: Race[]): Promise<void> {
  const answers = await Promise.all(races.map((race) => race()));
  answers.forEach((answer, index) => world.answers.record(`race ${kind}#${index}`, answer));
}
