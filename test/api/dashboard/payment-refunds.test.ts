import { describe, expect, it } from 'vitest';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { sharedCancellation } from '../../support/document-shares.js';
import { bookJourney, connection, mobileTraveller, type Caller } from '../../support/journeys.js';
import {
  advance,
  bookSeats,
  dispatch,
  dispatchView,
  operationsSnapshot,
  operationsWorldWithShift,
  scan,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';
import { payAtOffice, refundInFull } from '../../support/finance.js';
import { collectCash } from '../../support/payments.js';

/**
 * What a full refund (POST /dashboard/api/payments/{id}/refund) does to the booking: one that has not
 * travelled ends as a traveller's cancel ends it (seats free, tickets and credentials gone); one that
 * travelled keeps its status (the refund is a compensation).
 */
describe('a full refund and its booking', () => {
  const app = useTestApp();

  /** The traveller's cash collected at the office (unless it was), then refunded in full by the accountant. */
  const refundedInFull = async (world: OperationsWorld, traveller: BookedTraveller, collected?: string) =>
    refundInFull(
      app,
      world.sessions.ACCOUNTANT,
      collected ?? (await collectCash(app.db, traveller.bookingId, { source: 'office' })).paymentId,
    );

  /** POST /payments: the office takes the traveller's cash into the open shift; the operation's id. */
  const paidAtOffice = (world: OperationsWorld, traveller: BookedTraveller) =>
    payAtOffice(app, world.sessions.ACCOUNTANT, traveller.bookingId);

  const ticketItem = (traveller: BookedTraveller) => ({
    manifest_item_id: traveller.ticketIds[0],
    manifest_item_type: 'JOURNEY_TICKET',
  });

  /** What the operations room and the database show of the trip, to prove a refused action changed nothing. */
  const tripState = async (world: OperationsWorld) => ({
    manifest: (await dispatchView(app, world.dispatcher, world.trip.tripId)).body.data.manifest,
    rows: await operationsSnapshot(app.db, world.trip.tripId),
    revoked: await app.db.query(
      `select r.* from credential_revocations r join journey_tickets k on k.id = r.ticket_id
        where k.trip_id = $1 order by r.ticket_id`,
      [world.trip.tripId],
    ),
  });

  const bookingStatus = async (world: OperationsWorld, traveller: BookedTraveller) =>
    (
      await app.request(`/dashboard/api/bookings/${traveller.bookingId}`, {
        headers: { Cookie: world.sessions.OWNER.cookie },
      })
    ).body.data?.status;

  it('ends a CONFIRMED booking as a cancel does: seat free, ticket gone, credential revoked, scan refused', async () => {
    const world = await operationsWorldWithShift(app);
    const seat = world.trip.seatNumbers[0]!;
    const traveller = await bookSeats(app, world.trip, [seat]);
    const credential = traveller.credentials[0]!;

    const refund = await refundedInFull(world, traveller);

    expect(refund.body.data.booking).toMatchObject({ status: 'CANCELLED', payment_status: 'REFUNDED' });
    expect(await bookingStatus(world, traveller)).toBe('CANCELLED');
    const own = await app.request(`/api/bookings/${traveller.bookingId}`, {
      headers: traveller.caller.headers,
    });
    expect(own.body.data).toMatchObject({ status: 'CANCELLED', payment_status: 'REFUNDED' });
    const ticket = await app.request(`/api/bookings/${traveller.bookingId}/document?type=ticket&locale=en`, {
      headers: traveller.caller.headers,
    });
    expect([ticket.status, ticket.body.errorCode]).toEqual([410, 'DOCUMENT_GONE']);
    const verified = await app.request('/driver/api/verify', {
      method: 'POST',
      token: world.driver.token,
      json: { payload: credential.payload, signature: credential.signature, tripId: world.trip.tripId },
    });
    expect(verified.body.data?.valid, verified.text).toBe(false);
    const revocations = await app.request('/driver/api/revocations', { token: world.driver.token });
    expect(revocations.body.data.revocations.map((entry: { ticketId: string }) => entry.ticketId)).toContain(
      credential.ticketId,
    );

    // Another traveller takes the seat; the bus boards and the refunded credential does not.
    const next = await bookSeats(app, world.trip, [seat]);
    expect(next.ticketIds).toHaveLength(1);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const scanned = await scan(app, world.driver.token, world.trip.tripId, credential);
    expect(scanned.body.data?.outcome, scanned.text).toBe('REFUSED');
    expect(await bookingStatus(world, traveller)).toBe('CANCELLED');

    // The company's analytics count it as refunded, not as the traveller's cancel.
    const analytics = await app.request('/dashboard/api/analytics/advanced?days=7', {
      headers: { Cookie: world.sessions.OWNER.cookie },
    });
    expect(analytics.body.data.cancellations.byReason).toEqual([{ reason: 'REFUNDED', count: 1 }]);
  });

  it('keeps the status of a booking that travelled: CHECKED_IN, then COMPLETED', async () => {
    const world = await operationsWorldWithShift(app);
    const boarded = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    const completed = await bookSeats(app, world.trip, [world.trip.seatNumbers[2]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    for (const traveller of [boarded, completed]) {
      const checkIn = await dispatch(app, world.dispatcher, world.trip.tripId, {
        action: 'CHECK_IN',
        manifest_item_id: traveller.ticketIds[0],
        manifest_item_type: 'JOURNEY_TICKET',
      });
      expect(checkIn.status, checkIn.text).toBe(200);
    }

    const afterBoarding = await refundedInFull(world, boarded);
    expect(afterBoarding.body.data.booking).toMatchObject({
      status: 'CHECKED_IN',
      payment_status: 'REFUNDED',
    });
    expect(await bookingStatus(world, boarded)).toBe('CHECKED_IN');

    // Paid before the bus leaves (a checked-in traveller with cash to collect holds the DEPART).
    const { paymentId } = await collectCash(app.db, completed.bookingId, { source: 'office' });
    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE', 'COMPLETE');
    expect(await bookingStatus(world, completed)).toBe('COMPLETED');
    const afterTravel = await refundedInFull(world, completed, paymentId);
    expect(afterTravel.body.data.booking).toMatchObject({ status: 'COMPLETED', payment_status: 'REFUNDED' });
    expect(await bookingStatus(world, completed)).toBe('COMPLETED');
  });

  it('a DEPART meeting the refund waits for it, then leaves without the booking and sends it no trip.started', async () => {
    const world = await operationsWorldWithShift(app);
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const { paymentId } = await collectCash(app.db, traveller.bookingId, { source: 'office' });
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    // The refund has the trip FOR SHARE when it reaches the till, which the test holds.
    const till = await holdLock(
      app.db,
      `select id from cash_shifts where company_id = '${world.companyId}' and status = 'OPEN' for share`,
    );
    const refund = app.request(`/dashboard/api/payments/${paymentId}/refund`, {
      method: 'POST',
      headers: world.sessions.ACCOUNTANT.writeHeaders,
    });
    const [refundPid] = await waitersOf(app.db, till.pid);
    const depart = dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    await answeredOrWaiting(depart, app.db, refundPid!);
    await till.release();

    const [refunded, departed] = await Promise.all([refund, depart]);
    expect(refunded.status, refunded.text).toBe(200);
    expect(departed.status, departed.text).toBe(200);
    const events = await app.db.query<{ event: string }>(
      `select event from outbox_events where booking_id = $1 order by event`,
      [traveller.bookingId],
    );
    const sent = events.map((row) => row.event);
    expect(sent, JSON.stringify(sent)).toContain('booking.cancelled');
    expect(sent, JSON.stringify(sent)).not.toContain('trip.started');
    expect(await bookingStatus(world, traveller)).toBe('CANCELLED');
  });

  it('keeps a CONFIRMED booking whose bus has left: seat and ticket stay, NO_SHOW at COMPLETE, never cancelled', async () => {
    const world = await operationsWorldWithShift(app);
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const { paymentId } = await collectCash(app.db, traveller.bookingId, { source: 'office' });
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING', 'DEPART');
    const leg = () =>
      app.db.query<{ seats: string; tickets: string; revoked: number }>(
        `select (select string_agg(a.status, ',') from seat_allocations a
                  where a.owner_kind = 'JOURNEY' and a.owner_id = b.journey_id and a.trip_id = b.trip_id) as seats,
                (select string_agg(k.status, ',') from journey_tickets k
                  where k.journey_id = b.journey_id and k.trip_id = b.trip_id) as tickets,
                (select count(*)::int from credential_revocations r join journey_tickets k on k.id = r.ticket_id
                  where k.journey_id = b.journey_id and k.trip_id = b.trip_id) as revoked
           from bookings b where b.id = $1`,
        [traveller.bookingId],
      );
    const before = await leg();

    const refund = await refundedInFull(world, traveller, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: 'CONFIRMED', payment_status: 'REFUNDED' });
    expect(await bookingStatus(world, traveller)).toBe('CONFIRMED');
    expect(before).toEqual([{ seats: 'CONFIRMED', tickets: 'VALID', revoked: 0 }]);
    // Seat and ticket stay; only the credential is revoked (test/api/dashboard/refund-credentials.test.ts).
    expect(await leg()).toEqual([{ seats: 'CONFIRMED', tickets: 'VALID', revoked: 1 }]);

    // The money went back: a late check-in is refused.
    const unchecked = await tripState(world);
    const checkIn = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CHECK_IN',
      ...ticketItem(traveller),
    });
    expect([checkIn.status, checkIn.body.errorCode], checkIn.text).toEqual([409, 'TRAVELLER_REFUNDED']);
    expect(await tripState(world)).toEqual(unchecked);

    // At COMPLETE it is a no-show like any booking never scanned, as a refund after COMPLETE finds it.
    await advance(app, world.dispatcher, world.trip.tripId, 'ARRIVE', 'COMPLETE');
    expect(await bookingStatus(world, traveller)).toBe('NO_SHOW');
    const events = await app.db.query<{ event: string }>(
      `select event from outbox_events where booking_id = $1 order by event`,
      [traveller.bookingId],
    );
    expect(events.map((row) => row.event)).toEqual([
      'booking.confirmed',
      'booking.created',
      'trip.completed',
      'trip.started',
    ]);
    const analytics = await app.request('/dashboard/api/analytics/advanced?days=7', {
      headers: { Cookie: world.sessions.OWNER.cookie },
    });
    expect(analytics.body.data.cancellations.byReason).toEqual([]);
  });

  it('a no-show refunded as a compensation is not restored or checked in (409 TRAVELLER_REFUNDED); an unrefunded one is restored', async () => {
    const world = await operationsWorldWithShift(app);
    const refunded = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const kept = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    const paymentId = await paidAtOffice(world, refunded);
    await paidAtOffice(world, kept);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    for (const traveller of [refunded, kept]) {
      const noShow = await dispatch(app, world.dispatcher, world.trip.tripId, {
        action: 'MARK_NO_SHOW',
        ...ticketItem(traveller),
      });
      expect(noShow.status, noShow.text).toBe(200);
    }
    const refund = await refundedInFull(world, refunded, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: 'NO_SHOW', payment_status: 'REFUNDED' });

    const before = await tripState(world);
    for (const action of ['RESTORE', 'CHECK_IN']) {
      const refused = await dispatch(app, world.dispatcher, world.trip.tripId, {
        action,
        ...ticketItem(refunded),
      });
      expect([refused.status, refused.body.errorCode], `${action}: ${refused.text}`).toEqual([
        409,
        'TRAVELLER_REFUNDED',
      ]);
    }
    // The driver's scan of the refunded credential is refused too: the refund revoked it.
    const scanned = await scan(app, world.driver.token, world.trip.tripId, refunded.credentials[0]!);
    expect(scanned.body.data, scanned.text).toMatchObject({ outcome: 'REFUSED', reason: 'REVOKED' });
    expect(await tripState(world)).toEqual(before);
    expect(
      before.manifest.find((item: { booking_id: string }) => item.booking_id === refunded.bookingId),
    ).toMatchObject({
      ticket_status: 'VALID',
      booking_status: 'NO_SHOW',
      payment: { status: 'REFUNDED' },
      attendance: { status: 'NO_SHOW' },
    });

    const restored = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'RESTORE',
      ...ticketItem(kept),
    });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.data.traveller).toMatchObject({
      attendance: 'PENDING',
      previous_attendance: 'NO_SHOW',
      ticket_status: 'VALID',
      booking_status: 'CONFIRMED',
    });
  });

  it('an imported (legacy) no-show whose payment was refunded is not restored', async () => {
    const world = await operationsWorldWithShift(app);
    const [legacy] = await app.db.query<{ id: string }>(
      `insert into bookings (booking_code, company_id, trip_id, passenger_name, passenger_phone, seats_count,
                             seat_numbers, status, payment_status, total_price, discount)
       values ('BK-LEGACY-' || substr(md5(random()::text), 1, 6), $1, $2, 'Legacy Traveller', '+963944000001', 1,
               array[$3], 'NO_SHOW', 'REFUNDED', 10000, 0) returning id`,
      [world.companyId, world.trip.tripId, world.trip.seatNumbers[0]!],
    );
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const before = await tripState(world);
    const refused = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'RESTORE',
      manifest_item_id: legacy!.id,
      manifest_item_type: 'BOOKING',
    });
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'TRAVELLER_REFUNDED']);
    expect(await tripState(world)).toEqual(before);
  });

  it('ends an imported (legacy) booking refunded before its trip leaves: its own seat free, booking.cancelled once', async () => {
    const world = await operationsWorldWithShift(app);
    const seatNumber = world.trip.seatNumbers[0]!;
    const [legacy] = await app.db.query<{ id: string }>(
      `insert into bookings (booking_code, company_id, trip_id, passenger_name, passenger_phone, seats_count,
                             seat_numbers, status, payment_status, total_price, discount)
       values ('BK-LEGACY-' || substr(md5(random()::text), 1, 6), $1, $2, 'Legacy Traveller', '+963944000001', 1,
               array[$3], 'CONFIRMED', 'UNPAID', 10000, 0) returning id`,
      [world.companyId, world.trip.tripId, seatNumber],
    );
    // The imported row owns its seat over the whole trip, as the import wrote it.
    await app.db.query(
      `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, owner_kind, owner_id)
       select $1, s.seat_id, (select min(sequence) from trip_stop_calls where trip_id = $1),
              (select max(sequence) from trip_stop_calls where trip_id = $1), 'CONFIRMED', 'BOOKING', $4
         from layout_seats s join bus_layouts bl on bl.id = s.layout_id
        where bl.bus_id = $2 and bl.status = 'active' and s.seat_number = $3`,
      [world.trip.tripId, world.trip.busId, seatNumber, legacy!.id],
    );
    const refund = await refundInFull(
      app,
      world.sessions.ACCOUNTANT,
      await payAtOffice(app, world.sessions.ACCOUNTANT, legacy!.id),
    );
    expect(refund.body.data.booking.status).toBe('CANCELLED');
    const [booking] = await app.db.query('select status, payment_status from bookings where id = $1', [
      legacy!.id,
    ]);
    const events = await app.db.query('select event from outbox_events where booking_id = $1', [legacy!.id]);
    const seats = await app.db.query(
      `select status from seat_allocations where owner_kind = 'BOOKING' and owner_id = $1`,
      [legacy!.id],
    );
    expect({ booking, events, seats }).toEqual({
      booking: { status: 'CANCELLED', payment_status: 'REFUNDED' },
      events: [{ event: 'booking.cancelled' }],
      seats: [{ status: 'RELEASED' }],
    });
  });

  /** The connection's first leg paid at the office of its company, then refunded in full by its OWNER. */
  async function refundFirstLeg(world: Awaited<ReturnType<typeof connection>>, journeyId: string) {
    const [first] = await app.db.query<{ id: string }>(
      `select id from bookings where journey_id = $1 and trip_id = $2`,
      [journeyId, world.first.tripId],
    );
    const { paymentId } = await collectCash(app.db, first!.id, { source: 'office' });
    const owner = await staffSession(app.db, app.config, world.first.companyId, 'OWNER');
    const open = await app.request('/dashboard/api/payments/cash-shifts', {
      method: 'POST',
      headers: owner.writeHeaders,
      json: { action: 'OPEN', opening_balance: 500_000 },
    });
    expect(open.status, open.text).toBe(201);
    const refund = await app.request(`/dashboard/api/payments/${paymentId}/refund`, {
      method: 'POST',
      headers: owner.writeHeaders,
    });
    expect(refund.status, refund.text).toBe(200);
    return { paymentId, bookingId: first!.id };
  }

  it("ends only its own leg of a connection: the other company's leg, tickets and the journey stay", async () => {
    const world = await connection(app.db);
    const traveller = await mobileTraveller(app);
    const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }], 1);
    const legs = () =>
      app.db.query<{ trip_id: string; status: string; tickets: string; revoked: number; journey: string }>(
        `select b.trip_id, b.status, j.status as journey,
                (select string_agg(k.status, ',') from journey_tickets k
                  where k.journey_id = b.journey_id and k.trip_id = b.trip_id) as tickets,
                (select count(*)::int from credential_revocations r join journey_tickets k on k.id = r.ticket_id
                  where k.journey_id = b.journey_id and k.trip_id = b.trip_id) as revoked
           from bookings b join journeys j on j.id = b.journey_id where b.journey_id = $1 order by b.trip_id = $2 desc`,
        [booked.journeyId, world.first.tripId],
      );

    await refundFirstLeg(world, booked.journeyId);
    expect(await legs()).toEqual([
      {
        trip_id: world.first.tripId,
        status: 'CANCELLED',
        journey: 'CONFIRMED',
        tickets: 'CANCELLED',
        revoked: 1,
      },
      {
        trip_id: world.second.tripId,
        status: 'CONFIRMED',
        journey: 'CONFIRMED',
        tickets: 'VALID',
        revoked: 0,
      },
    ]);
  });

  it("a leg refunded alone keeps its cancellation confirmation's time and reason when the other leg's trip is cancelled later", async () => {
    const world = await connection(app.db);
    const traveller = await mobileTraveller(app);
    const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }], 1);
    const { paymentId, bookingId } = await refundFirstLeg(world, booked.journeyId);
    const [refunded] = await app.db.query<{ at: string }>(
      `select to_char(refunded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
         from payment_operations where id = $1`,
      [paymentId],
    );
    const leg1 = { cancelled_at: refunded!.at, reason: null };
    expect(await cancellationOf(traveller, bookingId)).toEqual(leg1);

    // Later the other company cancels its trip: the journey (with leg 2) ends for reason TRIP_CANCELLED.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const dispatcher = await staffSession(app.db, app.config, world.second.companyId, 'DISPATCHER');
    const cancelled = await dispatch(app, dispatcher, world.second.tripId, {
      action: 'CANCEL',
      reason: 'Breakdown',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const [journey] = await app.db.query<{ failure_reason: string }>(
      `select failure_reason from journeys where id = $1`,
      [booked.journeyId],
    );
    expect(journey!.failure_reason).toBe('TRIP_CANCELLED');

    expect(
      await cancellationOf(traveller, bookingId),
      "leg 1 ended by its refund, not by trip 2's cancel",
    ).toEqual(leg1);
    const [second] = await app.db.query<{ id: string }>(
      `select id from bookings where journey_id = $1 and trip_id = $2`,
      [booked.journeyId, world.second.tripId],
    );
    expect(await cancellationOf(traveller, second!.id)).toMatchObject({ reason: 'TRIP_CANCELLED' });
  });

  const cancellationOf = (traveller: Caller, bookingId: string) =>
    sharedCancellation(app, traveller, bookingId);
});
