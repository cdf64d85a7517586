import { describe, expect, it } from 'vitest';
import { decideBooking } from '../../drills/invariants/company-flows.js';
import { confirmJourney, quoteAndHold } from '../../drills/invariants/customer-flows.js';
import { seededDice } from '../../drills/invariants/dice.js';
import { buildWorld, travellerWrite } from '../../drills/invariants/world.js';
import { useTestApp } from '../../support/harness.js';
import { waitUntil } from '../../support/journeys.js';

/**
 * A traveller's cancel that waited for its journey's row (held by the company's approval, a trip
 * action, another writer) stamps what it ends once it holds its rows (writeTime), not at its
 * transaction's start: the record never says a journey was closed, or a booking ended, before a
 * change committed while the cancel waited (created <= confirmed <= closed).
 */
describe('a traveller cancel that waited for its journey', () => {
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });

  const lockWaiters = async () => {
    const [row] = await app.db.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and state = 'active'`,
    );
    return row!.n;
  };

  it('stamps the journey closed and the booking ended after the writer it waited for committed', async () => {
    const world = await buildWorld(app, seededDice(409));
    const caller = world.travellers[0]!;
    const held = await quoteAndHold(world, caller, [world.manual.trips[0]!], 1, ['quote', 'hold']);
    expect((await confirmJourney(world, caller, held!)).status).toBe(200);
    const [booking] = await app.db.query<{ id: string }>(`select id from bookings where journey_id = $1`, [
      held!.journeyId,
    ]);
    expect((await decideBooking(world, booking!.id, 'APPROVE')).status).toBe(200);

    // Another writer holds the journey; the cancel starts its transaction and waits for it.
    let committedAt = '';
    const baseline = await lockWaiters();
    let cancel!: ReturnType<typeof travellerWrite>;
    await app.db.transaction(async (client) => {
      await client.query(`select id from journeys where id = $1 for update`, [held!.journeyId]);
      cancel = travellerWrite(world, caller, `/api/bookings/${booking!.id}/cancel`);
      await waitUntil(lockWaiters, (n) => n > baseline, 20_000, 'the cancel to wait for the journey');
      const { rows } = await client.query<{ at: string }>(`select clock_timestamp()::text as at`);
      committedAt = rows[0]!.at;
    });
    const cancelled = await cancel;
    expect(cancelled.status, cancelled.text).toBe(200);

    const [stamps] = await app.db.query<{ closed: boolean; ended: boolean; confirmed: boolean }>(
      `select j.closed_at >= $2::timestamptz as closed, b.updated_at >= $2::timestamptz as ended,
              j.closed_at >= j.confirmed_at as confirmed
         from journeys j join bookings b on b.journey_id = j.id where j.id = $1`,
      [held!.journeyId, committedAt],
    );
    expect(stamps).toEqual({ closed: true, ended: true, confirmed: true });
  });
});
