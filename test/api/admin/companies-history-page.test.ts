import { beforeAll, describe, expect, it } from 'vitest';
import { foldBookingStats } from '../../../db/writes/analytics-rollup.js';
import { createCorridor } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { createJourneyRows, journeyTripOf } from '../../support/journey-rows.js';
import { signedInAdmin, type AdminBrowser } from './helpers.js';

/**
 * The administration's companies (GET /companies) carry each company's all-time bookings and
 * revenue (revenue: the total price of a sold booking not refunded) and trips. The figures are the
 * company's whole history whether its booking changes were folded into the daily statistics
 * already or not: a change after the last fold (a status, a refund, a booking made on another
 * day, one deleted) shows at once. Companies of one name page in id order, every page with the
 * total.
 */
describe('GET /admin/api/companies: all-time figures and pages', () => {
  const app = useTestApp();
  let browser: AdminBrowser;
  const tag = crypto.randomUUID().slice(0, 8);
  /** Three companies of one name; the first has the bookings. */
  const companies: string[] = [];
  let bookingIds: string[];
  /** The company with the bookings. */
  let booked: string;

  interface Listed {
    id: string;
    counts: { trips: number; bookings: number; revenue: number };
  }

  const listed = async (query: string) => {
    const response = await browser.get(`/companies?search=${tag}&${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.data as { items: Listed[]; total: number; limit: number; offset: number };
  };

  /** What a recount of the company's bookings gives, as the list must show it. */
  const recounted = async (companyId: string) => {
    const rows = await app.db.query<{ status: string; payment_status: string; total_price: string }>(
      `select status, payment_status, total_price from bookings where company_id = $1`,
      [companyId],
    );
    const sold = ['CONFIRMED', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW'];
    const revenue = rows
      .filter((row) => sold.includes(row.status) && row.payment_status !== 'REFUNDED')
      .reduce((sum, row) => sum + Number(row.total_price), 0);
    return { bookings: rows.length, revenue };
  };

  const setBooking = (index: number, assignments: string, ...values: unknown[]) =>
    app.db.query(`update bookings set ${assignments} where id = $1`, [bookingIds[index], ...values]);

  beforeAll(async () => {
    const corridor = await createCorridor(app.db);
    await app.db.query('update companies set name_en = $2 where id = $1', [
      corridor.company.id,
      `Figures ${tag}`,
    ]);
    booked = corridor.company.id;
    companies.push(booked);
    for (let index = 0; index < 2; index++) {
      const [row] = await app.db.query<{ id: string }>(
        `insert into companies (name_ar, name_en, slug, status, verified, published, is_internal, is_demo)
         values ('شركة', $1, $2, 'ACTIVE', true, true, false, false) returning id`,
        [`Figures ${tag}`, `figures-${tag}-${index}`],
      );
      companies.push(row!.id);
    }
    companies.sort();
    const ownerUserId = (await app.signIn()).userId;
    const trip = journeyTripOf(corridor);
    bookingIds = [];
    for (let index = 0; index < 6; index++) {
      const rows = await createJourneyRows(app.db, { ownerUserId, trip, travellers: [`Traveller ${index}`] });
      bookingIds.push(rows.bookingId);
    }
    await setBooking(0, `status = 'CONFIRMED', payment_status = 'PAID'`);
    await setBooking(
      1,
      `status = 'COMPLETED', payment_status = 'PAID', created_at = now() - interval '40 days'`,
    );
    await setBooking(2, `status = 'CANCELLED'`);
    await setBooking(3, `status = 'CONFIRMED', payment_status = 'REFUNDED'`);
    ({ browser } = await signedInAdmin(app, { role: 'ANALYST' }));
  });

  /** The figures of the company with the bookings, as the list and its own record show them. */
  const figuresShown = async () => {
    const page = await listed('limit=20');
    const item = page.items.find((company) => company.id === booked)!;
    const one = await browser.get(`/companies/${booked}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.data.company.counts).toEqual(item.counts);
    return item.counts;
  };

  it('shows the recount of every booking, folded into the statistics or not, and changes after a fold at once', async () => {
    const expected = await recounted(booked);
    expect(expected).toEqual({ bookings: 6, revenue: 20_000 });
    expect(await figuresShown()).toEqual({ trips: 1, ...expected });

    await foldBookingStats(app.db, [booked]);
    expect(await figuresShown()).toEqual({ trips: 1, ...expected });

    // After the fold: a refund, a sale, a booking made on another day and one deleted.
    await setBooking(0, `payment_status = 'REFUNDED'`);
    await setBooking(
      4,
      `status = 'CHECKED_IN', payment_status = 'PAID', created_at = now() - interval '400 days'`,
    );
    await app.db.query('delete from bookings where id = $1', [bookingIds[5]]);
    const changed = await recounted(booked);
    expect(changed).toEqual({ bookings: 5, revenue: 20_000 });
    expect(await figuresShown()).toEqual({ trips: 1, ...changed });

    await foldBookingStats(app.db, [booked]);
    expect(await figuresShown()).toEqual({ trips: 1, ...changed });
  });

  it('pages through companies of one name in id order, with the total on every page and past the end', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 3; offset++) {
      const page = await listed(`limit=1&offset=${offset}`);
      expect(page).toMatchObject({ total: 3, limit: 1, offset });
      seen.push(...page.items.map((company) => company.id));
    }
    expect(seen).toEqual(companies);
    const others = (await listed('limit=20')).items.filter((company) => company.id !== booked);
    expect(others.map((company) => company.counts)).toEqual([
      { trips: 0, bookings: 0, revenue: 0 },
      { trips: 0, bookings: 0, revenue: 0 },
    ]);
    const pastTheEnd = await listed('limit=2&offset=5');
    expect(pastTheEnd).toMatchObject({ items: [], total: 3 });
  });
});
