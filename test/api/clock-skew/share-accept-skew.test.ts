import { afterEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  acceptShare,
  grantRow,
  NO_SHARE_IP_LIMIT,
  sessionRows,
  viewShareOfNewBooking,
} from '../../support/document-shares.js';
import { skewClock } from '../../support/clock-skew.js';

/**
 * README (document shares): "An accept carries the API's deadline (`acceptBy`, 20 s): one that would
 * commit after the request stopped waiting (25 s) writes nothing". acceptBy is read on the API's clock
 * (Date.now()) and judged on the database's (clock_timestamp(), db/writes/deadline.ts). An API host
 * whose clock is 30 s behind the database's sends a deadline already past: every accept is refused.
 */
describe('clock skew: share accept with the API clock 30 s behind the database', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);
  afterEach(() => skewClock(0));

  it('control: with the clocks in step the same accept is 200', async () => {
    const created = await viewShareOfNewBooking(app);
    const accepted = await acceptShare(app, created.grantId, created.secret);
    expect(accepted.response.status, accepted.response.text).toBe(200);
  }, 60_000);

  it('an accept on an idle link is accepted (200) whatever the API host clock', async () => {
    const created = await viewShareOfNewBooking(app);

    skewClock(-30_000); // the API host's clock runs 30 s behind PostgreSQL's
    const accepted = await acceptShare(app, created.grantId, created.secret);
    skewClock(0);
    expect(await sessionRows(app, created.grantId)).toHaveLength(accepted.response.status === 200 ? 1 : 0);
    expect([accepted.response.status, accepted.response.body?.errorCode], accepted.response.text).toEqual([
      200,
      undefined,
    ]);
    expect((await grantRow(app, created.grantId))!.status).toBe('ACCEPTED');
  }, 60_000);
});
