import { afterEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  acceptShare,
  grantRow,
  NO_SHARE_IP_LIMIT,
  noPendingShareStep,
  sessionRows,
  viewShareOfNewBooking,
  whileGrantRowHeld,
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
    const created = await viewShareOfNewBooking(app);
    const slow = await whileGrantRowHeld(app, created.grantId, () => {
      skewClock(60_000); // the API host's clock runs 60 s ahead of PostgreSQL's while it answers
      return acceptShare(app, created.grantId, created.secret).finally(() => skewClock(0));
    });
    expect([slow.response.status, slow.response.body?.errorCode], slow.response.text).toEqual([
      503,
      'SHARE_UNAVAILABLE',
    ]);

    await noPendingShareStep(app, created.grantId);
    const grant = (await grantRow(app, created.grantId))!;
    const sessions = await sessionRows(app, created.grantId);
    const retry = await acceptShare(app, created.grantId, created.secret);
    expect(
      { grant: grant.status, sessions: sessions.length, retry: retry.response.status },
      retry.response.text,
    ).toEqual({ grant: 'CREATED', sessions: 0, retry: 200 });
  }, 120_000);
});
