import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { accountCaps } from '../../../api/http/abuse-limits.js';
import { journeyConfirmationClient } from '../../../api/temporal/journey-confirmation-client.js';
import { confirmOnce } from '../../../api/use-cases/journey-confirmation.js';
import { transferSettings } from '../../../domain/journey-search.js';
import { holdLock, lockWaiters, waitersOf } from '../../drills/support/blocking.js';
import { lockSeats } from '../../support/bookings.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  confirmJourney,
  holdJourney,
  journeyFacts,
  mobileTraveller,
  quote,
  setConfirmation,
  travellers,
  tripOf,
  workflowExists,
  type Caller,
} from '../../support/journeys.js';

/**
 * AUTO journeys without Temporal in the path (issue 18): this app's task queue has no worker, so
 * any Update would never be answered. Hold and an automatic confirm are transactions; only a
 * company decision starts the journey-confirmation workflow.
 */

async function held(app: TestApp, caller: Caller, assignments?: string[]) {
  const trip = await tripOf(app.db);
  const quoted = await quote(app, caller, [{ trip, ...(assignments ? { assignments } : {}) }]);
  const hold = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
  expect(hold.status, hold.text).toBe(200);
  return { trip, quoted, holdBatchId: hold.body.data.holdBatchId as string };
}

const confirmBody = (quoteId: string, holdBatchId: string, key = `confirm-${randomUUID()}`) => ({
  quote_id: quoteId,
  hold_batch_id: holdBatchId,
  travellers: travellers(1),
  idempotency_key: key,
});

/** The held journey's confirm with a fresh key, as its owner sends it. */
const confirmHeld = (app: TestApp, caller: Caller, hold: Awaited<ReturnType<typeof held>>) =>
  confirmJourney(app, caller, hold.quoted.journey_id, confirmBody(hold.quoted.quote_id, hold.holdBatchId));

/** One booking row's webhook events, written once each by the confirm's transaction. */
async function expectOneOfEachEvent(app: TestApp, journeyId: string) {
  const events = await app.db.query<{ event: string; count: number }>(
    `select o.event, count(*)::int as count from outbox_events o join bookings b on b.id = o.booking_id
     where b.journey_id = $1 group by o.event order by o.event`,
    [journeyId],
  );
  expect(events).toEqual([
    { event: 'booking.confirmed', count: 1 },
    { event: 'booking.created', count: 1 },
  ]);
}

describe('AUTO journeys: hold and confirm are transactions, no workflow', () => {
  const app = useTestApp({ TEMPORAL_TASK_QUEUE: `nobody-polls-${randomUUID()}` });

  it('holds and confirms with no worker on the task queue, and starts no process', async () => {
    const caller = await mobileTraveller(app);
    const hold = await held(app, caller);
    const { quoted } = hold;
    const started = Date.now();
    const confirmed = await confirmHeld(app, caller, hold);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    expect(confirmed.body.data.tickets[0]).toMatchObject({ boarding_authorized: true, status: 'VALID' });
    expect(await workflowExists(app, quoted.journey_id)).toBe(false);
    await expectOneOfEachEvent(app, quoted.journey_id);
  });

  it('a company decision still starts the workflow, with the confirm', async () => {
    const caller = await mobileTraveller(app);
    const hold = await held(app, caller);
    const { quoted, trip } = hold;
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const confirmed = await confirmHeld(app, caller, hold);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    expect(await workflowExists(app, quoted.journey_id)).toBe(true);
    await setConfirmation(app.db, trip.companyId, { mode: 'AUTO_CONFIRM' });
  });

  it('many confirms of one hold at once: with different keys exactly one acts, with one key all answer alike', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId } = await held(app, caller);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        confirmJourney(app, caller, quoted.journey_id, confirmBody(quoted.quote_id, holdBatchId)),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({
        status: 409,
        errorCode: 'ALREADY_CONFIRMED',
      });
    }
    expect((await journeyFacts(app.db, quoted.journey_id)).tickets).toHaveLength(1);
    await expectOneOfEachEvent(app, quoted.journey_id);

    const owner = await mobileTraveller(app);
    const other = await held(app, owner);
    const body = confirmBody(other.quoted.quote_id, other.holdBatchId);
    const same = await Promise.all(
      Array.from({ length: 12 }, () => confirmJourney(app, owner, other.quoted.journey_id, body)),
    );
    expect(same.map((answer) => answer.status)).toEqual(Array(12).fill(200));
    for (const answer of same) expect(answer.body).toEqual(same[0]!.body);
    expect((await journeyFacts(app.db, other.quoted.journey_id)).tickets).toHaveLength(1);
  });
});

describe('a duplicate confirm sent while the first one is inside its transaction', () => {
  const app = useTestApp({ TEMPORAL_TASK_QUEUE: `nobody-polls-${randomUUID()}` });

  it('waits for it and answers what it answered, not 409 ALREADY_CONFIRMED', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId } = await held(app, caller);
    const body = confirmBody(quoted.quote_id, holdBatchId);
    const call = {
      userId: caller.userId,
      scope: { kind: 'JOURNEY' as const, id: quoted.journey_id },
      body: { hold_batch_id: holdBatchId, idempotency_key: body.idempotency_key },
      travellersOf: () => [{ journeyId: quoted.journey_id, travellers: body.travellers }],
      channel: 'CUSTOMER_MOBILE' as const,
    };
    const deps = {
      db: app.db,
      workflow: journeyConfirmationClient(app.temporal, app.config),
      settings: {
        holdMinutes: app.config.HOLD_MINUTES,
        timeScale: app.config.TIME_SCALE,
        caps: accountCaps(app.config),
        transfer: transferSettings(app.config),
        signing: { privateKeyPem: app.config.SIGNING_PRIVATE_KEY_PEM },
      },
    };
    // The first call is held at its lock of the journey, its key already claimed; the duplicate
    // is sent then, and released only once it waits on that key.
    const journeyLock = await holdLock(
      app.db,
      `select 1 from journeys where id = '${quoted.journey_id}' for update`,
    );
    const first = confirmOnce(deps, call);
    await lockWaiters(app.db, '%from journeys%for update%');
    const duplicate = confirmOnce(deps, call);
    await lockWaiters(app.db, '%idempotency_records%');
    await journeyLock.release();
    const [answer, again] = await Promise.all([first, duplicate]);
    expect(answer.status).toBe(200);
    expect(again).toEqual(answer);
    expect((await journeyFacts(app.db, quoted.journey_id)).tickets).toHaveLength(1);
  });
});

describe('an expired hold with no sweep yet: the next reader and writer enforce it', () => {
  // A worker polls this app's queue: on main its hold's process would expire the hold only at 10 minutes.
  const app = useTestApp();

  it('reads EXPIRED, cannot be confirmed, frees its seats for another traveller and may be held again', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId, trip } = await held(app, caller, ['9']);
    await app.db.query(`update hold_batches set expires_at = now() - interval '1 second' where id = $1`, [
      holdBatchId,
    ]);
    await app.db.query(
      `update seat_allocations set expires_at = now() - interval '1 second' where hold_batch_id = $1`,
      [holdBatchId],
    );
    const refused = await confirmJourney(
      app,
      caller,
      quoted.journey_id,
      confirmBody(quoted.quote_id, holdBatchId),
    );
    expect(refused.status).toBe(409);
    expect(['HOLD_EXPIRED', 'HOLD_CLOSED']).toContain(refused.body.errorCode);

    const read = await app.request(`/api/journeys/${quoted.journey_id}`, { headers: caller.headers });
    expect(read.body.data).toMatchObject({
      confirmation: { status: 'EXPIRED', deadline: null },
      booking: { status: 'EXPIRED' },
      hold: { holdBatchId, status: 'EXPIRED' },
      journeys: [{ status: 'EXPIRED' }],
    });
    expect(read.body.data.legs[0].seat_numbers).toEqual([]);
    expect((await journeyFacts(app.db, quoted.journey_id)).allocations.map((a) => a.status)).toEqual([
      'EXPIRED',
    ]);

    const rival = await mobileTraveller(app);
    const rivalQuote = await quote(app, rival, [{ trip, assignments: ['9'] }]);
    const taken = await holdJourney(app, rival, rivalQuote.journey_id, { quote_id: rivalQuote.quote_id });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.data.legs[0].seat_numbers).toEqual(['9']);
  });

  it('the journey itself may be held again by its next hold, with no read in between', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId } = await held(app, caller);
    await app.db.query(`update hold_batches set expires_at = now() - interval '1 second' where id = $1`, [
      holdBatchId,
    ]);
    const again = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.holdBatchId).not.toBe(holdBatchId);
    const [old] = await app.db.query<{ status: string }>(`select status from hold_batches where id = $1`, [
      holdBatchId,
    ]);
    expect(old!.status).toBe('EXPIRED');
  });

  it('a confirm begun while the hold was live, reaching its seats after another hold took them, is 409: never CONFIRMED without tickets', async () => {
    const caller = await mobileTraveller(app);
    const rival = await mobileTraveller(app);
    const hold = await held(app, caller, ['1']);
    // The hold ends in 3 seconds (as if it had been placed HOLD_MINUTES ago).
    const [batch] = await app.db.query<{ ends: Date }>(
      `update hold_batches set expires_at = now() + interval '3 seconds' where id = $1 returning expires_at as ends`,
      [hold.holdBatchId],
    );
    const ends = new Date(batch!.ends);
    await app.db.query(`update seat_allocations set expires_at = $2 where hold_batch_id = $1`, [
      hold.holdBatchId,
      ends,
    ]);

    // The traveller's account row is busy (another inventory write of the same account in flight):
    // the confirm's transaction starts now, while the hold is live, and waits in requireConfirmWithinCap.
    const accountLock = await holdLock(
      app.db,
      `select id from users where id = '${caller.userId}' for no key update`,
    );
    try {
      const confirming = confirmHeld(app, caller, hold);
      const waiters = await waitersOf(app.db, accountLock.pid);
      const waiting = await app.db.query<{ xact_start: Date }>(
        `select xact_start from pg_stat_activity where pid = any($1::int[]) and query like '%from users where id%'`,
        [waiters],
      );
      expect(waiting.length, 'the confirm waits on the account lock').toBe(1);
      expect(new Date(waiting[0]!.xact_start).getTime()).toBeLessThan(ends.getTime());

      // The hold's end passes; another traveller locks the same seat (a seat lock shares the trip with
      // the confirm, and marks the lapsed allocation EXPIRED as it takes the seat).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, ends.getTime() - Date.now()) + 1_000));
      await lockSeats(app, rival, hold.trip.tripId, ['1']);

      await accountLock.release();
      const confirmed = await confirming;
      const facts = await journeyFacts(app.db, hold.quoted.journey_id);
      expect(
        facts.journey!.status === 'CONFIRMED' && facts.tickets.length === 0,
        'CONFIRMED with no ticket',
      ).toBe(false);
      expect(confirmed.status, confirmed.text).toBe(409);
    } finally {
      await accountLock.release();
    }
  }, 60_000);
});

describe('a confirm that needs a company decision while Temporal cannot be reached', () => {
  const app = useTestApp({ TEMPORAL_TASK_QUEUE: `nobody-polls-${randomUUID()}` });

  it('answers 503 CONFIRMATION_UNAVAILABLE and writes nothing: the hold stays, the same key may be retried', async () => {
    const caller = await mobileTraveller(app);
    const hold = await held(app, caller);
    await setConfirmation(app.db, hold.trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const body = confirmBody(hold.quoted.quote_id, hold.holdBatchId);
    // A real Temporal client whose server is gone (nothing listens on that port).
    const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
    const deps = {
      db: app.db,
      workflow: journeyConfirmationClient(unreachable, app.config),
      settings: {
        holdMinutes: app.config.HOLD_MINUTES,
        timeScale: app.config.TIME_SCALE,
        caps: accountCaps(app.config),
        transfer: transferSettings(app.config),
        signing: { privateKeyPem: app.config.SIGNING_PRIVATE_KEY_PEM },
      },
    };
    const before = await journeyFacts(app.db, hold.quoted.journey_id);
    const refused = await confirmOnce(deps, {
      userId: caller.userId,
      scope: { kind: 'JOURNEY', id: hold.quoted.journey_id },
      body: { hold_batch_id: hold.holdBatchId, idempotency_key: body.idempotency_key },
      travellersOf: () => [{ journeyId: hold.quoted.journey_id, travellers: body.travellers }],
      channel: 'CUSTOMER_MOBILE',
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 503, code: 'CONFIRMATION_UNAVAILABLE' });
    expect(await journeyFacts(app.db, hold.quoted.journey_id)).toEqual(before);
    const requests = await app.db.query(`select id from confirmation_requests where scope_id = $1`, [
      hold.quoted.journey_id,
    ]);
    expect(requests).toEqual([]);
    const records = await app.db.query(`select key from idempotency_records where key = $1`, [
      body.idempotency_key,
    ]);
    expect(records).toEqual([]);

    // The same key again, with Temporal reachable: REQUESTED, and the decision process exists.
    const retried = await confirmJourney(app, caller, hold.quoted.journey_id, body);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.data.confirmation.status).toBe('REQUESTED');
    expect(await workflowExists(app, hold.quoted.journey_id)).toBe(true);
  }, 60_000);
});
