import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import {
  confirmJourney,
  holdJourney,
  journeyFacts,
  mobileTraveller,
  quote,
  travellers,
  tripOf,
} from '../../support/journeys.js';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { expectError, signedInAdmin, type AdminBrowser } from './helpers.js';

/**
 * A journey hold and an administrator's suspension of the hold's company take turns on the company
 * row (db/writes/journeys/hold.ts holds it FOR SHARE from its standing read on; the suspension
 * takes it FOR UPDATE): a suspension waits for a hold in flight, which is then a hold placed before
 * it (kept, not confirmable), and a hold meeting a suspension in flight waits for it and is refused
 * as any hold after it. Neither is answered as if it came first when the other did.
 */
describe('journey hold and company suspension in flight', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });
  let browser: AdminBrowser;

  beforeAll(async () => {
    ({ browser } = await signedInAdmin(app, { role: 'ADMIN' }));
  });

  it('a suspension sent while a hold is past its standing read waits for the hold, which stays as one placed before it', async () => {
    const trip = await tripOf(app.db);
    const traveller = await mobileTraveller(app);
    const quoted = await quote(app, traveller, [{ trip }]);
    // An uncommitted ACTIVE batch of the same journey: the hold reads the company's standing, then
    // waits at its own batch's insert (one ACTIVE batch per scope) until this is rolled back.
    const held = await holdLock(
      app.db,
      `insert into hold_batches (scope_kind, scope_id, expires_at)
         values ('JOURNEY', '${quoted.journey_id}', now() + interval '1 hour')`,
    );
    let answer: TestResponse;
    let suspension: Promise<TestResponse>;
    let answeredWhileHolding: number | undefined;
    try {
      const hold = holdJourney(app, traveller, quoted.journey_id, { quote_id: quoted.quote_id });
      const [holdPid] = await waitersOf(app.db, held.pid);
      suspension = browser.suspend(trip.companyId);
      void suspension.then((response) => (answeredWhileHolding = response.status));
      await answeredOrWaiting(suspension, app.db, holdPid!);
      // The hold has read ACTIVE and not committed: the suspension may not be answered before it.
      expect(answeredWhileHolding).toBeUndefined();
      await held.release();
      answer = await hold;
    } finally {
      await held.release();
    }

    expect(answer.status, answer.text).toBe(200);
    expect((await suspension).status).toBe(200);
    // As a hold placed before the suspension (test/api/admin/suspension.test.ts): kept, not confirmable.
    const confirm = await confirmJourney(app, traveller, quoted.journey_id, {
      quote_id: quoted.quote_id,
      hold_batch_id: answer.body.data.holdBatchId,
      travellers: travellers(1),
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expectError(confirm, 409, 'TRIP_NOT_BOOKABLE');
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.journey?.status).toBe('HELD');
    expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['HELD']);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });

  it('a hold reaching its standing read while a suspension holds the company waits for it and is refused as any hold after it, holding nothing', async () => {
    const trip = await tripOf(app.db);
    const traveller = await mobileTraveller(app);
    const quoted = await quote(app, traveller, [{ trip }]);
    // The trip row as another hold placing its seats holds it: the hold drafts its journey (before
    // any suspension), then waits for the trip.
    const tripHeld = await holdLock(
      app.db,
      `select 1 from trips where id = '${trip.tripId}' for no key update`,
    );
    // The suspension sets SUSPENDED under the company's update lock, then waits here (it bumps the
    // standing counter the search caches poll) until this is rolled back.
    const counterHeld = await holdLock(
      app.db,
      `select 1 from platform_state_versions where name = 'company_standing' for update`,
    );
    let answer: TestResponse;
    let suspension: Promise<TestResponse>;
    try {
      const hold = holdJourney(app, traveller, quoted.journey_id, { quote_id: quoted.quote_id });
      await waitersOf(app.db, tripHeld.pid);
      suspension = browser.suspend(trip.companyId);
      const [suspensionPid] = await waitersOf(app.db, counterHeld.pid);
      // The hold takes its trip and reads the company while the suspension has not committed.
      await tripHeld.release();
      await answeredOrWaiting(hold, app.db, suspensionPid!);
      await counterHeld.release();
      answer = await hold;
    } finally {
      await tripHeld.release();
      await counterHeld.release();
    }

    expect((await suspension).status).toBe(200);
    // The answer of a hold sent after the suspension (test/api/admin/suspension.test.ts).
    expectError(answer, 404, 'TRIP_NOT_FOUND');
    const facts = await journeyFacts(app.db, quoted.journey_id);
    expect(facts.journey?.status).not.toBe('HELD');
    expect(facts.allocations).toEqual([]);
    const batches = await app.db.query(`select 1 from hold_batches where scope_id = $1`, [quoted.journey_id]);
    expect(batches).toEqual([]);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });
});
