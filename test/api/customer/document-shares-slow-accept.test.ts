import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  acceptShare,
  grantRow,
  NO_SHARE_IP_LIMIT,
  noPendingShareStep,
  recipientSession,
  sessionRows,
  viewShareOfNewBooking,
  whileGrantRowHeld,
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
    const created = await viewShareOfNewBooking(app);
    // A busy grant row: the accept's transaction waits for it past the API's wait.
    const slow = await whileGrantRowHeld(app, created.grantId, () =>
      acceptShare(app, created.grantId, created.secret),
    );
    expect([slow.response.status, slow.response.body?.errorCode], slow.response.text).toEqual([
      503,
      'SHARE_UNAVAILABLE',
    ]);
    expect(slow.response.headers.get('retry-after')).toBeTruthy();
    expect(slow.setCookie).toBe('');

    // The abandoned accept's step gets the row now and ends: refused, nothing written.
    await noPendingShareStep(app, created.grantId);
    expect(await sessionRows(app, created.grantId)).toHaveLength(0);
    expect((await grantRow(app, created.grantId))!.status).toBe('CREATED');
    const handle = app.temporal.workflow.getHandle(`share-grant/${created.grantId}`);
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
