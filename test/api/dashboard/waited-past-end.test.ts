import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { decideBooking } from '../../drills/invariants/company-flows.js';
import { confirmJourney, lockSeats, quoteAndHold } from '../../drills/invariants/customer-flows.js';
import { seededDice } from '../../drills/invariants/dice.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { buildWorld, staffRead, travellerWrite, type World } from '../../drills/invariants/world.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { bookingBody } from '../../support/bookings.js';

/**
 * A company's decision, a confirm or a booking through a seat lock that arrived before its decision
 * deadline, hold end or seat lock end and waited for another writer past it is judged at the instant
 * it stamps what it writes (writeTime), not at its transaction's start: it is refused as a later one
 * is, and nothing is recorded after the deadline or the end (review 424).
 */

/** An end two seconds ahead on the database's clock, as timestamptz text. */
async function endSoon(app: TestApp): Promise<string> {
  const [row] = await app.db.query<{ ends: string }>(
    `select (date_trunc('milliseconds', clock_timestamp()) + interval '2 seconds')::text as ends`,
  );
  return row!.ends;
}

const passed = async (app: TestApp, ends: string, margin: string) =>
  (
    await app.db.query<{ past: boolean }>(
      `select clock_timestamp() > $1::timestamptz + $2::interval as past`,
      [ends, margin],
    )
  )[0]!.past;

/**
 * Another writer holds a row (`lockSql`) while `start`'s request, sent before `ends`, waits for it;
 * the writer lets go once `ends` is 300 ms past. Answers the request's answer.
 */
async function waitedPast<T>(app: TestApp, ends: string, lockSql: string, start: () => Promise<T>) {
  const writer = await holdLock(app.db, lockSql);
  const answer = start();
  await waitersOf(app.db, writer.pid);
  expect(await passed(app, ends, '0 seconds'), 'the request arrived before the end').toBe(false);
  while (!(await passed(app, ends, '300 milliseconds'))) await sleep(100);
  await writer.release();
  return answer;
}

const journeyRow = (journeyId: string) => `select id from journeys where id = '${journeyId}' for update`;

/** GET /api/trips/{id}: the seats free on the trip. */
async function freeSeats(world: World, tripId: string): Promise<number> {
  const read = await world.app.request(`/api/trips/${tripId}`, { headers: world.travellers[0]!.headers });
  expect(read.status, read.text).toBe(200);
  return read.body.data.available_seats as number;
}

/** A REQUESTED journey of one traveller on the MANUAL company's trip whose decision deadline is `deadline`. */
async function requestedUntil(world: World, app: TestApp) {
  const caller = world.travellers[0]!;
  const held = await quoteAndHold(world, caller, [world.manual.trips[0]!], 1, ['quote', 'hold']);
  expect(held).toBeDefined();
  expect((await confirmJourney(world, caller, held!)).status).toBe(200);
  const deadline = await endSoon(app);
  await app.db.query(`update confirmation_requests set deadline = $2::timestamptz where scope_id = $1`, [
    held!.journeyId,
    deadline,
  ]);
  await app.db.query(`update journeys set confirmation_deadline = $2::timestamptz where id = $1`, [
    held!.journeyId,
    deadline,
  ]);
  await app.db.query(
    `update seat_allocations set expires_at = $2::timestamptz where owner_kind = 'JOURNEY' and owner_id = $1`,
    [held!.journeyId, deadline],
  );
  const [booking] = await app.db.query<{ id: string }>(`select id from bookings where journey_id = $1`, [
    held!.journeyId,
  ]);
  return { journeyId: held!.journeyId, bookingId: booking!.id, deadline };
}

/** Sets a hold batch's (seat lock's or journey hold's) end, and its seats', to `ends`. */
async function endHoldAt(app: TestApp, holdBatchId: string, ends: string): Promise<void> {
  await app.db.query(`update hold_batches set expires_at = $2::timestamptz where id = $1`, [
    holdBatchId,
    ends,
  ]);
  await app.db.query(`update seat_allocations set expires_at = $2::timestamptz where hold_batch_id = $1`, [
    holdBatchId,
    ends,
  ]);
}

describe('a decision, confirm or booking that waited past its deadline or its hold end', () => {
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });

  it("a company's approval that waited past the decision deadline is 409 and the journey is cancelled at it", async () => {
    const world = await buildWorld(app, seededDice(4241));
    const { journeyId, bookingId, deadline } = await requestedUntil(world, app);

    const decided = await waitedPast(app, deadline, journeyRow(journeyId), () =>
      decideBooking(world, bookingId, 'APPROVE'),
    );
    expect(decided.status, decided.text).toBe(409);
    expect(decided.body.errorCode).toBe('JOURNEY_CONFIRMATION_STATE_CONFLICT');

    // The approval recorded nothing; the scope closed at its deadline, as any read now shows.
    const read = await staffRead(world, world.manual, `/dashboard/api/bookings/${bookingId}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toMatchObject({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
    const [state] = await app.db.query(
      `select j.status, j.failure_reason, j.confirmed_at is null as never_confirmed, r.status as request,
              r.decided_at is null and r.decided_by is null and r.decision_key is null as undecided,
              (select bool_and(t.status = 'CANCELLED' and not t.boarding_authorized)
                 from journey_tickets t where t.journey_id = j.id) as tickets_cancelled,
              (select bool_and(a.status = 'RELEASED') from seat_allocations a
                where a.owner_kind = 'JOURNEY' and a.owner_id = j.id) as seats_released
         from journeys j join confirmation_requests r on r.scope_id = j.id where j.id = $1`,
      [journeyId],
    );
    expect(state).toEqual({
      status: 'CANCELLED',
      failure_reason: 'DECISION_DEADLINE_PASSED',
      never_confirmed: true,
      request: 'EXPIRED',
      undecided: true,
      tickets_cancelled: true,
      seats_released: true,
    });
  });

  it('an automatic confirm that waited past the hold end is 409 HOLD_EXPIRED, nothing confirmed, seats free', async () => {
    const world = await buildWorld(app, seededDice(4242));
    const caller = world.travellers[0]!;
    const trip = world.auto.trips[0]!;
    const freeBefore = await freeSeats(world, trip.tripId);
    const held = await quoteAndHold(world, caller, [trip], 1, ['quote', 'hold']);
    expect(held).toBeDefined();
    const ends = await endSoon(app);
    await endHoldAt(app, held!.holdBatchId, ends);

    const confirmed = await waitedPast(app, ends, journeyRow(held!.journeyId), () =>
      confirmJourney(world, caller, held!),
    );
    expect(confirmed.status, confirmed.text).toBe(409);
    expect(confirmed.body.errorCode).toBe('HOLD_EXPIRED');

    const [state] = await app.db.query(
      `select j.status <> 'CONFIRMED' and j.confirmed_at is null as unconfirmed, h.status <> 'CONSUMED' as not_consumed,
              (select count(*)::int from bookings b where b.journey_id = j.id) as bookings,
              (select count(*)::int from journey_tickets t where t.journey_id = j.id) as tickets
         from journeys j join hold_batches h on h.id = $2 where j.id = $1`,
      [held!.journeyId, held!.holdBatchId],
    );
    expect(state).toEqual({ unconfirmed: true, not_consumed: true, bookings: 0, tickets: 0 });
    expect(await freeSeats(world, trip.tripId)).toBe(freeBefore);
  });

  it('a booking through a seat lock that waited past the lock end is 409 SEAT_LOCK_EXPIRED, the seat free', async () => {
    const world = await buildWorld(app, seededDice(4243));
    const [caller, other] = world.travellers;
    const trip = world.auto.trips[0]!;
    const lock = await lockSeats(world, caller!, trip.tripId, ['3']);
    expect(lock.status, lock.text).toBe(201);
    const sessionId: string = lock.body.data.seat_lock_session_id;
    const ends = await endSoon(app);
    await endHoldAt(app, sessionId, ends);

    // A trip action holds the trip (FOR UPDATE) while the booking arrives, and lets go after the lock's end.
    const booked = await waitedPast(
      app,
      ends,
      `select id from trips where id = '${trip.tripId}' for update`,
      () =>
        travellerWrite(
          world,
          caller!,
          '/api/bookings',
          bookingBody({
            tripId: trip.tripId,
            seatNumbers: ['3'],
            seatLockSessionId: sessionId,
            passengerName: 'Rami Haddad',
          }),
        ),
    );
    expect(booked.status, booked.text).toBe(409);
    expect(booked.body.errorCode).toBe('SEAT_LOCK_EXPIRED');

    const [state] = await app.db.query(
      `select h.status <> 'CONSUMED' as not_consumed,
              (select count(*)::int from bookings b where b.seat_lock_session_id = h.id) as bookings
         from hold_batches h where h.id = $1`,
      [sessionId],
    );
    expect(state).toEqual({ not_consumed: true, bookings: 0 });
    // The seat is free for the next writer: another traveller locks it.
    const next = await lockSeats(world, other!, trip.tripId, ['3']);
    expect(next.status, next.text).toBe(201);
  });
});
