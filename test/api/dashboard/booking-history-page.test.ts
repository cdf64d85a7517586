import { beforeAll, describe, expect, it } from 'vitest';
import { foldBookingStats } from '../../../db/writes/analytics-rollup.js';
import { atDamascus, createCorridor, createTrip, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { everyPage } from '../../support/pages.js';
import {
  createJourneyRows,
  journeyTripOf,
  staffSession,
  type JourneyTrip,
} from '../../support/journey-rows.js';

/**
 * The dashboard's bookings (GET /bookings) a page at a time: newest first, bookings made together
 * (one transaction, one created_at) in id order, so a page ending inside such a group neither
 * repeats nor skips one; status, trip, date and confirmation status narrow it, with
 * pagination.total the matching bookings on every page, a page past the end included; each
 * booking of a page carries its own confirmation request.
 */
describe('GET /dashboard/api/bookings: the history a page at a time', () => {
  const app = useTestApp();
  let cookie: string;
  let laterDate: string;
  let laterTrip: JourneyTrip;
  /** Every booking of the company as the list must show it. */
  const history: Planned[] = [];
  const deadline = new Date(Date.now() + 15 * 60_000);

  interface Planned {
    id: string;
    createdAt: string;
    status: string;
    tripId: string;
    requestId: string | null;
    requestStatus: string | null;
  }

  interface Listed {
    id: string;
    status: string;
    trip_id: string;
    confirmation: { request_id: string; status: string } | null;
  }

  /** The order the list promises: made latest first, then id (PostgreSQL orders uuids as their hex). */
  const inListOrder = (bookings: Planned[]) =>
    [...bookings].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? 1 : -1,
    );

  const list = async (query: string) => {
    const response = await app.request(`/dashboard/api/bookings?${query}`, { headers: { Cookie: cookie } });
    expect(response.status, response.text).toBe(200);
    return response.body as { data: Listed[]; pagination: { limit: number; offset: number; total: number } };
  };

  /** Every page of `query` with `limit`, offset by offset until one comes back short. */
  const allPages = (query: string, limit: number) =>
    everyPage(
      (paging) => list(`${query}${query ? '&' : ''}${paging}`),
      (page) => page.data,
      limit,
    );

  beforeAll(async () => {
    const corridor = await createCorridor(app.db);
    const firstTrip = journeyTripOf(corridor);
    laterDate = futureDay(5);
    const later = await createTrip(app.db, {
      companyId: corridor.company.id,
      busId: corridor.bus.id,
      routeId: corridor.trip.routeId,
      departAt: atDamascus(laterDate, '09:00'),
      calls: [
        { stop: corridor.originStop, at: 0 },
        { stop: corridor.destinationStop, at: 180 },
      ],
    });
    laterTrip = { id: later.id, companyId: corridor.company.id, stopCallIds: later.stopCallIds };
    const ownerUserId = (await app.signIn()).userId;
    cookie = (await staffSession(app.db, app.config, corridor.company.id, 'STAFF')).cookie;
    // Three instants, three bookings made at each: a page of 2 or 4 ends inside a group.
    const instants = [3, 2, 1].map((hours) => new Date(Date.now() - hours * 3_600_000).toISOString());
    for (let index = 0; index < 9; index++) {
      const trip = index % 3 === 2 ? laterTrip : firstTrip;
      const rows = await createJourneyRows(app.db, {
        ownerUserId,
        trip,
        travellers: [`Traveller ${index}`],
        bookingStatus: index % 4 === 3 ? 'CANCELLED' : 'PENDING_CONFIRMATION',
        ...(index % 2 === 0 ? { requestDeadline: deadline } : {}),
      });
      const createdAt = instants[index % 3]!;
      await app.db.query('update bookings set created_at = $2 where id = $1', [rows.bookingId, createdAt]);
      history.push({
        id: rows.bookingId,
        createdAt,
        status: index % 4 === 3 ? 'CANCELLED' : 'PENDING_CONFIRMATION',
        tripId: trip.id,
        requestId: rows.requestId,
        requestStatus: rows.requestId ? 'PENDING' : null,
      });
    }
    for (const index of [0, 4]) {
      await app.db.query(
        `update confirmation_requests set status = 'REJECTED', decided_at = now() where id = $1`,
        [history[index]!.requestId],
      );
      history[index]!.requestStatus = 'REJECTED';
    }
    // Another company's booking made at the same instant is never listed.
    const foreign = await createCorridor(app.db, { date: corridor.date });
    const other = await createJourneyRows(app.db, {
      ownerUserId,
      trip: journeyTripOf(foreign),
      travellers: ['Nour Hamdan'],
    });
    await app.db.query('update bookings set created_at = $2 where id = $1', [other.bookingId, instants[0]]);
  });

  it('pages through bookings made together without repeating or skipping one, newest first, then id', async () => {
    const expected = inListOrder(history);
    for (const limit of [4, 2, 9]) {
      const pages = await allPages('', limit);
      expect(
        pages.flatMap((page) => page.data.map((booking) => booking.id)),
        `limit ${limit}`,
      ).toEqual(expected.map((booking) => booking.id));
      for (const [index, page] of pages.entries()) {
        expect(page.pagination).toEqual({ limit, offset: index * limit, total: 9 });
      }
    }
    const page = await list('limit=3&offset=3');
    expect(page.data.map((booking) => booking.confirmation?.request_id ?? null)).toEqual(
      expected.slice(3, 6).map((booking) => booking.requestId),
    );
    const pastTheEnd = await list('limit=5&offset=20');
    expect(pastTheEnd.data).toEqual([]);
    expect(pastTheEnd.pagination).toEqual({ limit: 5, offset: 20, total: 9 });
  });

  it('totals every booking the same once the statistics are folded, and a booking made after the fold at once', async () => {
    const [{ company_id: companyId } = { company_id: '' }] = await app.db.query<{ company_id: string }>(
      'select company_id from bookings where id = $1',
      [history[0]!.id],
    );
    await foldBookingStats(app.db, [companyId]);
    const folded = await list('limit=4&offset=4');
    expect(folded.pagination.total).toBe(9);
    expect(folded.data.map((booking) => booking.id)).toEqual(
      inListOrder(history)
        .slice(4, 8)
        .map((booking) => booking.id),
    );
    await app.db.query(
      `insert into bookings (booking_code, company_id, trip_id, passenger_name, passenger_phone, seats_count, seat_numbers,
                             status, total_price, created_at)
       values ('BK-AFTERFOLD' || substr(md5(random()::text), 1, 6), $1, $2, 'Walk-in', '+963944000001', 1, array['9A'],
               'CONFIRMED', 10000, now() - interval '4 hours')`,
      [companyId, laterTrip.id],
    );
    const after = await list('limit=20&offset=20');
    expect([after.data, after.pagination.total]).toEqual([[], 10]);
    await app.db.query(`delete from bookings where booking_code like 'BK-AFTERFOLD%' and company_id = $1`, [
      companyId,
    ]);
    expect((await list('limit=1&offset=0')).pagination.total).toBe(9);
  });

  it('narrows by status, trip, date and confirmation status, total the matching bookings on every page', async () => {
    const cases: [string, Planned[]][] = [
      ['status=CANCELLED', history.filter((booking) => booking.status === 'CANCELLED')],
      [`trip_id=${laterTrip.id}`, history.filter((booking) => booking.tripId === laterTrip.id)],
      [`date=${laterDate}`, history.filter((booking) => booking.tripId === laterTrip.id)],
      ['confirmation_status=PENDING', history.filter((booking) => booking.requestStatus === 'PENDING')],
      [
        'confirmation_status=REJECTED&status=PENDING_CONFIRMATION',
        history.filter(
          (booking) => booking.requestStatus === 'REJECTED' && booking.status === 'PENDING_CONFIRMATION',
        ),
      ],
    ];
    for (const [query, matching] of cases) {
      const pages = await allPages(query, 2);
      expect(
        pages.flatMap((page) => page.data.map((booking) => booking.id)),
        query,
      ).toEqual(inListOrder(matching).map((booking) => booking.id));
      for (const page of pages) expect(page.pagination.total, query).toBe(matching.length);
      const rows = pages.flatMap((page) => page.data);
      for (const row of rows) {
        const planned = history.find((booking) => booking.id === row.id)!;
        expect(row.confirmation?.status ?? null, query).toBe(planned.requestStatus);
      }
      const pastTheEnd = await list(`${query}&limit=2&offset=40`);
      expect(pastTheEnd.data, query).toEqual([]);
      expect(pastTheEnd.pagination.total, query).toBe(matching.length);
    }
  });
});
