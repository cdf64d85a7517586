import { afterEach, describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { waitUntil } from '../../support/journeys.js';
import {
  acceptShare,
  createShare,
  grantRow,
  NO_SHARE_IP_LIMIT,
  sessionRows,
  shareableBooking,
  shareFixture,
} from '../../support/document-shares.js';
import { skewClock } from '../../support/clock-skew.js';

/**
 * README (document shares): "An accept carries the API's deadline (`acceptBy`, 20 s): one that would
 * commit after the request stopped waiting (25 s) writes nothing, so the 503 `SHARE_UNAVAILABLE` that
 * ends a slow accept leaves the link unused and its retry with the same secret is free."
 * The same slow accept as test/api/customer/document-shares-slow-accept.test.ts, with the API host's
 * clock 60 s ahead of PostgreSQL's: acceptBy lands 80 s after the database's now, so the step the
 * request gave up on commits after its 503, and the link is used by a session nobody holds.
 */
describe('clock skew: slow share accept with the API clock 60 s ahead of the database', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);
  afterEach(() => skewClock(0));

  it('the 503 of a slow accept leaves the link unused (no session, grant CREATED)', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const created = await createShare(
      app,
      { Authorization: `Bearer ${fixture.owner.token}` },
      { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
    );
    expect(created.response.status, created.response.text).toBe(201);

    const lock = await holdLock(
      app.db,
      `select 1 from document_share_grants where id = '${created.grantId}' for update`,
    );
    let slow: Awaited<ReturnType<typeof acceptShare>>;
    skewClock(60_000); // the API host's clock runs 60 s ahead of PostgreSQL's
    try {
      const pending = acceptShare(app, created.grantId, created.secret);
      await waitersOf(app.db, lock.pid, 1, 20_000);
      slow = await pending;
    } finally {
      skewClock(0);
      await lock.release();
    }
    expect([slow.response.status, slow.response.body?.errorCode], slow.response.text).toEqual([
      503,
      'SHARE_UNAVAILABLE',
    ]);

    const handle = app.temporal.workflow.getHandle(`share-grant/${created.grantId}`);
    await waitUntil(
      () => handle.describe(),
      (description) => (description.raw.pendingActivities ?? []).length === 0,
      10_000,
      "the abandoned accept's activity to end (no pending activity)",
    );
    const grant = (await grantRow(app, created.grantId))!;
    const sessions = await sessionRows(app, created.grantId);
    const retry = await acceptShare(app, created.grantId, created.secret);
    expect(
      { grant: grant.status, sessions: sessions.length, retry: retry.response.status },
      retry.response.text,
    ).toEqual({ grant: 'CREATED', sessions: 0, retry: 200 });
  }, 120_000);
});
