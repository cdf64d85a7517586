import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redeemReward } from '../../../db/writes/loyalty/index.js';
import { atDamascus, futureDay } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  bookableTrip,
  bookingBody,
  createBooking,
  lockSeats,
  postBooking,
  roundTripPair,
  type BookableTripFixture,
} from '../../support/bookings.js';
import { staffSession } from '../../support/journey-rows.js';
import { mobileTraveller, webTraveller, type Caller } from '../../support/journeys.js';
import { creditPoints, giveReward, loyaltyProgram } from '../../support/loyalty.js';
import { dashboard } from '../../support/planning.js';
import type { LayoutDocument } from '../../../domain/seat-layout.js';

/**
 * A voucher of `caller` in the company's program, made the way travellers get one: points
 * credited, then POST /loyalty/redeem's transaction. A percent discount, optionally limited to routes.
 */
async function voucher(
  app: TestApp,
  caller: Caller,
  companyId: string,
  terms: { percent?: number; routeIds?: string[] } = {},
): Promise<string> {
  await loyaltyProgram(app.db, companyId);
  const reward = await giveReward(app.db, companyId, {
    discountPercent: terms.percent ?? 10,
    routeIds: terms.routeIds ?? [],
  });
  await creditPoints(app.db, { companyId, userId: caller.userId, points: 100 });
  return (await redeemReward(app.db, { companyId, userId: caller.userId, rewardCode: reward.code })).code;
}

async function voucherStatus(app: TestApp, code: string): Promise<string> {
  const [row] = await app.db.query<{ status: string }>(
    `select status from loyalty_redemptions where code = $1`,
    [code],
  );
  return row!.status;
}

/** What a lock left in the database: its batch status, its allocations, and bookings made with it. */
async function lockFacts(app: TestApp, lockId: string) {
  const [batch] = await app.db.query<{ status: string }>(`select status from hold_batches where id = $1`, [
    lockId,
  ]);
  const allocations = await app.db.query<{ status: string; owner_kind: string }>(
    `select status, owner_kind from seat_allocations where hold_batch_id = $1`,
    [lockId],
  );
  const bookings = await app.db.query(`select id from bookings where seat_lock_session_id = $1`, [lockId]);
  return { batch: batch!.status, allocations, bookings };
}

async function expectUntouched(app: TestApp, lockId: string, seats: number) {
  const facts = await lockFacts(app, lockId);
  expect(facts.batch).toBe('ACTIVE');
  expect(facts.bookings).toEqual([]);
  expect(facts.allocations).toEqual(Array(seats).fill({ status: 'HELD', owner_kind: 'SEAT_LOCK' }));
}

/** The company's OWNER saves the bus's active layout again with seats renamed (old label → new label). */
async function renameSeats(app: TestApp, trip: BookableTripFixture, renames: Record<string, string>) {
  const [layout] = await app.db.query<{ document: LayoutDocument }>(
    `select document from bus_layouts where bus_id = $1 and status = 'active'`,
    [trip.busId],
  );
  const document = layout!.document;
  for (const element of document.elements) {
    const renamed = element.seatNumber === undefined ? undefined : renames[element.seatNumber];
    if (renamed) element.seatNumber = renamed;
  }
  const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
  const saved = await dashboard(app, owner, 'PUT', `/buses/${trip.busId}/layout`, {
    layoutDocument: document,
    saveMode: 'active',
  });
  expect(saved.status, saved.text).toBe(200);
}

const roundTripBody = (outboundLock: string, returnLock: string, rewardCode?: string) => ({
  outbound_seat_lock_session_id: outboundLock,
  return_seat_lock_session_id: returnLock,
  passenger_name: 'Lina Khoury',
  passenger_phone: '+963955111222',
  ...(rewardCode ? { reward_code: rewardCode } : {}),
});

function postRoundTrip(app: TestApp, caller: Caller, body: Record<string, unknown>) {
  return app.request('/api/bookings/round-trip', { method: 'POST', headers: caller.headers, json: body });
}

describe('POST /bookings', () => {
  const app = useTestApp();

  it('books the locked seats on the web: signed tickets, CONFIRMED and UNPAID, a retry answers the same booking', async () => {
    const trip = await bookableTrip(app.db, { vipRows: [0] });
    const caller = await webTraveller(app);
    const lockId = await lockSeats(app, caller, trip.tripId, ['1', '5']);
    const body = bookingBody({ tripId: trip.tripId, seatNumbers: ['5', '1'], seatLockSessionId: lockId });

    const response = await postBooking(app, caller, body);
    expect(response.status, response.text).toBe(201);
    const { booking, finalPrice, discount } = response.body.data;
    expect(booking).toMatchObject({
      status: 'CONFIRMED',
      payment_status: 'UNPAID',
      trip_id: trip.tripId,
      seats_count: 2,
      passenger_name: 'Sami Haddad',
      passenger_phone: '+963944123456',
      subtotal: 25_000,
      discount: 0,
      total_price: 25_000,
      currency: 'SYP',
      seat_lock_session_id: lockId,
    });
    expect([...booking.seat_numbers].sort()).toEqual(['1', '5']);
    expect(booking.booking_code).toMatch(/^BK-[A-Z2-9]{8}$/);
    expect(booking.trip.pickupLocation).toMatchObject({ id: trip.from.id, nameEn: expect.any(String) });
    expect({ finalPrice, discount }).toEqual({ finalPrice: 25_000, discount: 0 });

    const [journey] = await app.db.query<Record<string, unknown>>(
      `select origin, quote_id, status, channel, party_size, total_price::int from journeys where id = $1`,
      [booking.journey_id],
    );
    expect(journey).toEqual({
      origin: 'BOOKING_API',
      quote_id: null,
      status: 'CONFIRMED',
      channel: 'CUSTOMER_WEB',
      party_size: 2,
      total_price: 25_000,
    });
    const tickets = await app.db.query<Record<string, unknown>>(
      `select traveller_name, seat_number, status, boarding_authorized, signature is not null as signed
       from journey_tickets where journey_id = $1 order by seat_number`,
      [booking.journey_id],
    );
    expect(tickets).toEqual(
      ['1', '5'].map((seat) => ({
        traveller_name: 'Sami Haddad',
        seat_number: seat,
        status: 'VALID',
        boarding_authorized: true,
        signed: true,
      })),
    );
    const facts = await lockFacts(app, lockId);
    expect(facts.batch).toBe('CONSUMED');
    expect(facts.allocations).toEqual(Array(2).fill({ status: 'CONFIRMED', owner_kind: 'JOURNEY' }));

    const retry = await postBooking(app, caller, body);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data.booking.id).toBe(booking.id);
    const rows = await app.db.query(`select id from bookings where seat_lock_session_id = $1`, [lockId]);
    expect(rows).toHaveLength(1);

    const projection = await app.request(`/api/journeys/${booking.journey_id}`, { headers: caller.headers });
    expect(projection.status, projection.text).toBe(200);
    expect(projection.body.data.confirmation.status).toBe('CONFIRMED');
  });

  it('books from the mobile app with a bearer token (no CSRF header needed)', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await mobileTraveller(app);
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: ['9'] });
    const [row] = await app.db.query<{ channel: string; owner_user_id: string }>(
      `select channel, owner_user_id from bookings where id = $1`,
      [booking.id],
    );
    expect(row).toEqual({ channel: 'CUSTOMER_MOBILE', owner_user_id: caller.userId });
  });

  it('refuses a web request without the CSRF header and writes nothing', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await webTraveller(app);
    const lockId = await lockSeats(app, caller, trip.tripId, ['2']);
    const response = await app.request('/api/bookings', {
      method: 'POST',
      headers: { Cookie: caller.headers.Cookie! },
      json: bookingBody({ tripId: trip.tripId, seatNumbers: ['2'], seatLockSessionId: lockId }),
    });
    expect(response.status).toBe(403);
    await expectUntouched(app, lockId, 1);
  });

  it('answers bad input on every field with a clear 400 and writes nothing', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await mobileTraveller(app);
    const lockId = await lockSeats(app, caller, trip.tripId, ['3', '4']);
    const valid = bookingBody({ tripId: trip.tripId, seatNumbers: ['3', '4'], seatLockSessionId: lockId });
    const cases: [Record<string, unknown>, string][] = [
      [{ trip_id: 'trip-1' }, 'INVALID_TRIP_ID'],
      [{ passenger_name: '   ' }, 'INVALID_PASSENGER_NAME'],
      [{ passenger_name: undefined }, 'INVALID_PASSENGER_NAME'],
      [{ passenger_phone: '0944123456' }, 'INVALID_PASSENGER_PHONE'],
      [{ passenger_phone: '+96394412345678901' }, 'INVALID_PASSENGER_PHONE'],
      [{ seats_count: 0 }, 'INVALID_SEATS_COUNT'],
      [{ seats_count: '2' }, 'INVALID_SEATS_COUNT'],
      [{ seats_count: 3 }, 'SEATS_COUNT_MISMATCH'],
      [{ seat_numbers: [] }, 'INVALID_SEAT_NUMBERS'],
      [{ seat_numbers: ['3', '3'] }, 'DUPLICATE_SEAT'],
      [{ seat_lock_session_id: 'lock' }, 'INVALID_SEAT_LOCK_SESSION_ID'],
      [{ seat_lock_session_id: undefined }, 'INVALID_SEAT_LOCK_SESSION_ID'],
      [{ reward_code: 'RWD ABC!' }, 'INVALID_REWARD_CODE'],
      [{ reward_code: '' }, 'INVALID_REWARD_CODE'],
      [{ user_id: caller.userId }, 'VALIDATION_FAILED'],
    ];
    for (const [change, errorCode] of cases) {
      const response = await postBooking(app, caller, { ...valid, ...change });
      expect(response.status, JSON.stringify(change)).toBe(400);
      expect(response.body.errorCode, JSON.stringify(change)).toBe(errorCode);
    }
    await expectUntouched(app, lockId, 2);

    const conflicts: [Record<string, unknown>, number, string][] = [
      [{ seat_numbers: ['3', '5'] }, 409, 'SEAT_LOCK_MISMATCH'],
      [{ trip_id: (await bookableTrip(app.db)).tripId }, 409, 'SEAT_LOCK_MISMATCH'],
      [{ seat_lock_session_id: randomUUID() }, 404, 'SEAT_LOCK_NOT_FOUND'],
    ];
    for (const [change, status, errorCode] of conflicts) {
      const response = await postBooking(app, caller, { ...valid, ...change });
      expect(response.status, JSON.stringify(change)).toBe(status);
      expect(response.body.errorCode, JSON.stringify(change)).toBe(errorCode);
    }
    await expectUntouched(app, lockId, 2);
  });

  it('stores the passenger phone in the E.164 form sign-in stores for it, and refuses a + number sign-in cannot read', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await mobileTraveller(app);
    // Numbers sign-in refuses (a second trunk 0 after +963; 7 national digits): 400, nothing written.
    const lockId = await lockSeats(app, caller, trip.tripId, ['2']);
    const valid = bookingBody({ tripId: trip.tripId, seatNumbers: ['2'], seatLockSessionId: lockId });
    for (const phone of ['+96300944123456', '+9631234567']) {
      const refused = await postBooking(app, caller, { ...valid, passenger_phone: phone });
      expect([refused.status, refused.body.errorCode], phone).toEqual([400, 'INVALID_PASSENGER_PHONE']);
    }
    await expectUntouched(app, lockId, 1);

    // The Syrian trunk 0 after +963 is dropped, as sign-in drops it; the spaces around are trimmed.
    const booked = await postBooking(app, caller, { ...valid, passenger_phone: ' +9630944123456 ' });
    expect(booked.status, booked.text).toBe(201);
    const { booking } = booked.body.data;
    expect(booking.passenger_phone).toBe('+963944123456');
    const [row] = await app.db.query(`select passenger_phone from bookings where id = $1`, [booking.id]);
    expect(row).toEqual({ passenger_phone: '+963944123456' });
    const read = await app.request(`/api/bookings/${booking.id}`, { headers: caller.headers });
    expect(read.body.data.passenger_phone).toBe('+963944123456');
  });

  it('books a seat lock under the labels it answered after the company renamed its seats; tickets carry the new labels', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await webTraveller(app);
    const other = await mobileTraveller(app);
    const lockId = await lockSeats(app, caller, trip.tripId, ['1', '5']);
    const otherLock = await lockSeats(app, other, trip.tripId, ['2']);
    await renameSeats(app, trip, { '1': '1A', '2': '2B' });

    // Still exactly the lock's seats, under no layout's labels: refused, nothing written.
    const body = bookingBody({ tripId: trip.tripId, seatNumbers: ['5', '1'], seatLockSessionId: lockId });
    const wrong = await postBooking(app, caller, { ...body, seat_numbers: ['1', '6'] });
    expect([wrong.status, wrong.body.errorCode], wrong.text).toEqual([409, 'SEAT_LOCK_MISMATCH']);
    await expectUntouched(app, lockId, 2);

    // The labels the lock answered ("1", "5").
    const booked = await postBooking(app, caller, body);
    expect([booked.status, booked.body.errorCode], booked.text).toEqual([201, undefined]);
    const { booking } = booked.body.data;
    expect([...booking.seat_numbers].sort()).toEqual(['1A', '5']);
    const tickets = await app.db.query<{ seat_number: string }>(
      `select seat_number from journey_tickets where journey_id = $1 order by seat_number`,
      [booking.journey_id],
    );
    expect(tickets.map((ticket) => ticket.seat_number)).toEqual(['1A', '5']);
    const retry = await postBooking(app, caller, body);
    expect([retry.status, retry.body.data?.booking.id], retry.text).toEqual([200, booking.id]);

    // The current labels, as GET /seat-locks/{id} answers them after the rename.
    const read = await app.request(`/api/seat-locks/${otherLock}`, { headers: other.headers });
    expect(read.body.data.seat_numbers).toEqual(['2B']);
    const otherBooked = await postBooking(
      app,
      other,
      bookingBody({ tripId: trip.tripId, seatNumbers: ['2B'], seatLockSessionId: otherLock }),
    );
    expect([otherBooked.status, otherBooked.body.errorCode], otherBooked.text).toEqual([201, undefined]);
    expect(otherBooked.body.data.booking.seat_numbers).toEqual(['2B']);
  });

  it('shows a sold seat renamed afterwards under its ticket label in the booking and its journey', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await webTraveller(app);
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: ['1', '3'] });
    await renameSeats(app, trip, { '1': '1A', '3': '3C' });

    const projection = await app.request(`/api/journeys/${booking.journey_id}`, { headers: caller.headers });
    expect(projection.status, projection.text).toBe(200);
    expect(projection.body.data.legs.map((leg: { seat_numbers: string[] }) => leg.seat_numbers)).toEqual([
      ['1', '3'],
    ]);
    expect(
      projection.body.data.tickets.map((ticket: { seat_number: string }) => ticket.seat_number).sort(),
    ).toEqual(['1', '3']);
    const read = await app.request(`/api/bookings/${booking.id}`, { headers: caller.headers });
    expect([...read.body.data.seat_numbers].sort()).toEqual(['1', '3']);
  });

  it("refuses another traveller's lock with 404", async () => {
    const trip = await bookableTrip(app.db);
    const owner = await webTraveller(app);
    const thief = await mobileTraveller(app);
    const lockId = await lockSeats(app, owner, trip.tripId, ['6']);
    const response = await postBooking(
      app,
      thief,
      bookingBody({ tripId: trip.tripId, seatNumbers: ['6'], seatLockSessionId: lockId }),
    );
    expect(response.status).toBe(404);
    expect(response.body.errorCode).toBe('SEAT_LOCK_NOT_FOUND');
    await expectUntouched(app, lockId, 1);
  });

  it('sends bookings of a company that confirms manually to the journey flow', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await mobileTraveller(app);
    const lockId = await lockSeats(app, caller, trip.tripId, ['8']);
    await app.db.query(`update company_booking_settings set mode = 'MANUAL_CONFIRM' where company_id = $1`, [
      trip.companyId,
    ]);
    const response = await postBooking(
      app,
      caller,
      bookingBody({ tripId: trip.tripId, seatNumbers: ['8'], seatLockSessionId: lockId }),
    );
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      errorCode: 'JOURNEY_FLOW_REQUIRED',
      details: { companyId: trip.companyId },
    });
    await expectUntouched(app, lockId, 1);
  });

  it('applies a voucher and refuses rejected ones with their LOYALTY_ code, holding nothing', async () => {
    const trip = await bookableTrip(app.db, { price: 20_000 });
    const caller = await webTraveller(app);
    const code = await voucher(app, caller, trip.companyId, { percent: 25 });

    const catalogueLock = await lockSeats(app, caller, trip.tripId, ['1']);
    const catalogue = await postBooking(
      app,
      caller,
      bookingBody({
        tripId: trip.tripId,
        seatNumbers: ['1'],
        seatLockSessionId: catalogueLock,
        rewardCode: 'WELCOME10',
      }),
    );
    expect(catalogue.status).toBe(409);
    expect(catalogue.body.errorCode).toBe('LOYALTY_REDEMPTION_NOT_FOUND');
    await expectUntouched(app, catalogueLock, 1);

    const other = await bookableTrip(app.db);
    const elsewhere = await lockSeats(app, caller, other.tripId, ['1']);
    const wrongCompany = await postBooking(
      app,
      caller,
      bookingBody({
        tripId: other.tripId,
        seatNumbers: ['1'],
        seatLockSessionId: elsewhere,
        rewardCode: code,
      }),
    );
    expect(wrongCompany.status).toBe(409);
    expect(wrongCompany.body.errorCode).toBe('LOYALTY_ROUTE_NOT_ELIGIBLE');
    await expectUntouched(app, elsewhere, 1);
    expect(await voucherStatus(app, code)).toBe('ISSUED');

    const booked = await postBooking(
      app,
      caller,
      bookingBody({
        tripId: trip.tripId,
        seatNumbers: ['1'],
        seatLockSessionId: catalogueLock,
        rewardCode: code,
      }),
    );
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body.data).toMatchObject({
      finalPrice: 15_000,
      discount: 5_000,
      booking: { subtotal: 20_000, discount: 5_000, total_price: 15_000 },
    });
    expect(await voucherStatus(app, code)).toBe('USED');
    const [row] = await app.db.query<{ reward_redemption_id: string }>(
      `select reward_redemption_id from bookings where id = $1`,
      [booked.body.data.booking.id],
    );
    const [redemption] = await app.db.query<{ id: string }>(
      `select id from loyalty_redemptions where code = $1`,
      [code],
    );
    expect(row!.reward_redemption_id).toBe(redemption!.id);
  });

  it('lets exactly one of two concurrent bookings use the same voucher', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await mobileTraveller(app);
    const code = await voucher(app, caller, trip.companyId);
    const locks = [
      await lockSeats(app, caller, trip.tripId, ['11']),
      await lockSeats(app, caller, trip.tripId, ['12']),
    ];
    const answers = await Promise.all(
      locks.map((lockId, index) =>
        postBooking(
          app,
          caller,
          bookingBody({
            tripId: trip.tripId,
            seatNumbers: [['11'], ['12']][index]!,
            seatLockSessionId: lockId,
            rewardCode: code,
          }),
        ),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const loser = answers.findIndex((answer) => answer.status === 409);
    expect(answers[loser]!.body.errorCode).toBe('LOYALTY_REDEMPTION_USED');
    await expectUntouched(app, locks[loser]!, 1);
  });
});

describe('POST /bookings/round-trip', () => {
  const app = useTestApp();

  async function lockedPair(
    caller: Caller,
    pair: { outbound: BookableTripFixture; inbound: BookableTripFixture },
  ) {
    return {
      outboundLock: await lockSeats(app, caller, pair.outbound.tripId, ['1', '2']),
      returnLock: await lockSeats(app, caller, pair.inbound.tripId, ['3', '4']),
    };
  }

  it('books both directions in one order and splits one voucher across both bookings in proportion to their subtotals', async () => {
    // Legs of unequal subtotal (2 × 10 000 out, 2 × 30 000 back): 15 % of 80 000 is 12 000, split
    // 1 : 3 as the subtotals are (an even split would be 6 000 each).
    const pair = await roundTripPair(app, undefined, { outbound: 10_000, inbound: 30_000 });
    const caller = await webTraveller(app);
    const code = await voucher(app, caller, pair.outbound.companyId, { percent: 15 });
    const { outboundLock, returnLock } = await lockedPair(caller, pair);

    const response = await postRoundTrip(app, caller, roundTripBody(outboundLock, returnLock, code));
    expect(response.status, response.text).toBe(201);
    const data = response.body.data;
    expect(data).toMatchObject({ subtotal: 80_000, discount: 12_000, finalPrice: 68_000 });
    const [outbound, inbound] = data.bookings;
    expect(outbound).toMatchObject({
      trip_id: pair.outbound.tripId,
      subtotal: 20_000,
      discount: 3_000,
      order_id: data.order_id,
    });
    expect(inbound).toMatchObject({
      trip_id: pair.inbound.tripId,
      subtotal: 60_000,
      discount: 9_000,
      order_id: data.order_id,
    });
    const rows = await app.db.query<{
      trip_id: string;
      subtotal: number;
      discount: number;
      total_price: number;
    }>(
      `select b.trip_id, b.subtotal::int, b.discount::int, b.total_price::int
       from bookings b join journeys j on j.id = b.journey_id where j.order_id = $1`,
      [data.order_id],
    );
    expect(
      Object.fromEntries(rows.map((row) => [row.trip_id, [row.subtotal, row.discount, row.total_price]])),
    ).toEqual({
      [pair.outbound.tripId]: [20_000, 3_000, 17_000],
      [pair.inbound.tripId]: [60_000, 9_000, 51_000],
    });
    expect(await voucherStatus(app, code)).toBe('USED');

    const [order] = await app.db.query<{ status: string; journeys: number }>(
      `select o.status, (select count(*)::int from journeys j where j.order_id = o.id) as journeys
       from journey_orders o where o.id = $1`,
      [data.order_id],
    );
    expect(order).toEqual({ status: 'CONFIRMED', journeys: 2 });
    const tickets = await app.db.query<{ status: string }>(
      `select t.status from journey_tickets t join journeys j on j.id = t.journey_id where j.order_id = $1`,
      [data.order_id],
    );
    expect(tickets.map((ticket) => ticket.status)).toEqual(Array(4).fill('VALID'));

    const retry = await postRoundTrip(app, caller, roundTripBody(outboundLock, returnLock, code));
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data.order_id).toBe(data.order_id);
  });

  it('stores the passenger phone of both bookings in its E.164 form; a number sign-in cannot read is 400, holding nothing', async () => {
    const pair = await roundTripPair(app);
    const caller = await mobileTraveller(app);
    const { outboundLock, returnLock } = await lockedPair(caller, pair);
    const body = roundTripBody(outboundLock, returnLock);

    const refused = await postRoundTrip(app, caller, { ...body, passenger_phone: '+96300955111222' });
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([400, 'INVALID_PASSENGER_PHONE']);
    await expectUntouched(app, outboundLock, 2);
    await expectUntouched(app, returnLock, 2);

    const booked = await postRoundTrip(app, caller, { ...body, passenger_phone: '+9630955111222' });
    expect(booked.status, booked.text).toBe(201);
    const rows = await app.db.query<{ passenger_phone: string }>(
      `select b.passenger_phone from bookings b join journeys j on j.id = b.journey_id where j.order_id = $1`,
      [booked.body.data.order_id],
    );
    expect(rows).toEqual([{ passenger_phone: '+963955111222' }, { passenger_phone: '+963955111222' }]);
  });

  it('leaves nothing held and the voucher unused when the second leg fails', async () => {
    const pair = await roundTripPair(app);
    const caller = await mobileTraveller(app);
    const code = await voucher(app, caller, pair.outbound.companyId);

    const expired = await lockedPair(caller, pair);
    await app.db.query(`update hold_batches set expires_at = now() - interval '1 second' where id = $1`, [
      expired.returnLock,
    ]);
    const late = await postRoundTrip(
      app,
      caller,
      roundTripBody(expired.outboundLock, expired.returnLock, code),
    );
    expect(late.status).toBe(409);
    expect(late.body.errorCode).toBe('SEAT_LOCK_EXPIRED');
    await expectUntouched(app, expired.outboundLock, 2);
    expect(await voucherStatus(app, code)).toBe('ISSUED');

    // A voucher limited to the outbound route does not cover the return.
    const limited = await voucher(app, caller, pair.outbound.companyId, {
      routeIds: [pair.outbound.routeId],
    });
    const seats = {
      outboundLock: await lockSeats(app, caller, pair.outbound.tripId, ['5']),
      returnLock: await lockSeats(app, caller, pair.inbound.tripId, ['5']),
    };
    const refused = await postRoundTrip(
      app,
      caller,
      roundTripBody(seats.outboundLock, seats.returnLock, limited),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('LOYALTY_ROUTE_NOT_ELIGIBLE');
    await expectUntouched(app, seats.outboundLock, 1);
    await expectUntouched(app, seats.returnLock, 1);
    expect(await voucherStatus(app, limited)).toBe('ISSUED');
    const orders = await app.db.query(`select id from journey_orders where owner_user_id = $1`, [
      caller.userId,
    ]);
    expect(orders).toEqual([]);
  });

  it('refuses a return that does not go back, or leaves before the outbound arrives', async () => {
    const caller = await mobileTraveller(app);
    const pair = await roundTripPair(app);
    const sameWay = await bookableTrip(app.db, {
      companyId: pair.outbound.companyId,
      from: pair.outbound.from,
      to: pair.outbound.to,
      departAt: atDamascus(futureDay(6), '08:00'),
    });
    const early = await bookableTrip(app.db, {
      companyId: pair.outbound.companyId,
      from: pair.outbound.to,
      to: pair.outbound.from,
      departAt: new Date(pair.outbound.departAt.getTime() + 60 * 60_000),
    });
    const outboundLock = await lockSeats(app, caller, pair.outbound.tripId, ['1']);
    for (const [trip, errorCode] of [
      [sameWay, 'ROUND_TRIP_DIRECTION_MISMATCH'],
      [early, 'RETURN_DEPARTS_TOO_EARLY'],
    ] as const) {
      const returnLock = await lockSeats(app, caller, trip.tripId, ['1']);
      const response = await postRoundTrip(app, caller, roundTripBody(outboundLock, returnLock));
      expect(response.status).toBe(409);
      expect(response.body.errorCode).toBe(errorCode);
      await expectUntouched(app, returnLock, 1);
    }
    await expectUntouched(app, outboundLock, 1);

    const same = await postRoundTrip(app, caller, roundTripBody(outboundLock, outboundLock));
    expect(same.status).toBe(400);
    expect(same.body.errorCode).toBe('SAME_SEAT_LOCK');
    const missing = await postRoundTrip(app, caller, {
      ...roundTripBody(outboundLock, outboundLock),
      return_seat_lock_session_id: undefined,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errorCode).toBe('INVALID_SEAT_LOCK_SESSION_ID');
  });
});
