import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cancelBooking, minutesFromNow } from '../../support/booking-changes.js';
import {
  bookableTrip,
  bookingBody,
  createBooking,
  lockSeats,
  postBooking,
  requestSeatLock,
  roundTripPair,
} from '../../support/bookings.js';
import { useTestApp, type TestApp, type TestResponse } from '../../support/harness.js';
import {
  bookJourney,
  confirmJourney,
  holdForConfirm,
  holdJourney,
  mobileTraveller,
  quote,
  setConfirmation,
  tripOf,
  webTraveller,
  type Caller,
} from '../../support/journeys.js';
import { decisionWindowRanOut, shiftTripPlan } from '../../support/journey-rows.js';
import { legacyPassengerBooking } from '../../support/legacy-bookings.js';
import { creditPoints, giveReward, loyaltyProgram, redeemVoucher } from '../../support/loyalty.js';

/**
 * Issue 18 "Inventory hoarding": one account may hold at most HELD_SEATS_MAX_PER_TRIP (10) seats
 * of a trip and HELD_SEATS_MAX_TOTAL (20) in all (live seat locks and journey holds), have at most
 * UNPAID_BOOKINGS_MAX (3) unpaid bookings, and make a limited number of lock, hold and booking
 * requests per hour. Refusals write nothing.
 */

/** Seats the account holds now (HELD, unexpired), per trip, and its hold batches. */
async function heldBy(app: TestApp, caller: Caller) {
  const [row] = await app.db.query<{ seats: number; batches: number; trips: number }>(
    `select count(*)::int as seats, count(distinct b.id)::int as batches, count(distinct a.trip_id)::int as trips
     from hold_batches b join seat_allocations a on a.hold_batch_id = b.id
     where b.owner_user_id = $1 and a.status = 'HELD' and a.expires_at > now()`,
    [caller.userId],
  );
  return row!;
}

/** A trip of 10,000 SYP whose company offers a free-trip reward, and a traveller with points for three. */
async function freeTripWorld(app: TestApp) {
  const trip = await bookableTrip(app.db, { price: 10_000 });
  const traveller = await mobileTraveller(app);
  await loyaltyProgram(app.db, trip.companyId);
  const reward = await giveReward(app.db, trip.companyId, {
    type: 'free_trip',
    freeSeats: 1,
    pointsCost: 100,
  });
  await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 300 });
  return { trip, traveller, reward };
}

async function bookingsOf(app: TestApp, caller: Caller): Promise<number> {
  const [row] = await app.db.query<{ n: number }>(
    `select count(*)::int as n from bookings where owner_user_id = $1`,
    [caller.userId],
  );
  return row!.n;
}

/** `traveller`'s three unpaid bookings (the cap) on a new trip leaving in two days; answers that trip. */
async function unpaidCapFilled(app: TestApp, traveller: Caller) {
  const trip = await bookableTrip(app.db, { departAt: minutesFromNow(48 * 60) });
  for (const seat of trip.seatNumbers.slice(0, 3)) {
    await createBooking(app, traveller, { tripId: trip.tripId, seatNumbers: [seat] });
  }
  return trip;
}

/** A booking request of `traveller` for one seat of a new trip, the seat locked for it. */
async function oneSeatRequest(app: TestApp, traveller: Caller) {
  const trip = await bookableTrip(app.db);
  const seatNumbers = [trip.seatNumbers[0]!];
  const seatLockSessionId = await lockSeats(app, traveller, trip.tripId, seatNumbers);
  return bookingBody({ tripId: trip.tripId, seatNumbers, seatLockSessionId });
}

function expectRefused(response: TestResponse, status: number, errorCode: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toMatchObject({ success: false, errorCode });
}

describe('inventory caps per account', () => {
  const app = useTestApp();

  it('refuses the 42-seat-bus hoard past 10 seats of one trip, writing nothing more; others still lock', async () => {
    const trip = await bookableTrip(app.db, { seats: 42 });
    const hoarder = await webTraveller(app);
    const seats = trip.seatNumbers;
    const first = await lockSeats(app, hoarder, trip.tripId, seats.slice(0, 10));

    const second = await requestSeatLock(app, hoarder, trip.tripId, seats.slice(10, 20));
    expectRefused(second, 409, 'SEAT_HOLD_LIMIT_REACHED');
    expect(second.body.details).toEqual({
      scope: 'TRIP',
      limit: 10,
      held: 10,
      requested: 10,
      trip_id: trip.tripId,
    });
    for (const chunk of [seats.slice(20, 30), seats.slice(30, 40), seats.slice(40, 42), [seats[41]!]]) {
      expectRefused(await requestSeatLock(app, hoarder, trip.tripId, chunk), 409, 'SEAT_HOLD_LIMIT_REACHED');
    }
    expect(await heldBy(app, hoarder)).toEqual({ seats: 10, batches: 1, trips: 1 });

    const other = await mobileTraveller(app);
    await lockSeats(app, other, trip.tripId, seats.slice(10, 20));

    // Released seats no longer count: the hoarder can lock again, up to the cap.
    const released = await app.request(`/api/seat-locks/${first}`, {
      method: 'DELETE',
      headers: hoarder.headers,
    });
    expect(released.status, released.text).toBe(200);
    await lockSeats(app, hoarder, trip.tripId, seats.slice(20, 30));
    expect(await heldBy(app, hoarder)).toEqual({ seats: 10, batches: 1, trips: 1 });
  });

  it('answers the retry of a lock at the cap with that lock, counting its seats once', async () => {
    const trip = await bookableTrip(app.db, { seats: 42 });
    const traveller = await mobileTraveller(app);
    const seats = trip.seatNumbers.slice(0, 10);
    const lockId = await lockSeats(app, traveller, trip.tripId, seats);

    const retried = await requestSeatLock(app, traveller, trip.tripId, seats);

    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.data.seat_lock_session_id).toBe(lockId);
    expect(await heldBy(app, traveller)).toEqual({ seats: 10, batches: 1, trips: 1 });
    expectRefused(
      await requestSeatLock(app, traveller, trip.tripId, [trip.seatNumbers[10]!]),
      409,
      'SEAT_HOLD_LIMIT_REACHED',
    );
  });

  it('judges the seats before the cap: a family growing or shrinking its own lock meets them taken, not the cap', async () => {
    const trip = await bookableTrip(app.db, { seats: 42 });
    const family = await webTraveller(app);
    const seats = trip.seatNumbers.slice(0, 10);
    const six = await lockSeats(app, family, trip.tripId, seats.slice(0, 6));

    // The six again with four more (the family of 10, at the cap): its own six are taken.
    const grown = await requestSeatLock(app, family, trip.tripId, seats);
    expectRefused(grown, 409, 'SEAT_OCCUPIED');
    expect([...grown.body.details.seat_numbers].sort()).toEqual([...seats.slice(0, 6)].sort());
    // Five free seats more than the cap allows beside the six: the cap, and nothing locked.
    const past = await requestSeatLock(app, family, trip.tripId, trip.seatNumbers.slice(10, 15));
    expectRefused(past, 409, 'SEAT_HOLD_LIMIT_REACHED');
    expect(past.body.details).toEqual({
      scope: 'TRIP',
      limit: 10,
      held: 6,
      requested: 5,
      trip_id: trip.tripId,
    });
    expect(await heldBy(app, family)).toEqual({ seats: 6, batches: 1, trips: 1 });

    // Ten locked, then nine of them (one member stays home): taken, the lock kept as it was.
    const released = await app.request(`/api/seat-locks/${six}`, {
      method: 'DELETE',
      headers: family.headers,
    });
    expect(released.status, released.text).toBe(200);
    const ten = await lockSeats(app, family, trip.tripId, seats);
    const fewer = await requestSeatLock(app, family, trip.tripId, seats.slice(0, 9));
    expectRefused(fewer, 409, 'SEAT_OCCUPIED');
    expect([...fewer.body.details.seat_numbers].sort()).toEqual([...seats.slice(0, 9)].sort());
    const [lock] = await app.db.query<{ status: string; seats: number }>(
      `select b.status, (select count(*)::int from seat_allocations a where a.hold_batch_id = b.id and a.status = 'HELD') as seats
       from hold_batches b where b.id = $1`,
      [ten],
    );
    expect(lock).toEqual({ status: 'ACTIVE', seats: 10 });
    expect(await heldBy(app, family)).toEqual({ seats: 10, batches: 1, trips: 1 });
  });

  it('caps seats held across trips at 20, seat locks and journey holds together', async () => {
    const hoarder = await mobileTraveller(app);
    const trips = [await bookableTrip(app.db), await bookableTrip(app.db), await bookableTrip(app.db)];
    await lockSeats(app, hoarder, trips[0]!.tripId, trips[0]!.seatNumbers.slice(0, 10));
    await lockSeats(app, hoarder, trips[1]!.tripId, trips[1]!.seatNumbers.slice(0, 8));

    const refused = await requestSeatLock(app, hoarder, trips[2]!.tripId, trips[2]!.seatNumbers.slice(0, 3));
    expectRefused(refused, 409, 'SEAT_HOLD_LIMIT_REACHED');
    expect(refused.body.details).toEqual({ scope: 'ACCOUNT', limit: 20, held: 18, requested: 3 });

    // A journey hold of three seats is refused the same way and holds nothing; two fit.
    const journeyTrip = await tripOf(app.db);
    const tooMany = await quote(app, hoarder, [{ trip: journeyTrip }], 3);
    const hold = await holdJourney(app, hoarder, tooMany.journey_id, { quote_id: tooMany.quote_id });
    expectRefused(hold, 409, 'SEAT_HOLD_LIMIT_REACHED');
    expect(hold.body.details).toMatchObject({ scope: 'ACCOUNT', limit: 20, held: 18, requested: 3 });
    const [journeyRows] = await app.db.query<{ allocations: number; batches: number }>(
      `select (select count(*)::int from seat_allocations where owner_id = $1) as allocations,
              (select count(*)::int from hold_batches where scope_id = $1) as batches`,
      [tooMany.journey_id],
    );
    expect(journeyRows).toEqual({ allocations: 0, batches: 0 });

    const fits = await quote(app, hoarder, [{ trip: journeyTrip }], 2);
    const held = await holdJourney(app, hoarder, fits.journey_id, { quote_id: fits.quote_id });
    expect(held.status, held.text).toBe(200);
    expect(await heldBy(app, hoarder)).toEqual({ seats: 20, batches: 3, trips: 3 });
    const full = await requestSeatLock(app, hoarder, trips[2]!.tripId, [trips[2]!.seatNumbers[0]!]);
    expect(full.body.details).toEqual({ scope: 'ACCOUNT', limit: 20, held: 20, requested: 1 });
  });

  it('caps unpaid bookings at 3; a retry is not a new booking and a cancellation frees a place', async () => {
    const traveller = await webTraveller(app);
    const trip = await bookableTrip(app.db);
    const seats = trip.seatNumbers;
    const made = [];
    for (const seat of seats.slice(0, 3)) {
      made.push(await createBooking(app, traveller, { tripId: trip.tripId, seatNumbers: [seat] }));
    }
    const lockId = await lockSeats(app, traveller, trip.tripId, [seats[3]!]);
    const fourth = bookingBody({ tripId: trip.tripId, seatNumbers: [seats[3]!], seatLockSessionId: lockId });
    const refused = await postBooking(app, traveller, fourth);
    expectRefused(refused, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
    expect(refused.body.details).toEqual({ limit: 3, unpaid: 3 });
    expect(await bookingsOf(app, traveller)).toBe(3);
    const [lock] = await app.db.query<{ status: string }>(`select status from hold_batches where id = $1`, [
      lockId,
    ]);
    expect(lock!.status).toBe('ACTIVE');

    // Retrying a booking already made answers it, cap or no cap.
    const firstLock = await app.db.query<{ seat_lock_session_id: string }>(
      `select seat_lock_session_id from bookings where id = $1`,
      [made[0]!.id],
    );
    const retry = bookingBody({
      tripId: trip.tripId,
      seatNumbers: [seats[0]!],
      seatLockSessionId: firstLock[0]!.seat_lock_session_id,
    });
    expect((await postBooking(app, traveller, retry)).status).toBe(200);

    // At the cap, a journey hold (whose confirmation would book once more) is refused too.
    const journeyTrip = await tripOf(app.db);
    const quoted = await quote(app, traveller, [{ trip: journeyTrip }]);
    const hold = await holdJourney(app, traveller, quoted.journey_id, { quote_id: quoted.quote_id });
    expectRefused(hold, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
    const allocations = await app.db.query(`select 1 from seat_allocations where owner_id = $1`, [
      quoted.journey_id,
    ]);
    expect(allocations).toEqual([]);

    const cancelled = await cancelBooking(app, traveller, made[0]!.id);
    expect(cancelled.status, cancelled.text).toBe(200);
    const booked = await postBooking(app, traveller, fourth);
    expect(booked.status, booked.text).toBe(201);
    expect(await bookingsOf(app, traveller)).toBe(4);
  });

  it('counts only bookings with something to pay: three free-trip bookings leave every place of the cap open', async () => {
    const { trip, traveller, reward } = await freeTripWorld(app);
    const seats = trip.seatNumbers;
    for (const seat of seats.slice(0, 3)) {
      const code = await redeemVoucher(app, traveller, trip.companyId, reward.code);
      const free = await createBooking(app, traveller, {
        tripId: trip.tripId,
        seatNumbers: [seat],
        rewardCode: code,
      });
      expect(free.total_price).toBe(0);
      // Nothing to pay on it, ever: it stays UNPAID.
      const pay = await app.request('/api/payments/create', {
        method: 'POST',
        headers: traveller.headers,
        json: { booking_id: free.id, method: 'CASH' },
      });
      expectRefused(pay, 409, 'NOTHING_TO_COLLECT');
    }

    // A journey hold (whose confirmation books once more) is not refused by the free bookings.
    const quoted = await quote(app, traveller, [{ trip: await tripOf(app.db) }]);
    const hold = await holdJourney(app, traveller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(hold.status, hold.text).toBe(200);

    // Three paid bookings fill the cap; the fourth is refused counting those three only, writing nothing.
    for (const seat of seats.slice(3, 6)) {
      await createBooking(app, traveller, { tripId: trip.tripId, seatNumbers: [seat] });
    }
    const lockId = await lockSeats(app, traveller, trip.tripId, [seats[6]!]);
    const refused = await postBooking(
      app,
      traveller,
      bookingBody({ tripId: trip.tripId, seatNumbers: [seats[6]!], seatLockSessionId: lockId }),
    );
    expectRefused(refused, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
    expect(refused.body.details).toEqual({ limit: 3, unpaid: 3 });
    expect(await bookingsOf(app, traveller)).toBe(6);
  });

  it('takes a booking a free-trip voucher makes free at the cap: it never counts, so it adds none', async () => {
    const { trip, traveller, reward } = await freeTripWorld(app);
    const [a, b, c, free, paid] = trip.seatNumbers;
    for (const seat of [a!, b!, c!])
      await createBooking(app, traveller, { tripId: trip.tripId, seatNumbers: [seat] });
    const code = await redeemVoucher(app, traveller, trip.companyId, reward.code);
    const book = async (seat: string, rewardCode?: string) =>
      postBooking(
        app,
        traveller,
        bookingBody({
          tripId: trip.tripId,
          seatNumbers: [seat],
          seatLockSessionId: await lockSeats(app, traveller, trip.tripId, [seat]),
          rewardCode,
        }),
      );
    const made = await book(free!, code);
    expect([made.status, made.body.data?.booking.total_price], made.text).toEqual([201, 0]);
    // One with something to pay is still refused at the cap, and writes nothing.
    const refused = await book(paid!);
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'UNPAID_BOOKING_LIMIT_REACHED']);
    expect(await bookingsOf(app, traveller)).toBe(4);
  });

  it('counts both bookings of a round trip against the unpaid cap', async () => {
    const traveller = await mobileTraveller(app);
    const { outbound, inbound } = await roundTripPair(app);
    for (const seat of outbound.seatNumbers.slice(0, 2)) {
      await createBooking(app, traveller, { tripId: outbound.tripId, seatNumbers: [seat] });
    }
    const body = {
      outbound_seat_lock_session_id: await lockSeats(app, traveller, outbound.tripId, [
        outbound.seatNumbers[5]!,
      ]),
      return_seat_lock_session_id: await lockSeats(app, traveller, inbound.tripId, [inbound.seatNumbers[5]!]),
      passenger_name: 'Sami Haddad',
      passenger_phone: '+963944123456',
    };
    const refused = await app.request('/api/bookings/round-trip', {
      method: 'POST',
      headers: traveller.headers,
      json: body,
    });
    expectRefused(refused, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
    expect(refused.body.details).toEqual({ limit: 3, unpaid: 2 });
    expect(await bookingsOf(app, traveller)).toBe(2);
  });

  it('never exceeds the cap when one account fires 10 locks at once', async () => {
    const trip = await bookableTrip(app.db, { seats: 42 });
    const hoarder = await webTraveller(app);
    const pairs = Array.from({ length: 10 }, (_, index) => trip.seatNumbers.slice(index * 2, index * 2 + 2));
    const answers = await Promise.all(pairs.map((pair) => requestSeatLock(app, hoarder, trip.tripId, pair)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(5).fill(409)]);
    for (const answer of answers.filter((response) => response.status === 409)) {
      expect(answer.body.errorCode).toBe('SEAT_HOLD_LIMIT_REACHED');
    }
    expect(await heldBy(app, hoarder)).toEqual({ seats: 10, batches: 5, trips: 1 });
  });

  it('journeys held under the unpaid cap cannot all be confirmed past it, not even at once', async () => {
    const traveller = await mobileTraveller(app);
    const trip = await bookableTrip(app.db);
    for (const seat of trip.seatNumbers.slice(0, 2)) {
      await createBooking(app, traveller, { tripId: trip.tripId, seatNumbers: [seat] });
    }
    // At 2 unpaid bookings each hold still fits (its confirmation would make the third).
    const journeyTrip = await tripOf(app.db);
    const holds = [];
    for (let index = 0; index < 3; index += 1)
      holds.push(await holdForConfirm(app, traveller, [{ trip: journeyTrip }]));
    const answers = await Promise.all(
      holds.map((hold) => confirmJourney(app, traveller, hold.journeyId, hold.confirmBody)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    for (const refused of answers.filter((answer) => answer.status === 409)) {
      expectRefused(refused, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
      expect(refused.body.details).toEqual({ limit: 3, unpaid: 3 });
    }
    expect(await bookingsOf(app, traveller)).toBe(3);
    // The refused journeys are still held: paying or cancelling a booking makes room for them.
    const statuses = await app.db.query<{ status: string }>(
      `select status from journeys where id = any($1::uuid[]) order by status`,
      [holds.map((hold) => hold.journeyId)],
    );
    expect(statuses.map((row) => row.status)).toEqual(['CONFIRMED', 'HELD', 'HELD']);
  });

  it('a confirm refused at the unpaid cap, resent with the same key once a booking is cancelled, confirms', async () => {
    const traveller = await mobileTraveller(app);
    const trip = await bookableTrip(app.db);
    const made = [];
    for (const seat of trip.seatNumbers.slice(0, 2)) {
      made.push(await createBooking(app, traveller, { tripId: trip.tripId, seatNumbers: [seat] }));
    }
    // Held at 2 unpaid bookings (it fits), then a third booking fills the cap.
    const hold = await holdForConfirm(app, traveller, [{ trip: await tripOf(app.db) }]);
    await createBooking(app, traveller, { tripId: trip.tripId, seatNumbers: [trip.seatNumbers[2]!] });
    const refused = await confirmJourney(app, traveller, hold.journeyId, hold.confirmBody);
    expectRefused(refused, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
    expect(await bookingsOf(app, traveller)).toBe(3);
    const [journey] = await app.db.query<{ status: string }>(`select status from journeys where id = $1`, [
      hold.journeyId,
    ]);
    expect(journey!.status).toBe('HELD');

    // The refusal answered the account's state then, not the request: once room is made, the
    // client's retry of the same request (same key) confirms instead of replaying the 409.
    const cancelled = await cancelBooking(app, traveller, made[0]!.id);
    expect(cancelled.status, cancelled.text).toBe(200);
    const retried = await confirmJourney(app, traveller, hold.journeyId, hold.confirmBody);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.data.confirmation.status).toBe('CONFIRMED');
    // And that answer is the key's: sent again, it is replayed, nothing is booked twice.
    const replayed = await confirmJourney(app, traveller, hold.journeyId, hold.confirmBody);
    expect(replayed.status, replayed.text).toBe(200);
    expect(await bookingsOf(app, traveller)).toBe(4);
  });

  it('counts only bookings whose bus has not left: a trip past its timetable but never dispatched frees its places', async () => {
    const traveller = await mobileTraveller(app);
    const old = await unpaidCapFilled(app, traveller);
    // A week later the trip ran on its timetable, but the company never dispatched it: still SCHEDULED.
    await shiftTripPlan(app.db, old.tripId, '-7 days');
    const booked = await postBooking(app, traveller, await oneSeatRequest(app, traveller));
    expect(booked.status, booked.text).toBe(201);
    const quoted = await quote(app, traveller, [{ trip: await tripOf(app.db) }]);
    const held = await holdJourney(app, traveller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    expect(await bookingsOf(app, traveller)).toBe(4);
  });

  it('counts the bookings the account placed: three unpaid bookings a company imported for its passenger profile fill no place', async () => {
    const traveller = await mobileTraveller(app);
    const [user] = await app.db.query<{ passenger_id: string }>(
      `select passenger_id from users where id = $1`,
      [traveller.userId],
    );
    const trip = await bookableTrip(app.db, { departAt: minutesFromNow(72 * 60) });
    const imported: string[] = [];
    for (let n = 0; n < 3; n++) {
      imported.push(
        await legacyPassengerBooking(app.db, {
          trip: { id: trip.tripId, companyId: trip.companyId },
          passengerId: user!.passenger_id,
        }),
      );
    }
    // They are the traveller's, and the traveller cannot cancel them: the company handles them.
    expectRefused(await cancelBooking(app, traveller, imported[0]!), 409, 'BOOKING_NOT_CANCELLABLE');
    const listed = await app.request('/api/bookings', { headers: traveller.headers });
    expect(listed.body.data.items.map((item: { status: string }) => item.status)).toEqual([
      'CONFIRMED',
      'CONFIRMED',
      'CONFIRMED',
    ]);

    // Its own three unpaid bookings fill the cap, as for an account with no imported bookings.
    for (let n = 0; n < 3; n++) {
      const booked = await postBooking(app, traveller, await oneSeatRequest(app, traveller));
      expect(booked.status, booked.text).toBe(201);
    }
    const refused = await postBooking(app, traveller, await oneSeatRequest(app, traveller));
    expectRefused(refused, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
    expect(refused.body.details).toEqual({ limit: 3, unpaid: 3 });
  });

  it("counts a delayed trip's unpaid bookings until its delayed departure, not its timetable", async () => {
    const traveller = await webTraveller(app);
    const late = await unpaidCapFilled(app, traveller);
    // Timetabled to leave 30 minutes ago, delayed by two hours: the bus has not left.
    await shiftTripPlan(app.db, late.tripId, '-48 hours -30 minutes');
    await app.db.query(`update trips set status = 'DELAYED', delay_minutes = 120 where id = $1`, [
      late.tripId,
    ]);
    const body = await oneSeatRequest(app, traveller);
    const refused = await postBooking(app, traveller, body);
    expectRefused(refused, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
    expect(refused.body.details).toEqual({ limit: 3, unpaid: 3 });
    expect(await bookingsOf(app, traveller)).toBe(3);

    // Delayed by 20 minutes only, its delayed departure is 10 minutes past: the places are free.
    await app.db.query(`update trips set delay_minutes = 20 where id = $1`, [late.tripId]);
    const booked = await postBooking(app, traveller, body);
    expect(booked.status, booked.text).toBe(201);
  });

  it('counts a request awaiting the company until its decision deadline, not until a worker releases it', async () => {
    const manual = await tripOf(app.db);
    await setConfirmation(app.db, manual.companyId, { mode: 'MANUAL_CONFIRM' });
    const traveller = await mobileTraveller(app);
    const requested: string[] = [];
    for (let n = 0; n < 3; n++) {
      const booked = await bookJourney(app, traveller, [{ trip: manual }]);
      expect(booked.confirmed.body.data.confirmation.status).toBe('REQUESTED');
      requested.push(booked.journeyId);
    }
    // Awaiting the company's decision, the three requests fill the cap.
    const early = await quote(app, traveller, [{ trip: await tripOf(app.db) }]);
    const refused = await holdJourney(app, traveller, early.journey_id, { quote_id: early.quote_id });
    expectRefused(refused, 409, 'UNPAID_BOOKING_LIMIT_REACHED');
    expect(refused.body.details).toEqual({ limit: 3, unpaid: 3 });
    expect(
      await app.db.query(`select 1 from seat_allocations where owner_id = $1`, [early.journey_id]),
    ).toEqual([]);

    // The company never decided: the window ran out a minute ago, and no worker has released them yet.
    await decisionWindowRanOut(app.db, requested);
    const late = await quote(app, traveller, [{ trip: await tripOf(app.db) }]);
    const held = await holdJourney(app, traveller, late.journey_id, { quote_id: late.quote_id });
    expect([held.status, held.body.errorCode], held.text).toEqual([200, undefined]);
  });
});

describe('request limits per account', () => {
  const app = useTestApp({
    SEAT_LOCK_RATE_LIMIT_PER_HOUR: 3,
    BOOKING_RATE_LIMIT_PER_HOUR: 2,
    JOURNEY_HOLD_RATE_LIMIT_PER_HOUR: 2,
  });

  function expectLimited(response: TestResponse) {
    expectRefused(response, 429, 'RATE_LIMITED');
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  }

  it('limits seat locks and bookings per account with 429 and Retry-After; another account is unaffected', async () => {
    const trip = await bookableTrip(app.db);
    const seats = trip.seatNumbers;
    const traveller = await webTraveller(app);
    const locks: string[] = [];
    for (const seat of seats.slice(0, 3)) locks.push(await lockSeats(app, traveller, trip.tripId, [seat]));
    expectLimited(await requestSeatLock(app, traveller, trip.tripId, [seats[3]!]));
    expect(await heldBy(app, traveller)).toMatchObject({ seats: 3, batches: 3 });

    const book = (index: number) =>
      postBooking(
        app,
        traveller,
        bookingBody({ tripId: trip.tripId, seatNumbers: [seats[index]!], seatLockSessionId: locks[index]! }),
      );
    expect((await book(0)).status).toBe(201);
    expect((await book(1)).status).toBe(201);
    expectLimited(await book(2));
    expect(await bookingsOf(app, traveller)).toBe(2);

    const other = await mobileTraveller(app);
    const otherLock = await lockSeats(app, other, trip.tripId, [seats[10]!]);
    const otherBooking = bookingBody({
      tripId: trip.tripId,
      seatNumbers: [seats[10]!],
      seatLockSessionId: otherLock,
    });
    expect((await postBooking(app, other, otherBooking)).status).toBe(201);
  });

  it('limits journey holds per account', async () => {
    const traveller = await mobileTraveller(app);
    const trip = await tripOf(app.db);
    const holds = [];
    for (let index = 0; index < 3; index += 1) {
      const quoted = await quote(app, traveller, [{ trip }]);
      holds.push(
        await holdJourney(app, traveller, quoted.journey_id, {
          quote_id: quoted.quote_id,
          idempotency_key: `hold-${randomUUID()}`,
        }),
      );
    }
    expect(holds.slice(0, 2).map((answer) => answer.status)).toEqual([200, 200]);
    expectLimited(holds[2]!);
    expect(await heldBy(app, traveller)).toMatchObject({ seats: 2, batches: 2 });
  });
});
