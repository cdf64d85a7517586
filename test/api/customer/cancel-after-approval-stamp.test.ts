import { describe, expect, it } from 'vitest';
import { decideBooking } from '../../drills/invariants/company-flows.js';
import { confirmJourney, quoteAndHold } from '../../drills/invariants/customer-flows.js';
import { seededDice } from '../../drills/invariants/dice.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { buildWorld, travellerWrite } from '../../drills/invariants/world.js';
import { useTestApp } from '../../support/harness.js';

/**
 * A traveller's cancel that waited for its journey's row (held by the company's approval, a trip
 * action, another writer) stamps what it ends once it holds its rows (writeTime), not at its
 * transaction's start: the record never says a journey was closed, or a booking ended, before a
 * change committed while the cancel waited (created <= confirmed <= closed).
 */
describe('a traveller cancel that waited for its journey', () => {
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });

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
    const writer = await holdLock(
      app.db,
      `select id from journeys where id = '${held!.journeyId}' for update`,
    );
    const cancel = travellerWrite(world, caller, `/api/bookings/${booking!.id}/cancel`);
    await waitersOf(app.db, writer.pid);
    const [now] = await app.db.query<{ at: string }>(`select clock_timestamp()::text as at`);
    const committedAt = now!.at;
    await writer.release();
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
