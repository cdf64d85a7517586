import { beforeAll, describe, expect, it } from 'vitest';
import { bookableTrip, createBooking } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { mobileTraveller } from '../../support/journeys.js';
import { apiKeyOf, subscribe } from '../../support/webhooks.js';
import { everyPage } from '../../support/pages.js';

/**
 * A subscription's deliveries (GET /api/webhooks/{id}/deliveries) a page at a time: newest first,
 * deliveries made at the same instant by id, so a page ending among them neither repeats nor skips
 * one; a status narrows them, with the total of the matches on every page, a page past the end too.
 */
describe('GET /api/webhooks/{id}/deliveries: the log a page at a time', () => {
  const app = useTestApp();
  let key: string;
  let subscriptionId: string;
  /** Every delivery of the subscription: id, made at, status, attempts. */
  const deliveries: { id: string; createdAt: string; status: string; attempts: number }[] = [];

  interface Listed {
    id: string;
    status: string;
    attempts: number;
    createdAt: string;
  }

  /** The order the list promises: made latest first, then id. */
  const inListOrder = (rows: typeof deliveries) =>
    [...rows].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? 1 : -1,
    );

  const list = async (query: string) => {
    const response = await app.request(`/api/webhooks/${subscriptionId}/deliveries?${query}`, { token: key });
    expect(response.status, response.text).toBe(200);
    return response.body as { data: Listed[]; total: number; limit: number; offset: number };
  };

  /** Every page of `query` with `limit`, offset by offset until one comes back short. */
  const allPages = (query: string, limit: number) =>
    everyPage(
      (paging) => list(`${query}${paging}`),
      (page) => page.data,
      limit,
    );

  beforeAll(async () => {
    const trip = await bookableTrip(app.db);
    const booking = await createBooking(app, await mobileTraveller(app), {
      tripId: trip.tripId,
      seatNumbers: ['1'],
    });
    key = await apiKeyOf(app, trip.companyId);
    subscriptionId = await subscribe(app, key, {
      url: 'http://127.0.0.1:9/bookings',
      events: ['booking.cancelled'],
      secret: 'a-secret-of-at-least-32-characters-long',
    });
    // Seven deliveries made at three instants (3, 2, 2), already started (no relay takes them).
    const instants = [3, 2, 1].map((hours) => new Date(Date.now() - hours * 3_600_000).toISOString());
    for (let index = 0; index < 7; index++) {
      const createdAt = instants[index < 3 ? 0 : index < 5 ? 1 : 2]!;
      const status = index % 3 === 1 ? 'FAILED' : 'DELIVERED';
      const [delivery] = await app.db.query<{ id: string }>(
        `with event as (
           insert into outbox_events (company_id, event, booking_id, trip_id, data, occurred_at)
           values ($1, 'booking.cancelled', $2, $3, '{}', $4) returning id)
         insert into webhook_deliveries (subscription_id, company_id, outbox_event_id, event, booking_id, status, attempts,
                                         last_status_code, created_at, workflow_started_at, delivered_at, finished_at)
         select $5, $1, event.id, 'booking.cancelled', $2, $6, $7, $8, $4, $4,
                case when $6 = 'DELIVERED' then $4::timestamptz end, $4
           from event returning id`,
        [
          trip.companyId,
          booking.id,
          trip.tripId,
          createdAt,
          subscriptionId,
          status,
          1 + index,
          status === 'FAILED' ? 500 : 200,
        ],
      );
      deliveries.push({ id: delivery!.id, createdAt, status, attempts: 1 + index });
    }
  });

  it('pages through deliveries made together without repeating or skipping one, newest first, then id', async () => {
    const expected = inListOrder(deliveries);
    for (const limit of [3, 2, 7]) {
      const pages = await allPages('', limit);
      const shown = pages.flatMap((page) => page.data);
      expect(
        shown.map((delivery) => delivery.id),
        `limit ${limit}`,
      ).toEqual(expected.map((delivery) => delivery.id));
      expect(shown.map((delivery) => [delivery.status, delivery.attempts])).toEqual(
        expected.map((delivery) => [delivery.status, delivery.attempts]),
      );
      for (const [index, page] of pages.entries()) {
        expect(page).toMatchObject({ limit, offset: index * limit, total: 7 });
      }
    }
    const pastTheEnd = await list('limit=5&offset=10');
    expect(pastTheEnd).toMatchObject({ data: [], total: 7 });
  });

  it('narrows by status with the total of the matches on every page, a page past the end too', async () => {
    const failed = inListOrder(deliveries.filter((delivery) => delivery.status === 'FAILED'));
    const pages = await allPages('status=FAILED&', 1);
    expect(pages.flatMap((page) => page.data.map((delivery) => delivery.id))).toEqual(
      failed.map((delivery) => delivery.id),
    );
    for (const page of pages) expect(page.total).toBe(2);
    expect(await list('status=FAILED&limit=2&offset=4')).toMatchObject({ data: [], total: 2 });
  });
});
