import { describe, expect, it } from 'vitest';
import { decideBooking } from '../../drills/invariants/company-flows.js';
import { confirmJourney, lockSeats, quoteAndHold } from '../../drills/invariants/customer-flows.js';
import { seededDice } from '../../drills/invariants/dice.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { buildWorld, travellerWrite, type World } from '../../drills/invariants/world.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { bookingBody } from '../../support/bookings.js';

/**
 * A confirmation (a company's approval, an automatic confirm, a booking through a seat lock) or a
 * rejection that waited for a row another writer held stamps what it writes once it holds its rows
 * (writeTime), not at its transaction's start: the record never dates a journey confirmed or closed,
 * a decision taken or a booking row changed before a change committed while it waited.
 */

/**
 * Another writer holds a row (`lockSql`) while `start`'s request waits for it; answers the request's
 * answer and the database's clock as the writer let go (the instant nothing it did may be dated after).
 */
async function afterWriter<T>(app: TestApp, lockSql: string, start: () => Promise<T>) {
  const writer = await holdLock(app.db, lockSql);
  const answer = start();
  await waitersOf(app.db, writer.pid);
  const [now] = await app.db.query<{ at: string }>(`select clock_timestamp()::text as at`);
  await writer.release();
  return { answer: await answer, letGo: now!.at };
}

const journeyRow = (journeyId: string) => `select id from journeys where id = '${journeyId}' for update`;

/** A journey of one traveller on a trip of `company`, confirmed by its traveller. */
async function confirmedByTraveller(world: World, company: World['auto']) {
  const caller = world.travellers[0]!;
  const held = await quoteAndHold(world, caller, [company.trips[0]!], 1, ['quote', 'hold']);
  expect(held).toBeDefined();
  return { caller, held: held! };
}

async function bookingOf(app: TestApp, journeyId: string): Promise<string> {
  const [booking] = await app.db.query<{ id: string }>(`select id from bookings where journey_id = $1`, [
    journeyId,
  ]);
  return booking!.id;
}

describe('a confirmation or decision that waited for its journey', () => {
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });

  it("a company's approval is dated after the writer it waited for: journey, booking row, request", async () => {
    const world = await buildWorld(app, seededDice(414));
    const { caller, held } = await confirmedByTraveller(world, world.manual);
    expect((await confirmJourney(world, caller, held)).status).toBe(200);
    const bookingId = await bookingOf(app, held.journeyId);

    const { answer, letGo } = await afterWriter(app, journeyRow(held.journeyId), () =>
      decideBooking(world, bookingId, 'APPROVE'),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.outcome).toBe('CONFIRMED');

    // Tickets are signed on the application's clock (milliseconds), after the same wait.
    const [stamps] = await app.db.query(
      `select j.confirmed_at >= $2::timestamptz as confirmed, j.updated_at = j.confirmed_at as journey_updated,
              b.updated_at = j.confirmed_at as booking_updated, r.decided_at = j.confirmed_at as decided,
              (select bool_and(t.issued_at >= date_trunc('milliseconds', $2::timestamptz))
                 from journey_tickets t where t.journey_id = j.id) as issued
         from journeys j join bookings b on b.journey_id = j.id join confirmation_requests r on r.scope_id = j.id
        where j.id = $1`,
      [held.journeyId, letGo],
    );
    expect(stamps).toEqual({
      confirmed: true,
      journey_updated: true,
      booking_updated: true,
      decided: true,
      issued: true,
    });
  });

  it("a company's rejection closes the journey, its seats and its booking row after the writer", async () => {
    const world = await buildWorld(app, seededDice(415));
    const { caller, held } = await confirmedByTraveller(world, world.manual);
    expect((await confirmJourney(world, caller, held)).status).toBe(200);
    const bookingId = await bookingOf(app, held.journeyId);

    const { answer, letGo } = await afterWriter(app, journeyRow(held.journeyId), () =>
      decideBooking(world, bookingId, 'REJECT'),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.outcome).toBe('CANCELLED');

    const [stamps] = await app.db.query(
      `select j.closed_at >= $2::timestamptz as closed, b.updated_at = j.closed_at as booking_updated,
              r.decided_at = j.closed_at as decided,
              (select bool_and(a.released_at = j.closed_at) from seat_allocations a
                where a.owner_kind = 'JOURNEY' and a.owner_id = j.id) as released
         from journeys j join bookings b on b.journey_id = j.id join confirmation_requests r on r.scope_id = j.id
        where j.id = $1`,
      [held.journeyId, letGo],
    );
    expect(stamps).toEqual({ closed: true, booking_updated: true, decided: true, released: true });
  });

  it('an automatic confirm is dated after the writer it waited for: journey, booking row, hold', async () => {
    const world = await buildWorld(app, seededDice(416));
    const { caller, held } = await confirmedByTraveller(world, world.auto);

    const { answer, letGo } = await afterWriter(app, journeyRow(held.journeyId), () =>
      confirmJourney(world, caller, held),
    );
    expect(answer.status, answer.text).toBe(200);

    const [stamps] = await app.db.query(
      `select j.status, j.confirmed_at >= $2::timestamptz as confirmed, b.updated_at = j.confirmed_at as booking_updated,
              h.closed_at = j.confirmed_at as consumed
         from journeys j join bookings b on b.journey_id = j.id join hold_batches h on h.id = $3
        where j.id = $1`,
      [held.journeyId, letGo, held.holdBatchId],
    );
    expect(stamps).toEqual({ status: 'CONFIRMED', confirmed: true, booking_updated: true, consumed: true });
  });

  it('a booking through a seat lock that waited for its lock is confirmed after the writer', async () => {
    const world = await buildWorld(app, seededDice(417));
    const caller = world.travellers[0]!;
    const trip = world.auto.trips[0]!;
    const lock = await lockSeats(world, caller, trip.tripId, ['3']);
    expect(lock.status, lock.text).toBe(201);
    const sessionId: string = lock.body.data.seat_lock_session_id;

    const { answer, letGo } = await afterWriter(
      app,
      `select id from hold_batches where id = '${sessionId}' for update`,
      () =>
        travellerWrite(
          world,
          caller,
          '/api/bookings',
          bookingBody({
            tripId: trip.tripId,
            seatNumbers: ['3'],
            seatLockSessionId: sessionId,
            passengerName: 'Rami Haddad',
          }),
        ),
    );
    expect(answer.status, answer.text).toBe(201);

    const [stamps] = await app.db.query(
      `select j.confirmed_at >= $2::timestamptz as confirmed, b.updated_at = j.confirmed_at as booking_updated,
              h.closed_at = j.confirmed_at as consumed
         from hold_batches h join bookings b on b.seat_lock_session_id = h.id join journeys j on j.id = b.journey_id
        where h.id = $1`,
      [sessionId, letGo],
    );
    expect(stamps).toEqual({ confirmed: true, booking_updated: true, consumed: true });
  });
});
