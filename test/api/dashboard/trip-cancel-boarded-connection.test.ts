import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { openShift, paymentAction } from '../../support/finance.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { bookJourney, connection, mobileTraveller, type Caller } from '../../support/journeys.js';
import { assignDriver, createDriver, dispatch, scan, travellerAction } from '../../support/operations.js';
import { announceCashPayment, collectCash } from '../../support/payments.js';

/**
 * A trip CANCEL ends the journeys on the trip, and with them their legs on other trips that have
 * not departed, but not a leg whose traveller is already checked in on its bus: that bus still
 * leaves with them aboard. Such a leg is kept as a travelled one is (booking, ticket, seat and
 * money), so the journey stands; the cancelled trip's leg ends as before, and so does the other
 * leg of a traveller not yet boarded.
 */
describe('a trip CANCEL of the second leg of a connection whose traveller is aboard the first bus', () => {
  const app = useTestApp();

  it("keeps the boarded leg with the driver's cash line, a leg paid beforehand, and ends the legs not boarded", async () => {
    const world = await connection(app.db);
    const ownerA = await staffSession(app.db, app.config, world.first.companyId, 'OWNER');
    const ownerB = await staffSession(app.db, app.config, world.second.companyId, 'OWNER');
    const driver = await createDriver(app, world.first.companyId);
    await assignDriver(app.db, world.first.tripId, driver.staffUserId);

    // Paying at the door: leg B's cash only announced. Paid beforehand: both legs paid at the offices.
    const atTheDoor = await bookedConnection(app, world);
    await announceCashPayment(app.db, atTheDoor.second.bookingId, atTheDoor.traveller.userId);
    const paidAhead = await bookedConnection(app, world);
    await collectCash(app.db, paidAhead.first.bookingId);
    await collectCash(app.db, paidAhead.second.bookingId);
    const notBoarded = await bookedConnection(app, world);

    const boarding = await dispatch(app, ownerA, world.first.tripId, { action: 'START_BOARDING' });
    expect(boarding.status, boarding.text).toBe(200);
    // The driver scans the first traveller in and records the cash taken at the door.
    const scanned = await scan(app, driver.token, world.first.tripId, atTheDoor.first.credential);
    expect(scanned.body.data?.outcome, scanned.text).toBe('CHECKED_IN');
    const recorded = await app.request(
      `/driver/api/trips/${world.first.tripId}/bookings/${atTheDoor.first.bookingId}/cash-collection`,
      { method: 'POST', token: driver.token },
    );
    expect(recorded.status, recorded.text).toBe(201);
    const driverLineId = recorded.body.data.id as string;
    // The operations room checks in the traveller who paid beforehand (no driver line).
    const checkedIn = await travellerAction(
      app,
      ownerA,
      world.first.tripId,
      'CHECK_IN',
      paidAhead.first.ticketId,
    );
    expect(checkedIn.status, checkedIn.text).toBe(200);

    const cancelled = await dispatch(app, ownerB, world.second.tripId, {
      action: 'CANCEL',
      reason: 'Breakdown',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    // Every leg B, and the not-boarded traveller's leg A with its journey; the boarded legs A stay.
    expect(cancelled.body.data.effects).toMatchObject({
      cancelled_journeys: 1,
      cancelled_bookings: 4,
      revoked_credentials: 4,
      cancelled_payments: 1,
      refund_due_payments: 1,
      events: 4,
    });

    // Company A's bus still boards the two travellers checked in, their legs untouched.
    expect(await legState(app, atTheDoor.first)).toEqual({
      booking: 'CHECKED_IN',
      payments: ['driver PENDING'],
      ticket: 'USED CHECKED_IN',
      revoked: false,
      seat: 'CONFIRMED',
    });
    expect(await legState(app, paidAhead.first)).toEqual({
      booking: 'CHECKED_IN',
      payments: ['office COMPLETED'],
      ticket: 'USED CHECKED_IN',
      revoked: false,
      seat: 'CONFIRMED',
    });
    // Their legs on the cancelled trip end as before: cash announced CANCELLED, cash collected refundable.
    expect(await legState(app, atTheDoor.second)).toEqual({
      booking: 'CANCELLED',
      payments: ['transaction CANCELLED'],
      ticket: 'CANCELLED PENDING',
      revoked: true,
      seat: 'RELEASED',
    });
    expect(await legState(app, paidAhead.second)).toEqual({
      booking: 'CANCELLED',
      payments: ['office REFUND_DUE'],
      ticket: 'CANCELLED PENDING',
      revoked: true,
      seat: 'RELEASED',
    });
    // Their journeys stand: the traveller still reads them confirmed.
    for (const boarded of [atTheDoor, paidAhead]) {
      const projection = await app.request(`/api/journeys/${boarded.journeyId}`, {
        headers: boarded.traveller.headers,
      });
      expect(projection.status, projection.text).toBe(200);
      expect(projection.body.data.confirmation.status).toBe('CONFIRMED');
    }
    // A traveller not yet aboard loses both legs and the journey, as before.
    expect(await legState(app, notBoarded.first)).toMatchObject({ booking: 'CANCELLED', revoked: true });
    expect(await legState(app, notBoarded.second)).toMatchObject({ booking: 'CANCELLED', revoked: true });
    const [journey] = await app.db.query<{ status: string; failure_reason: string | null }>(
      'select status, failure_reason from journeys where id = $1',
      [notBoarded.journeyId],
    );
    expect(journey).toEqual({ status: 'CANCELLED', failure_reason: 'TRIP_CANCELLED' });

    // The cash in the driver's hands is still a line the office verifies when it is handed in.
    await openShift(app, ownerA, 0);
    const verified = await paymentAction(app, ownerA, driverLineId, 'verify');
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.data).toMatchObject({ status: 'COMPLETED' });
  });

  it('a RESTORE that undid the check-in while the CANCEL waited for the booking: the leg ends with the journey', async () => {
    const world = await connection(app.db);
    const ownerA = await staffSession(app.db, app.config, world.first.companyId, 'OWNER');
    const ownerB = await staffSession(app.db, app.config, world.second.companyId, 'OWNER');
    const driver = await createDriver(app, world.first.companyId);
    await assignDriver(app.db, world.first.tripId, driver.staffUserId);
    const boarded = await bookedConnection(app, world);
    const boarding = await dispatch(app, ownerA, world.first.tripId, { action: 'START_BOARDING' });
    expect(boarding.status, boarding.text).toBe(200);
    const checkedIn = await travellerAction(
      app,
      ownerA,
      world.first.tripId,
      'CHECK_IN',
      boarded.first.ticketId,
    );
    expect(checkedIn.status, checkedIn.text).toBe(200);

    // The RESTORE queues first on leg A's booking, the CANCEL of trip B behind it; then both go.
    const held = await holdLock(
      app.db,
      `select id from bookings where id = '${boarded.first.bookingId}' for update`,
    );
    const restore = travellerAction(app, ownerA, world.first.tripId, 'RESTORE', boarded.first.ticketId);
    await waitersOf(app.db, held.pid);
    const cancel = dispatch(app, ownerB, world.second.tripId, { action: 'CANCEL', reason: 'Breakdown' });
    await waitersOf(app.db, held.pid, 2);
    await held.release();
    const [restored, cancelled] = await Promise.all([restore, cancel]);
    expect(restored.status, restored.text).toBe(200);
    expect(cancelled.status, cancelled.text).toBe(200);

    // The cancel judged the booking as the RESTORE left it (no longer checked in): the leg ends.
    expect(cancelled.body.data.effects).toMatchObject({ cancelled_journeys: 1, cancelled_bookings: 2 });
    expect(await legState(app, boarded.first)).toMatchObject({
      booking: 'CANCELLED',
      ticket: 'CANCELLED PENDING',
      revoked: true,
      seat: 'RELEASED',
    });
  });
});

type World = Awaited<ReturnType<typeof connection>>;

interface Leg {
  bookingId: string;
  ticketId: string;
  credential: { payload: unknown; signature: string };
}

interface BookedConnection {
  traveller: Caller;
  journeyId: string;
  first: Leg;
  second: Leg;
}

/** A one-traveller connection over both trips, confirmed and not yet paid. */
async function bookedConnection(app: TestApp, world: World): Promise<BookedConnection> {
  const traveller = await mobileTraveller(app);
  const { journeyId } = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }]);
  const legOn = async (tripId: string): Promise<Leg> => {
    const [row] = await app.db.query<{
      booking_id: string;
      ticket_id: string;
      payload: unknown;
      signature: string;
    }>(
      `select b.id as booking_id, k.id as ticket_id, k.payload, k.signature
         from bookings b join journey_tickets k on k.journey_id = b.journey_id and k.trip_id = b.trip_id
        where b.journey_id = $1 and b.trip_id = $2`,
      [journeyId, tripId],
    );
    return {
      bookingId: row!.booking_id,
      ticketId: row!.ticket_id,
      credential: { payload: row!.payload, signature: row!.signature },
    };
  };
  return {
    traveller,
    journeyId,
    first: await legOn(world.first.tripId),
    second: await legOn(world.second.tripId),
  };
}

/** The leg's booking status, its payment lines (source and status), its ticket, whether revoked, and its seat. */
async function legState(app: TestApp, leg: Leg) {
  const [row] = await app.db.query<{
    booking: string;
    payments: string[];
    ticket: string;
    revoked: boolean;
    seat: string;
  }>(
    `select b.status as booking,
            array(select p.source || ' ' || p.status from payment_operations p where p.booking_id = b.id
                   order by p.created_at) as payments,
            k.status || ' ' || k.attendance as ticket,
            exists (select 1 from credential_revocations r where r.ticket_id = k.id) as revoked,
            (select string_agg(a.status, ',') from seat_allocations a
              where a.owner_id = b.journey_id and a.trip_id = b.trip_id) as seat
       from bookings b join journey_tickets k on k.id = $2
      where b.id = $1`,
    [leg.bookingId, leg.ticketId],
  );
  return row!;
}
