import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { waitUntil } from '../../support/journeys.js';
import {
  acceptShare,
  createShare,
  grantRow,
  NO_SHARE_IP_LIMIT,
  recipientSession,
  sessionRows,
  shareableBooking,
  shareFixture,
} from '../../support/document-shares.js';

/**
 * An accept the API stops waiting for (UPDATE_DEADLINE_MS, 25 s) is answered 503 SHARE_UNAVAILABLE;
 * its share-grant step carries the API's deadline (`acceptBy`) and, held up past it (here by a lock on
 * the grant's row), writes nothing when it gets through: no recipient session whose token only the
 * abandoned request knew, the link unused, so the retry the 503 asks for accepts it.
 */
describe('document shares: an accept the request stopped waiting for', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);

  it('a slow accept is 503 SHARE_UNAVAILABLE and writes nothing when it gets through; the retry with the same secret accepts the link', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const created = await createShare(
      app,
      { Authorization: `Bearer ${fixture.owner.token}` },
      { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
    );
    expect(created.response.status, created.response.text).toBe(201);

    // A busy grant row: the accept's transaction waits for it past the API's wait.
    const lock = await holdLock(
      app.db,
      `select 1 from document_share_grants where id = '${created.grantId}' for update`,
    );
    let slow: Awaited<ReturnType<typeof acceptShare>>;
    try {
      const pending = acceptShare(app, created.grantId, created.secret);
      await waitersOf(app.db, lock.pid, 1, 20_000);
      slow = await pending;
    } finally {
      await lock.release();
    }
    expect([slow.response.status, slow.response.body?.errorCode], slow.response.text).toEqual([
      503,
      'SHARE_UNAVAILABLE',
    ]);
    expect(slow.response.headers.get('retry-after')).toBeTruthy();
    expect(slow.setCookie).toBe('');

    // The abandoned accept's step gets the row now and ends: refused, nothing written.
    const handle = app.temporal.workflow.getHandle(`share-grant/${created.grantId}`);
    await waitUntil(
      () => handle.describe(),
      (description) => (description.raw.pendingActivities ?? []).length === 0,
      10_000,
      "the abandoned accept's activity to end (no pending activity)",
    );
    expect(await sessionRows(app, created.grantId)).toHaveLength(0);
    expect((await grantRow(app, created.grantId))!.status).toBe('CREATED');
    expect((await handle.describe()).searchAttributes.ProcessStatus).toEqual(['CREATED']);

    // The recipient retries, as the 503 asked: the link is still theirs.
    const retry = await acceptShare(app, created.grantId, created.secret);
    expect(retry.response.status, retry.response.text).toBe(200);
    expect(retry.setCookie).not.toBe('');
    const session = await recipientSession(app, created.grantId, retry.cookie);
    expect(session.status, session.text).toBe(200);
    expect(await sessionRows(app, created.grantId)).toHaveLength(1);
    expect((await grantRow(app, created.grantId))!.status).toBe('ACCEPTED');
  }, 120_000);
});
