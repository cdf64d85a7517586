import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openShift, payAtOffice, paymentAction } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import {
  advance,
  anotherTrip,
  bookSeats,
  createDriver,
  dispatch,
  operationsSnapshot,
  operationsWorld,
  scan,
  setTripStatus,
  type BookedTraveller,
  type OperationsWorld,
  travellerAction,
} from '../../support/operations.js';

/**
 * The cash a driver takes at the door (SPEC ledger source "driver collection"; README "Company
 * finance"): the trip's driver records it from the driver app as a PENDING driver line, the office
 * verifies it into its open cash shift, and the booking's cash is collected once, whoever announced it.
 */
describe('POST /driver/api/trips/{id}/bookings/{bookingId}/cash-collection', () => {
  const app = useTestApp();

  const collect = (token: string, tripId: string, bookingId: string) =>
    app.request(`/driver/api/trips/${tripId}/bookings/${bookingId}/cash-collection`, {
      method: 'POST',
      token,
    });

  /** A trip boarding with one traveller on it (one seat, UNPAID) and its driver signed in. */
  async function boardingTrip(): Promise<{ world: OperationsWorld; rami: BookedTraveller; total: number }> {
    const world = await operationsWorld(app, { seats: 8 });
    const rami = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    // The driver takes cash at the door from a traveller they checked in.
    const scanned = await scan(app, world.driver.token, world.trip.tripId, rami.credentials[0]!);
    expect(scanned.body.data).toMatchObject({ outcome: 'CHECKED_IN', booking: { cashToCollect: true } });
    const [booking] = await app.db.query<{ total: number }>(
      'select total_price::float8 as total from bookings where id = $1',
      [rami.bookingId],
    );
    return { world, rami, total: booking!.total };
  }

  const manifestPayment = async (world: OperationsWorld, bookingId: string) => {
    const manifest = await app.request(`/driver/api/trips/${world.trip.tripId}/manifest`, {
      token: world.driver.token,
    });
    expect(manifest.status, manifest.text).toBe(200);
    return manifest.body.data.manifest.find((item: { booking_id: string }) => item.booking_id === bookingId)
      .payment;
  };

  const linesOf = (bookingId: string) =>
    app.db.query<{ id: string; source: string; status: string }>(
      'select id, source, status from payment_operations where booking_id = $1 order by created_at',
      [bookingId],
    );

  const ledger = (world: OperationsWorld, query: string) =>
    app.request(`/dashboard/api/payments?${query}`, {
      headers: { Cookie: world.sessions.ACCOUNTANT.cookie },
    });

  it('records a PENDING driver line the office verifies into its shift: ledger, driver receipt, no cash left to collect', async () => {
    const { world, rami, total } = await boardingTrip();
    expect(total).toBeGreaterThan(0);
    expect(await manifestPayment(world, rami.bookingId)).toMatchObject({
      status: 'UNPAID',
      pending_cash: false,
      cash_to_collect: true,
    });

    const recorded = await collect(world.driver.token, world.trip.tripId, rami.bookingId);
    expect(recorded.status, recorded.text).toBe(201);
    const line = recorded.body.data;
    expect(line).toMatchObject({
      booking_id: rami.bookingId,
      booking_code: rami.bookingCode,
      source: 'driver',
      status: 'PENDING',
      amount: total,
      collected_by: world.driver.staffUserId,
    });

    // The driver sees nothing left to collect in the manifest.
    expect(await manifestPayment(world, rami.bookingId)).toMatchObject({
      status: 'UNPAID',
      pending_cash: true,
      cash_to_collect: false,
    });

    const shift = await openShift(app, world.sessions.OWNER, 20_000);
    const verified = await paymentAction(app, world.sessions.ACCOUNTANT, line.id, 'verify');
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.data).toMatchObject({
      source: 'driver',
      status: 'COMPLETED',
      cash_shift_id: shift.id,
      collected_by: world.driver.staffUserId,
      verified_by: world.sessions.ACCOUNTANT.staffUserId,
      booking: { payment_status: 'PAID' },
      receipt: { source: 'driver', id: line.id },
    });

    const current = await app.request('/dashboard/api/payments/cash-shifts', {
      headers: { Cookie: world.sessions.OWNER.cookie },
    });
    expect(current.body.data.current).toMatchObject({
      id: shift.id,
      expected_amount: 20_000 + total,
      collections: { count: 1, amount: total },
    });
    const drivers = await ledger(world, 'source=driver');
    expect(drivers.body.data.map((row: { id: string }) => row.id)).toEqual([line.id]);
    expect(drivers.body.statistics.bySource.driver).toEqual({ count: 1, amount: total });
    const all = await ledger(world, '');
    expect(all.body.statistics).toMatchObject({ count: 1, collected: total, outstanding: 0 });

    const receipt = await app.request(`/dashboard/api/payments/receipts/driver/${line.id}?locale=en`, {
      headers: { Cookie: world.sessions.ACCOUNTANT.cookie },
    });
    expect(receipt.status, receipt.text).toBe(200);
    expect(receipt.headers.get('content-type')).toBe('application/pdf');

    // Sent again after the verify (an offline queue): the same line, nothing written.
    const again = await collect(world.driver.token, world.trip.tripId, rami.bookingId);
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ id: line.id, status: 'COMPLETED' });
    expect(await linesOf(rami.bookingId)).toEqual([{ id: line.id, source: 'driver', status: 'COMPLETED' }]);
  });

  it('lets the bus leave once the driver recorded the cash of a checked-in traveller: CASH_TO_COLLECT no longer holds it', async () => {
    const { world, rami } = await boardingTrip();
    const held = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    expect([held.status, held.body.errorCode, held.body.details?.blockers]).toEqual([
      409,
      'TRIP_NOT_READY',
      [expect.objectContaining({ code: 'CASH_TO_COLLECT', count: 1 })],
    ]);

    const recorded = await collect(world.driver.token, world.trip.tripId, rami.bookingId);
    expect(recorded.status, recorded.text).toBe(201);
    const departed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    expect(departed.status, departed.text).toBe(200);
  });

  it('refuses to undo the check-in of a traveller whose cash the driver recorded, until the office cancels that line', async () => {
    const { world, rami } = await boardingTrip();
    const recorded = await collect(world.driver.token, world.trip.tripId, rami.bookingId);
    expect(recorded.status, recorded.text).toBe(201);
    const [ticket] = await app.db.query<{ id: string }>(
      `select k.id from journey_tickets k join bookings b on b.journey_id = k.journey_id and b.trip_id = k.trip_id
       where b.id = $1`,
      [rami.bookingId],
    );
    const restore = () => travellerAction(app, world.dispatcher, world.trip.tripId, 'RESTORE', ticket!.id);
    const before = await operationsSnapshot(app.db, world.trip.tripId);
    const refused = await restore();
    expect([refused.status, refused.body.errorCode, refused.body.details?.payment_id]).toEqual([
      409,
      'DRIVER_CASH_RECORDED',
      recorded.body.data.id,
    ]);
    expect(await operationsSnapshot(app.db, world.trip.tripId)).toEqual(before);

    const cancelled = await paymentAction(app, world.sessions.ACCOUNTANT, recorded.body.data.id, 'cancel');
    expect(cancelled.status, cancelled.text).toBe(200);
    const restored = await restore();
    expect(restored.status, restored.text).toBe(200);
  });

  it("undoes one child's mistaken check-in while the rest of the family stays checked in; the last one aboard is refused", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const family = await bookSeats(app, world.trip, world.trip.seatNumbers.slice(0, 3));
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    for (const credential of family.credentials) {
      const scanned = await scan(app, world.driver.token, world.trip.tripId, credential);
      expect(scanned.body.data.outcome, scanned.text).toBe('CHECKED_IN');
    }
    const recorded = await collect(world.driver.token, world.trip.tripId, family.bookingId);
    expect(recorded.status, recorded.text).toBe(201);
    const restore = (ticketId: string) =>
      travellerAction(app, world.dispatcher, world.trip.tripId, 'RESTORE', ticketId);
    const [mother, father, child] = family.ticketIds as [string, string, string];

    // The child never got on: the parents stay checked in, so does the booking, with the driver's line.
    const childRestored = await restore(child);
    expect([childRestored.status, childRestored.body.errorCode], childRestored.text).toEqual([
      200,
      undefined,
    ]);
    expect(childRestored.body.data.traveller).toMatchObject({
      attendance: 'PENDING',
      booking_status: 'CHECKED_IN',
    });
    const fatherRestored = await restore(father);
    expect(fatherRestored.status, fatherRestored.text).toBe(200);
    expect(await linesOf(family.bookingId)).toEqual([
      { id: recorded.body.data.id, source: 'driver', status: 'PENDING' },
    ]);

    // Undoing the last check-in would leave the booking no longer checked in: refused, nothing changed.
    const before = await operationsSnapshot(app.db, world.trip.tripId);
    const refused = await restore(mother);
    expect([refused.status, refused.body.errorCode, refused.body.details?.payment_id]).toEqual([
      409,
      'DRIVER_CASH_RECORDED',
      recorded.body.data.id,
    ]);
    expect(await operationsSnapshot(app.db, world.trip.tripId)).toEqual(before);
    const [booking] = await app.db.query<{ status: string }>('select status from bookings where id = $1', [
      family.bookingId,
    ]);
    expect(booking!.status).toBe('CHECKED_IN');
  });

  it('records one line when the driver app sends the recording several times at once', async () => {
    const { world, rami } = await boardingTrip();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => collect(world.driver.token, world.trip.tripId, rami.bookingId)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const ids = new Set(answers.map((answer) => answer.body.data.id));
    expect(ids.size).toBe(1);
    expect(await linesOf(rami.bookingId)).toEqual([{ id: [...ids][0], source: 'driver', status: 'PENDING' }]);
  });

  describe("the traveller's announced cash and the driver's are one line, collected once", () => {
    const announce = (rami: BookedTraveller) =>
      app.request('/api/payments/create', {
        method: 'POST',
        headers: rami.caller.headers,
        json: { booking_id: rami.bookingId, method: 'CASH' },
      });

    it('the driver takes over the announced line; announcing again and verifying find that one line', async () => {
      const { world, rami, total } = await boardingTrip();
      const announced = await announce(rami);
      expect(announced.status, announced.text).toBe(201);
      const recorded = await collect(world.driver.token, world.trip.tripId, rami.bookingId);
      expect(recorded.status, recorded.text).toBe(201);
      expect(recorded.body.data).toMatchObject({ id: announced.body.data.payment.id, source: 'driver' });
      const again = await announce(rami);
      expect(again.status, again.text).toBe(200);
      expect(again.body.data.payment.id).toBe(recorded.body.data.id);
      expect((await ledger(world, '')).body.statistics).toMatchObject({ count: 1, outstanding: total });

      await openShift(app, world.sessions.OWNER, 0);
      const verified = await paymentAction(app, world.sessions.ACCOUNTANT, recorded.body.data.id, 'verify');
      expect(verified.status, verified.text).toBe(200);
      expect(await linesOf(rami.bookingId)).toEqual([
        { id: recorded.body.data.id, source: 'driver', status: 'COMPLETED' },
      ]);
      expect((await ledger(world, '')).body.statistics).toMatchObject({ count: 1, collected: total });
    });

    it("the traveller who announces after the driver's recording is answered with the driver's line", async () => {
      const { world, rami } = await boardingTrip();
      const recorded = await collect(world.driver.token, world.trip.tripId, rami.bookingId);
      const announced = await announce(rami);
      expect(announced.status, announced.text).toBe(200);
      expect(announced.body.data.payment).toMatchObject({ id: recorded.body.data.id, status: 'PENDING' });
      // The office taking the cash over the counter completes that same line.
      await openShift(app, world.sessions.OWNER, 0);
      expect(await payAtOffice(app, world.sessions.ACCOUNTANT, rami.bookingId)).toBe(recorded.body.data.id);
      expect(await linesOf(rami.bookingId)).toEqual([
        { id: recorded.body.data.id, source: 'driver', status: 'COMPLETED' },
      ]);
    });
  });

  describe('refusals change nothing', () => {
    async function refused(
      world: OperationsWorld,
      call: () => ReturnType<typeof collect>,
      expected: [number, string],
    ) {
      const before = await operationsSnapshot(app.db, world.trip.tripId);
      const answer = await call();
      expect([answer.status, answer.body.errorCode], answer.text).toEqual(expected);
      expect(await operationsSnapshot(app.db, world.trip.tripId)).toEqual(before);
    }

    it("refuses anyone but the trip's driver, and a booking not on the trip", async () => {
      const { world, rami } = await boardingTrip();
      const other = await createDriver(app, world.companyId);
      // The same driver's next trip: a booking there is not on this one.
      const nextTrip = await anotherTrip(app, world);
      const elsewhere = await bookSeats(app, { ...world.trip, tripId: nextTrip }, [
        world.trip.seatNumbers[1]!,
      ]);
      const tripId = world.trip.tripId;
      await refused(world, () => collect(other.token, tripId, rami.bookingId), [403, 'TRIP_NOT_ASSIGNED']);
      await refused(world, () => collect(world.sessions.OWNER.token, tripId, rami.bookingId), [
        403,
        'TRIP_NOT_ASSIGNED',
      ]);
      await refused(world, () => collect(world.driver.token, tripId, elsewhere.bookingId), [
        404,
        'BOOKING_NOT_FOUND',
      ]);
      await refused(world, () => collect(world.driver.token, tripId, randomUUID()), [
        404,
        'BOOKING_NOT_FOUND',
      ]);
      await refused(world, () => collect(world.driver.token, randomUUID(), rami.bookingId), [
        404,
        'TRIP_NOT_FOUND',
      ]);
    });

    it('refuses a trip not boarding or under way, a paid or cancelled booking and one with nothing to pay', async () => {
      const { world, rami } = await boardingTrip();
      const tripId = world.trip.tripId;
      const [lina, omar, sara, nour] = await Promise.all(
        [1, 2, 3, 4].map((seat) => bookSeats(app, world.trip, [world.trip.seatNumbers[seat]!])),
      );
      for (const status of ['SCHEDULED', 'COMPLETED', 'CANCELLED']) {
        await setTripStatus(app.db, tripId, status);
        await refused(world, () => collect(world.driver.token, tripId, rami.bookingId), [
          409,
          'TRIP_NOT_COLLECTING',
        ]);
      }
      await setTripStatus(app.db, tripId, 'DEPARTED');
      await openShift(app, world.sessions.OWNER, 0);
      await payAtOffice(app, world.sessions.ACCOUNTANT, lina!.bookingId);
      await refused(world, () => collect(world.driver.token, tripId, lina!.bookingId), [
        409,
        'BOOKING_ALREADY_PAID',
      ]);
      await app.db.query(`update bookings set status = 'CANCELLED' where id = $1`, [omar!.bookingId]);
      await refused(world, () => collect(world.driver.token, tripId, omar!.bookingId), [
        409,
        'BOOKING_NOT_PAYABLE',
      ]);
      await app.db.query('update bookings set total_price = 0 where id = $1', [sara!.bookingId]);
      await refused(world, () => collect(world.driver.token, tripId, sara!.bookingId), [
        409,
        'NOTHING_TO_COLLECT',
      ]);
      await refused(world, () => collect(world.driver.token, tripId, nour!.bookingId), [
        409,
        'TRAVELLER_NOT_CHECKED_IN',
      ]);
      // Under way, the driver still records the cash of a traveller on board.
      const recorded = await collect(world.driver.token, tripId, rami.bookingId);
      expect(recorded.status, recorded.text).toBe(201);
    });
  });
});
