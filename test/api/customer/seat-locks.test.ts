import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { atDamascus, futureDay } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  bookableTrip,
  bookingBody,
  lockSeats,
  postBooking,
  requestSeatLock,
} from '../../support/bookings.js';
import { mobileTraveller, webTraveller, type Caller } from '../../support/journeys.js';

/** The live allocations (HELD unexpired or CONFIRMED) of a trip, per seat label. */
async function liveSeats(app: TestApp, tripId: string): Promise<string[]> {
  const rows = await app.db.query<{ seat_number: string }>(
    `select ls.seat_number from seat_allocations a
     join trips t on t.id = a.trip_id
     join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
     join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
     where a.trip_id = $1 and (a.status = 'CONFIRMED' or (a.status = 'HELD' and a.expires_at > now()))`,
    [tripId],
  );
  return rows.map((row) => row.seat_number).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

async function locksOf(app: TestApp, caller: Caller) {
  return app.db.query<{ id: string; status: string }>(
    `select id, status from hold_batches where owner_user_id = $1 and scope_kind = 'SEAT_LOCK'`,
    [caller.userId],
  );
}

/** Makes a lock's time run out, as if SEAT_LOCK_MINUTES had passed. */
async function expireLock(app: TestApp, lockId: string): Promise<void> {
  await app.db.query(`update hold_batches set expires_at = now() - interval '1 second' where id = $1`, [
    lockId,
  ]);
  await app.db.query(
    `update seat_allocations set expires_at = now() - interval '1 second' where hold_batch_id = $1`,
    [lockId],
  );
}

/**
 * The lock's two allocations, the one its close scans first (physical order) given the higher id:
 * a writer taking them in scan order reaches them in the reverse of id order. Answers [low, high].
 */
async function scanFirstHighest(app: TestApp, lockId: string): Promise<[string, string]> {
  for (;;) {
    const rows = await app.db.query<{ id: string }>(
      `select id from seat_allocations where hold_batch_id = $1 order by ctid`,
      [lockId],
    );
    const [first, second] = rows.map((row) => row.id) as [string, string];
    if (first > second) return [second, first];
    await app.db.query(`update seat_allocations set id = $2 where id = $1`, [
      second,
      `00000000${randomUUID().slice(8)}`,
    ]);
  }
}

describe('seat locks', () => {
  const app = useTestApp();

  it('locks named seats for the owner only, and releases them idempotently', async () => {
    const trip = await bookableTrip(app.db);
    const owner = await webTraveller(app);
    const other = await mobileTraveller(app);

    const locked = await requestSeatLock(app, owner, trip.tripId, ['3', '4']);
    expect(locked.status, locked.text).toBe(201);
    const lock = locked.body.data;
    expect(lock).toMatchObject({
      trip_id: trip.tripId,
      seat_numbers: ['3', '4'],
      status: 'ACTIVE',
      booking_id: null,
    });
    const minutes = (Date.parse(lock.expires_at) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
    expect(await liveSeats(app, trip.tripId)).toEqual(['3', '4']);
    const allocations = await app.db.query<{
      owner_kind: string;
      board_sequence: number;
      alight_sequence: number;
    }>(`select owner_kind, board_sequence, alight_sequence from seat_allocations where hold_batch_id = $1`, [
      lock.seat_lock_session_id,
    ]);
    expect(allocations).toEqual([
      { owner_kind: 'SEAT_LOCK', board_sequence: 0, alight_sequence: 1 },
      { owner_kind: 'SEAT_LOCK', board_sequence: 0, alight_sequence: 1 },
    ]);

    const read = await app.request(`/api/seat-locks/${lock.seat_lock_session_id}`, {
      headers: owner.headers,
    });
    expect(read.status).toBe(200);
    expect(read.body.data.status).toBe('ACTIVE');
    const peek = await app.request(`/api/seat-locks/${lock.seat_lock_session_id}`, {
      headers: other.headers,
    });
    expect(peek.status).toBe(404);
    expect(peek.body.errorCode).toBe('SEAT_LOCK_NOT_FOUND');
    const steal = await app.request(`/api/seat-locks/${lock.seat_lock_session_id}`, {
      method: 'DELETE',
      headers: other.headers,
    });
    expect(steal.status).toBe(404);
    expect(await liveSeats(app, trip.tripId)).toEqual(['3', '4']);

    for (let attempt = 0; attempt < 2; attempt++) {
      const released = await app.request(`/api/seat-locks/${lock.seat_lock_session_id}`, {
        method: 'DELETE',
        headers: owner.headers,
      });
      expect(released.status, released.text).toBe(200);
      expect(released.body.data.status).toBe('RELEASED');
    }
    expect(await liveSeats(app, trip.tripId)).toEqual([]);
    await lockSeats(app, other, trip.tripId, ['3']);
  });

  it('refuses a web request without the CSRF header and writes nothing', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await webTraveller(app);
    const response = await app.request('/api/seat-locks', {
      method: 'POST',
      headers: { Cookie: caller.headers.Cookie! },
      json: { trip_id: trip.tripId, seat_numbers: ['1'] },
    });
    expect(response.status).toBe(403);
    expect(response.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    expect(await locksOf(app, caller)).toEqual([]);
    expect(await liveSeats(app, trip.tripId)).toEqual([]);
  });

  it('answers bad input with a clear 400 and writes nothing', async () => {
    const trip = await bookableTrip(app.db, { labels: 'letters' });
    const caller = await mobileTraveller(app);
    const cases: [unknown, string][] = [
      [{ trip_id: trip.tripId, seat_numbers: ['Z9'] }, 'SEAT_NOT_FOUND'],
      [{ trip_id: trip.tripId, seat_numbers: ['A1', 'A1'] }, 'DUPLICATE_SEAT'],
      [{ trip_id: trip.tripId, seat_numbers: [] }, 'INVALID_SEAT_NUMBERS'],
      [
        { trip_id: trip.tripId, seat_numbers: Array.from({ length: 11 }, (_, i) => `A${i}`) },
        'INVALID_SEAT_NUMBERS',
      ],
      [{ trip_id: 'not-a-uuid', seat_numbers: ['A1'] }, 'INVALID_TRIP_ID'],
      [{ trip_id: trip.tripId }, 'INVALID_SEAT_NUMBERS'],
      [{ trip_id: trip.tripId, seat_numbers: ['A1'], owner: 'x' }, 'VALIDATION_FAILED'],
    ];
    for (const [json, errorCode] of cases) {
      const response = await app.request('/api/seat-locks', {
        method: 'POST',
        headers: caller.headers,
        json,
      });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.errorCode, JSON.stringify(json)).toBe(errorCode);
    }
    const unknown = await requestSeatLock(app, caller, trip.tripId, ['A1', 'Q7']);
    expect(unknown.body.details.seat_numbers).toEqual(['Q7']);
    expect(await locksOf(app, caller)).toEqual([]);
    expect(await liveSeats(app, trip.tripId)).toEqual([]);
    // Custom labels are the seat names travellers see.
    await lockSeats(app, caller, trip.tripId, ['A1', 'B2']);
  });

  it('refuses taken seats, trips outside the scope, departed trips and companies that confirm manually', async () => {
    const trip = await bookableTrip(app.db);
    const first = await webTraveller(app);
    const second = await mobileTraveller(app);
    await lockSeats(app, first, trip.tripId, ['1', '2']);
    const taken = await requestSeatLock(app, second, trip.tripId, ['2', '3']);
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ errorCode: 'SEAT_OCCUPIED', details: { seat_numbers: ['2'] } });

    const internal = await bookableTrip(app.db, { scope: 'INTERNAL' });
    const hidden = await requestSeatLock(app, second, internal.tripId, ['1']);
    expect(hidden.status).toBe(404);
    expect(hidden.body.errorCode).toBe('TRIP_NOT_FOUND');

    const departed = await bookableTrip(app.db, { departAt: new Date(Date.now() - 10 * 60_000) });
    const late = await requestSeatLock(app, second, departed.tripId, ['1']);
    expect(late.status).toBe(409);
    expect(late.body.errorCode).toBe('TRIP_NOT_BOOKABLE');

    const manual = await bookableTrip(app.db, { mode: 'MANUAL_CONFIRM' });
    const flow = await requestSeatLock(app, second, manual.tripId, ['1']);
    expect(flow.status).toBe(409);
    expect(flow.body).toMatchObject({
      errorCode: 'JOURNEY_FLOW_REQUIRED',
      details: { companyId: manual.companyId },
    });
    expect(await locksOf(app, second)).toEqual([]);
  });

  it('answers the same request again, its answer lost, with the lock it made: 200, nothing new written, and it books', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    const lost = await requestSeatLock(app, traveller, trip.tripId, ['3', '4']);
    expect(lost.status, lost.text).toBe(201);
    const allocationsBefore = await app.db.query(
      `select id, status, expires_at from seat_allocations where trip_id = $1 order by id`,
      [trip.tripId],
    );

    // The retry names the same seats (in another order): the lock it made, as it is.
    const retried = await requestSeatLock(app, traveller, trip.tripId, ['4', '3']);

    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.data).toMatchObject({
      seat_lock_session_id: lost.body.data.seat_lock_session_id,
      trip_id: trip.tripId,
      expires_at: lost.body.data.expires_at,
      status: 'ACTIVE',
      booking_id: null,
    });
    expect([...retried.body.data.seat_numbers].sort()).toEqual(['3', '4']);
    expect(await locksOf(app, traveller)).toEqual([
      { id: lost.body.data.seat_lock_session_id, status: 'ACTIVE' },
    ]);
    expect(
      await app.db.query(
        `select id, status, expires_at from seat_allocations where trip_id = $1 order by id`,
        [trip.tripId],
      ),
    ).toEqual(allocationsBefore);

    const booked = await postBooking(
      app,
      traveller,
      bookingBody({
        tripId: trip.tripId,
        seatNumbers: ['3', '4'],
        seatLockSessionId: retried.body.data.seat_lock_session_id,
      }),
    );
    expect(booked.status, booked.text).toBe(201);
  });

  it('ends a double tap with one lock that both answers name', async () => {
    const trip = await bookableTrip(app.db);
    const taps: [Caller, string[]][] = [
      [await mobileTraveller(app), ['1', '2']],
      [await webTraveller(app), ['5']],
    ];
    for (const [traveller, seats] of taps) {
      const answers = await Promise.all(
        [0, 1].map(() => requestSeatLock(app, traveller, trip.tripId, seats)),
      );
      expect(answers.map((answer) => answer.status).sort(), answers.map((a) => a.text).join()).toEqual([
        200, 201,
      ]);
      const [lock] = await locksOf(app, traveller);
      expect(await locksOf(app, traveller)).toEqual([{ id: lock!.id, status: 'ACTIVE' }]);
      expect(answers.map((answer) => answer.body.data.seat_lock_session_id)).toEqual([lock!.id, lock!.id]);
    }
    expect(await liveSeats(app, trip.tripId)).toEqual(['1', '2', '5']);
  });

  it('refuses a lock naming only some of the caller’s own live lock’s seats, or more, and one after it ended', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    const lockId = await lockSeats(app, traveller, trip.tripId, ['3', '4']);

    for (const seats of [['3'], ['3', '4', '5']]) {
      const overlapping = await requestSeatLock(app, traveller, trip.tripId, seats);
      expect(overlapping.status, overlapping.text).toBe(409);
      expect(overlapping.body).toMatchObject({
        errorCode: 'SEAT_OCCUPIED',
        details: { seat_numbers: ['3', '4'].filter((seat) => seats.includes(seat)) },
      });
    }
    expect(await locksOf(app, traveller)).toEqual([{ id: lockId, status: 'ACTIVE' }]);
    expect(await liveSeats(app, trip.tripId)).toEqual(['3', '4']);

    // Another traveller naming exactly those seats is no retry of anything.
    const other = await mobileTraveller(app);
    const taken = await requestSeatLock(app, other, trip.tripId, ['3', '4']);
    expect(taken.body).toMatchObject({ errorCode: 'SEAT_OCCUPIED', details: { seat_numbers: ['3', '4'] } });
    expect(await locksOf(app, other)).toEqual([]);

    // An expired lock is not answered again: the same request makes a new one.
    await expireLock(app, lockId);
    const fresh = await requestSeatLock(app, traveller, trip.tripId, ['3', '4']);
    expect(fresh.status, fresh.text).toBe(201);
    expect(fresh.body.data.seat_lock_session_id).not.toBe(lockId);
  });

  it('gives a seat to exactly one of two travellers locking it at once', async () => {
    const trip = await bookableTrip(app.db);
    const callers = [await webTraveller(app), await mobileTraveller(app)];
    const answers = await Promise.all(
      callers.map((caller) => requestSeatLock(app, caller, trip.tripId, ['7'])),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.errorCode).toBe('SEAT_OCCUPIED');
    expect(await liveSeats(app, trip.tripId)).toEqual(['7']);
  });

  it('answers every traveller of a six-way race for one seat: one lock, the others SEAT_OCCUPIED', async () => {
    // Two inserts of one seat can each find the other's uncommitted row on the exclusion constraint
    // and wait for each other; PostgreSQL then aborts one (a deadlock), which was answered 500.
    const trip = await bookableTrip(app.db, { seats: 40 });
    for (const seat of trip.seatNumbers.slice(0, 40)) {
      const callers = await Promise.all([0, 1, 2, 3, 4, 5].map(() => mobileTraveller(app)));
      const answers = await Promise.all(
        callers.map((caller) => requestSeatLock(app, caller, trip.tripId, [seat])),
      );
      const outcome = answers
        .map((answer) => `${answer.status} ${answer.body?.errorCode ?? ''}`.trim())
        .sort();
      expect(outcome, `seat ${seat}`).toEqual(['201', ...Array(5).fill('409 SEAT_OCCUPIED')]);
    }
    expect(await liveSeats(app, trip.tripId)).toHaveLength(40);
  });

  it('never allocates a seat twice when 30 travellers lock the last seats at once', async () => {
    const trip = await bookableTrip(app.db, { seats: 12 });
    const first = await mobileTraveller(app);
    await lockSeats(app, first, trip.tripId, trip.seatNumbers.slice(0, 6));
    const last = trip.seatNumbers.slice(6);
    const callers = await Promise.all(Array.from({ length: 30 }, () => mobileTraveller(app)));
    // Overlapping pairs named in both orders: a lock takes both seats or neither, without deadlocks.
    const wanted = callers.map((_, index) => {
      const pair = [last[index % last.length]!, last[(index + 1) % last.length]!];
      return index % 2 ? pair.reverse() : pair;
    });
    const answers = await Promise.all(
      callers.map((caller, index) => requestSeatLock(app, caller, trip.tripId, wanted[index]!)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 201 || status === 409),
      statuses.join(),
    ).toBe(true);
    const won = answers.flatMap((answer) => (answer.status === 201 ? answer.body.data.seat_numbers : []));
    expect(new Set(won).size).toBe(won.length);
    const live = await liveSeats(app, trip.tripId);
    expect(new Set(live).size).toBe(live.length);
    expect(live.length).toBe(6 + won.length);
    expect(won.length).toBeGreaterThanOrEqual(2);
  });

  it('frees an expired lock for everyone and refuses to book with it', async () => {
    const trip = await bookableTrip(app.db, { departAt: atDamascus(futureDay(5), '09:00') });
    const slow = await webTraveller(app);
    const quick = await mobileTraveller(app);
    const oldLock = await lockSeats(app, slow, trip.tripId, ['5']);
    await expireLock(app, oldLock);

    const read = await app.request(`/api/seat-locks/${oldLock}`, { headers: slow.headers });
    expect(read.body.data.status).toBe('EXPIRED');
    await lockSeats(app, quick, trip.tripId, ['5']);
    const [old] = await app.db.query<{ status: string }>(
      `select status from seat_allocations where hold_batch_id = $1`,
      [oldLock],
    );
    expect(old!.status).toBe('EXPIRED');

    const booked = await postBooking(
      app,
      slow,
      bookingBody({ tripId: trip.tripId, seatNumbers: ['5'], seatLockSessionId: oldLock }),
    );
    expect(booked.status).toBe(409);
    expect(booked.body.errorCode).toBe('SEAT_LOCK_EXPIRED');
    const bookings = await app.db.query(`select id from bookings where seat_lock_session_id = $1`, [oldLock]);
    expect(bookings).toEqual([]);
  });

  it('a seat lock and the DELETE of a lapsed lock freeing the same seats wait for each other: neither answers 500', async () => {
    const trip = await bookableTrip(app.db);
    const slow = await mobileTraveller(app);
    const quick = await mobileTraveller(app);
    const oldLock = await lockSeats(app, slow, trip.tripId, ['1', '2']);
    await expireLock(app, oldLock);
    const [low] = await scanFirstHighest(app, oldLock);

    // The seat lock waits first for `low`; the DELETE then closes the batch behind it. Released,
    // the seat lock takes `low` and goes on to `high`: a close that took `high` first (scan order)
    // would now wait for `low` in turn, and one of the two would die a deadlock.
    const blocker = await holdLock(app.db, `select id from seat_allocations where id = '${low}' for update`);
    try {
      const locked = requestSeatLock(app, quick, trip.tripId, ['1', '2']);
      await waitersOf(app.db, blocker.pid, 1);
      const released = app.request(`/api/seat-locks/${oldLock}`, { method: 'DELETE', headers: slow.headers });
      await waitersOf(app.db, blocker.pid, 2);
      await blocker.release();
      const [lock, release] = await Promise.all([locked, released]);
      expect(lock.status, lock.text).not.toBe(500);
      expect(release.status, release.text).not.toBe(500);
    } finally {
      await blocker.release();
    }
  });
});
