import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { holdJourney, mobileTraveller, quote, tripOf, type Caller } from '../../support/journeys.js';

/** Runs `work` over `items` with at most `limit` at a time (test set-up, not the contest itself). */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += limit) {
    results.push(...(await Promise.all(items.slice(start, start + limit).map(work))));
  }
  return results;
}

describe('concurrent holds for the last seats of a trip', () => {
  const app = useTestApp();

  it(
    '100 travellers race for the last 10 seats: exactly 10 win, 90 get 409, no seat is allocated twice',
    { timeout: 180_000 },
    async () => {
      // 5 rows of four: 20 seats, of which a party of 10 already holds half.
      const trip = await tripOf(app.db, { rows: 5 });
      const early = await mobileTraveller(app);
      const party = await quote(app, early, [{ trip }], 10);
      expect((await holdJourney(app, early, party.journey_id, { quote_id: party.quote_id })).status).toBe(
        200,
      );

      const contenders = await inBatches(
        Array.from({ length: 100 }, (_, index) => index),
        10,
        async () => {
          const caller: Caller = await mobileTraveller(app);
          return { caller, quoted: await quote(app, caller, [{ trip }], 1) };
        },
      );

      const answers = await Promise.all(
        contenders.map(({ caller, quoted }) =>
          holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      const refused = answers.filter((answer) => answer.status !== 200);
      expect(refused).toHaveLength(90);
      for (const answer of refused) {
        expect(answer.status).toBe(409);
        expect(answer.body.errorCode).toBe('SEATS_UNAVAILABLE');
        expect(answer.body.message).toMatch(/seats/i);
      }

      const [live] = await app.db.query<{ allocations: number; seats: number }>(
        `select count(*)::int as allocations, count(distinct seat_id)::int as seats
       from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
        [trip.tripId],
      );
      expect(live).toEqual({ allocations: 20, seats: 20 });
      const overlapping = await app.db.query(
        `select a.seat_id from seat_allocations a join seat_allocations b
         on a.trip_id = b.trip_id and a.seat_id = b.seat_id and a.id < b.id
        and int4range(a.board_sequence, a.alight_sequence) && int4range(b.board_sequence, b.alight_sequence)
       where a.trip_id = $1 and a.status in ('HELD', 'CONFIRMED') and b.status in ('HELD', 'CONFIRMED')`,
        [trip.tripId],
      );
      expect(overlapping).toEqual([]);

      const losers = contenders
        .filter((_, index) => answers[index]!.status !== 200)
        .map(({ quoted }) => quoted.journey_id);
      const [leftovers] = await app.db.query<{ allocations: number; batches: number }>(
        `select (select count(*)::int from seat_allocations where owner_id = any($1::uuid[])) as allocations,
              (select count(*)::int from hold_batches where scope_id = any($1::uuid[])) as batches`,
        [losers],
      );
      expect(leftovers).toEqual({ allocations: 0, batches: 0 });
    },
  );
});
