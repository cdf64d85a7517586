import type { PoolClient } from 'pg';
import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import {
  bookSeats,
  dispatch,
  operationsWorld,
  scan,
  setTripStatus,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';

/**
 * A driver records a traveller's cash (POST .../cash-collection) while other writes of the same
 * company move its ledger statistics (payment_ledger_daily: one row per company, Damascus day,
 * status, source and provider, kept by a trigger in the writing transaction). Taking the
 * traveller's announced line over moves its (PENDING, transaction) row, then its (PENDING, driver)
 * row; a writer that holds the second and wants the first makes a cycle PostgreSQL breaks by
 * aborting one of the two. The driver app is answered as if the writes had run one after the
 * other, never 500 INTERNAL_ERROR.
 */
describe('POST /driver/api/trips/{id}/bookings/{bookingId}/cash-collection meeting other ledger writes', () => {
  const app = useTestApp();

  const collect = (token: string, tripId: string, bookingId: string) =>
    app.request(`/driver/api/trips/${tripId}/bookings/${bookingId}/cash-collection`, {
      method: 'POST',
      token,
    });

  const announceCash = (traveller: BookedTraveller) =>
    app.request('/api/payments/create', {
      method: 'POST',
      headers: traveller.caller.headers,
      json: { booking_id: traveller.bookingId, method: 'CASH' },
    });

  const linesOf = (bookingId: string) =>
    app.db.query<{ source: string; status: string }>(
      'select source, status from payment_operations where booking_id = $1 order by created_at',
      [bookingId],
    );

  /** The company's statistics rows, and the same figures counted again from its lines. */
  async function statisticsAndRecount(companyId: string) {
    const statistics = await app.db.query(
      `select day, status, source, provider, count, amount::int as amount from payment_ledger_daily
        where company_id = $1 and count <> 0 order by 1, 2, 3, 4`,
      [companyId],
    );
    const recount = await app.db.query(
      `select (created_at at time zone 'Asia/Damascus')::date as day, status, source, provider,
              count(*)::int as count, sum(amount)::int as amount
         from payment_operations where company_id = $1 group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
      [companyId],
    );
    return { statistics, recount };
  }

  /**
   * A boarding bus of `world`'s company whose traveller announced cash and was checked in by its
   * driver, who has not recorded the cash yet.
   */
  async function riderWhoAnnouncedCash(world: OperationsWorld): Promise<BookedTraveller> {
    await setTripStatus(app.db, world.trip.tripId, 'BOARDING');
    const rider = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const announced = await announceCash(rider);
    expect(announced.status, announced.text).toBe(201);
    const boarded = await scan(app, world.driver.token, world.trip.tripId, rider.credentials[0]!);
    expect(boarded.body.data?.outcome, boarded.text).toBe('CHECKED_IN');
    return rider;
  }

  /** Today's (Damascus) statistics row of the company for `status` and `source`, locked by `sql`. */
  const statisticsRow = (companyId: string, status: string, source: string) =>
    `insert into payment_ledger_daily (company_id, day, status, source, provider, count, amount)
     values ('${companyId}', (now() at time zone 'Asia/Damascus')::date, '${status}', '${source}', 'cash', 0, 0)
     on conflict (company_id, day, status, source, provider) do update set count = payment_ledger_daily.count`;

  /** The recording answered 201 with the booking's one line, now the driver's and still PENDING. */
  async function expectDriverHoldsTheLine(recorded: TestResponse, bookingId: string) {
    expect(recorded.status, recorded.text).toBe(201);
    expect(recorded.body.data).toMatchObject({ booking_id: bookingId, source: 'driver', status: 'PENDING' });
    expect(await linesOf(bookingId)).toEqual([{ source: 'driver', status: 'PENDING' }]);
  }

  it('records the cash while the company cancels another of its buses, whose pending lines end CANCELLED', async () => {
    const cancelledBus = await operationsWorld(app, { seats: 8 });
    const otherBus = await operationsWorld(app, { seats: 8, companyId: cancelledBus.companyId });
    await setTripStatus(app.db, cancelledBus.trip.tripId, 'BOARDING');
    // On the bus the company cancels, one traveller paid its driver at the door (a PENDING driver
    // line), another announced cash (a PENDING transaction line). The driver's line is the one of the
    // smaller booking id, the one a single UPDATE of both lines reached first.
    const pair = [
      await bookSeats(app, cancelledBus.trip, [cancelledBus.trip.seatNumbers[0]!]),
      await bookSeats(app, cancelledBus.trip, [cancelledBus.trip.seatNumbers[1]!]),
    ].sort((a, b) => a.bookingId.localeCompare(b.bookingId));
    const [paidDriver, announcer] = pair as [BookedTraveller, BookedTraveller];
    const boarded = await scan(
      app,
      cancelledBus.driver.token,
      cancelledBus.trip.tripId,
      paidDriver.credentials[0]!,
    );
    expect(boarded.body.data?.outcome, boarded.text).toBe('CHECKED_IN');
    const driverLine = await collect(
      cancelledBus.driver.token,
      cancelledBus.trip.tripId,
      paidDriver.bookingId,
    );
    expect(driverLine.status, driverLine.text).toBe(201);
    expect((await announceCash(announcer)).status).toBe(201);
    // On the other bus, the driver is about to record the cash of a traveller who announced it.
    const rider = await riderWhoAnnouncedCash(otherBus);

    // The order is made the same every run: another writer (the office cancelling a driver's line,
    // say) holds the day's (CANCELLED, driver) statistics row, so the CANCEL stops partway through
    // its lines; the recording starts meanwhile and waits behind it; then the row is let go.
    const blocker = await holdLock(app.db, statisticsRow(cancelledBus.companyId, 'CANCELLED', 'driver'));
    let recorded;
    let cancelled;
    try {
      const cancelling = dispatch(app, cancelledBus.dispatcher, cancelledBus.trip.tripId, {
        action: 'CANCEL',
        reason: 'Bus broke down',
      });
      await waitersOf(app.db, blocker.pid, 1);
      const recording = collect(otherBus.driver.token, otherBus.trip.tripId, rider.bookingId);
      await waitersOf(app.db, blocker.pid, 2);
      await blocker.release();
      [recorded, cancelled] = await Promise.all([recording, cancelling]);
    } finally {
      await blocker.release();
    }

    expect(cancelled.status, cancelled.text).toBe(200);
    // The CANCEL of another trip does not touch the rider's booking: serially, 201 either way.
    await expectDriverHoldsTheLine(recorded, rider.bookingId);
    expect(await linesOf(paidDriver.bookingId)).toEqual([{ source: 'driver', status: 'CANCELLED' }]);
    expect(await linesOf(announcer.bookingId)).toEqual([{ source: 'transaction', status: 'CANCELLED' }]);
    // The statistics moved with every line, once.
    const { statistics, recount } = await statisticsAndRecount(cancelledBus.companyId);
    expect(statistics).toEqual(recount);

    // Sent again (the app's offline queue), the recording answers the same line.
    const again = await collect(otherBus.driver.token, otherBus.trip.tripId, rider.bookingId);
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.id).toBe(recorded.body.data.id);
  });

  it("runs the recording again when PostgreSQL aborts it as a deadlock's victim", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const rider = await riderWhoAnnouncedCash(world);

    // A writer that takes the day's statistics rows in the opposite order: (PENDING, driver) first...
    const writer: PoolClient = await app.db.pool.connect();
    let recorded;
    try {
      await writer.query('begin');
      await writer.query(statisticsRow(world.companyId, 'PENDING', 'driver'));
      const [{ pid }] = (await writer.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [
        { pid: number },
      ];
      // ...the recording takes (PENDING, transaction) and waits for (PENDING, driver)...
      const recording = collect(world.driver.token, world.trip.tripId, rider.bookingId);
      await waitersOf(app.db, pid, 1);
      // ...and the writer then wants (PENDING, transaction): a cycle. PostgreSQL aborts the recording,
      // which waited first; the writer goes on, then ends (rolled back), and the recording's new run
      // goes through.
      await writer.query(statisticsRow(world.companyId, 'PENDING', 'transaction'));
      await writer.query('rollback');
      recorded = await recording;
    } finally {
      await writer.query('rollback').catch(() => undefined);
      writer.release();
    }

    await expectDriverHoldsTheLine(recorded, rider.bookingId);
    // One audit row: the aborted run wrote nothing.
    const audits = await app.db.query(
      `select 1 from audit_log where action = 'payments.driver_collection' and target_id = $1`,
      [recorded.body.data.id],
    );
    expect(audits).toHaveLength(1);
    const { statistics, recount } = await statisticsAndRecount(world.companyId);
    expect(statistics).toEqual(recount);
  });
});
