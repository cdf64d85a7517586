import { beforeAll, describe, expect, it } from 'vitest';
import { acceptGrant } from '../../../db/writes/document-shares.js';
import type { TestApp } from '../../support/harness.js';
import { useTestApp } from '../../support/harness.js';
import {
  acceptShare,
  accessRows,
  createShare,
  grantRow,
  NO_SHARE_IP_LIMIT,
  previewShare,
  recipientSession,
  revokeShare,
  sessionRows,
  shareableBooking,
  shareFixture,
  sharedDocument,
  type ShareFixture,
} from '../../support/document-shares.js';

/**
 * A share whose share-grant workflow an operator terminated or cancelled in the Temporal UI while
 * its grant was still CREATED or ACCEPTED: the grant's row and the database's clock decide what
 * accept and revoke do (api/use-cases/document-sharing.ts `orFromRow`), as they already decide
 * preview and the recipient's session.
 */

type OperatorAction = 'terminate' | 'cancel';

/** Ends the grant's workflow as an operator would, and waits until Temporal shows it closed. */
async function endProcess(app: TestApp, grantId: string, action: OperatorAction): Promise<void> {
  const handle = app.temporal.workflow.getHandle(`share-grant/${grantId}`);
  if (action === 'terminate') await handle.terminate('operator');
  else await handle.cancel();
  await handle.result().catch(() => undefined);
  expect((await handle.describe()).status.name).toBe(action === 'terminate' ? 'TERMINATED' : 'CANCELLED');
}

describe('document shares whose workflow an operator ended', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);
  let fixture: ShareFixture;
  let bookingId: string;
  const ownerHeaders = () => ({ Authorization: `Bearer ${fixture.owner.token}` });
  const share = (booking = bookingId, presentation: 'VIEW' | 'DOWNLOAD' = 'DOWNLOAD') =>
    createShare(app, ownerHeaders(), {
      bookingId: booking,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation,
    });

  beforeAll(async () => {
    fixture = await shareFixture(app);
    bookingId = await shareableBooking(app, fixture);
  });

  for (const action of ['terminate', 'cancel'] as const) {
    it(`after a ${action}, the issuer still revokes an accepted share: 200 REVOKED, the recipient cut off, a repeat the same`, async () => {
      const created = await share();
      const { cookie, response } = await acceptShare(app, created.grantId, created.secret);
      expect(response.status, response.text).toBe(200);
      expect((await sharedDocument(app, created.grantId, cookie)).status).toBe(200);
      await endProcess(app, created.grantId, action);

      const revoked = await revokeShare(app, created.grantId, ownerHeaders());
      expect(revoked.status, revoked.text).toBe(200);
      expect(revoked.body.data).toMatchObject({ grantId: created.grantId, status: 'REVOKED' });
      const session = await recipientSession(app, created.grantId, cookie);
      const document = await sharedDocument(app, created.grantId, cookie);
      expect({
        grant: (await grantRow(app, created.grantId))!.status,
        session: [session.status, session.body?.errorCode],
        document: [document.status, document.body?.errorCode],
        endedReasons: (await sessionRows(app, created.grantId)).map((row) => row.ended_reason),
      }).toEqual({
        grant: 'REVOKED',
        session: [410, 'SHARE_REVOKED'],
        document: [410, 'SHARE_REVOKED'],
        endedReasons: ['REVOKED'],
      });
      expect(await accessRows(app, created.grantId)).toHaveLength(1);
      const again = await revokeShare(app, created.grantId, ownerHeaders());
      expect([again.status, again.body.data?.revokedAt]).toEqual([200, revoked.body.data.revokedAt]);
    });
  }

  it('preview and accept agree on a link still open: the recipient accepts it, and the issuer can revoke it', async () => {
    const created = await share();
    await endProcess(app, created.grantId, 'terminate');

    const preview = await previewShare(app, created.grantId, created.secret);
    expect(preview.status, preview.text).toBe(200);
    const accepted = await acceptShare(app, created.grantId, created.secret);
    expect(accepted.response.status, accepted.response.text).toBe(200);
    expect((await grantRow(app, created.grantId))!.status).toBe('ACCEPTED');
    expect((await sharedDocument(app, created.grantId, accepted.cookie)).status).toBe(200);
    // A second accept is refused as ever, and makes no second session.
    const second = await acceptShare(app, created.grantId, created.secret);
    expect([second.response.status, second.response.body.errorCode]).toEqual([409, 'SHARE_ALREADY_ACCEPTED']);
    expect(await sessionRows(app, created.grantId)).toHaveLength(1);

    expect((await revokeShare(app, created.grantId, ownerHeaders())).status).toBe(200);
    expect((await recipientSession(app, created.grantId, accepted.cookie)).status).toBe(410);
  });

  it('an accept and a revoke racing in the database leave one consistent outcome: revoked, any session ended', async () => {
    for (let round = 0; round < 4; round++) {
      const created = await share();
      await endProcess(app, created.grantId, 'terminate');
      const [accepted, revoked] = await Promise.all([
        acceptShare(app, created.grantId, created.secret),
        revokeShare(app, created.grantId, ownerHeaders()),
      ]);
      expect(revoked.status, revoked.text).toBe(200);
      expect((await grantRow(app, created.grantId))!.status).toBe('REVOKED');
      const sessions = await sessionRows(app, created.grantId);
      if (accepted.response.status === 200) {
        expect(sessions.map((row) => row.ended_reason)).toEqual(['REVOKED']);
        expect((await recipientSession(app, created.grantId, accepted.cookie)).status).toBe(410);
      } else {
        expect(accepted.response.body.errorCode).toBe('SHARE_REVOKED');
        expect(sessions).toHaveLength(0);
      }
    }
  });

  it('someone who may not revoke is still refused 404, and the share stays as it was', async () => {
    const created = await share();
    const { cookie } = await acceptShare(app, created.grantId, created.secret);
    await endProcess(app, created.grantId, 'terminate');
    const stranger = await app.signIn();
    const refused = await revokeShare(app, created.grantId, { Authorization: `Bearer ${stranger.token}` });
    expect([refused.status, refused.body.errorCode]).toEqual([404, 'SHARE_NOT_FOUND']);
    expect((await grantRow(app, created.grantId))!.status).toBe('ACCEPTED');
    expect((await recipientSession(app, created.grantId, cookie)).status).toBe(200);
  });

  it('a CREDENTIAL_LEAKED re-issue ends such shares, accepted or not: the recipient no longer sees the new credential', async () => {
    const booking = await shareableBooking(app, fixture);
    const accepted = await share(booking, 'VIEW');
    const { cookie } = await acceptShare(app, accepted.grantId, accepted.secret);
    const unaccepted = await share(booking, 'VIEW');
    await endProcess(app, accepted.grantId, 'terminate');
    await endProcess(app, unaccepted.grantId, 'terminate');
    const [ticket] = await app.db.query<{ id: string }>(
      `select t.id from journey_tickets t join bookings b on b.journey_id = t.journey_id and b.trip_id = t.trip_id
        where b.id = $1 and t.status = 'VALID'`,
      [booking],
    );

    const leaked = await app.request('/api/tickets', {
      method: 'POST',
      headers: ownerHeaders(),
      json: { ticket_id: ticket!.id, reason: 'CREDENTIAL_LEAKED' },
    });
    expect(leaked.status, leaked.text).toBe(201);
    const session = await recipientSession(app, accepted.grantId, cookie);
    const document = await sharedDocument(app, accepted.grantId, cookie);
    expect({
      grants: [
        (await grantRow(app, accepted.grantId))!.status,
        (await grantRow(app, unaccepted.grantId))!.status,
      ],
      session: [session.status, session.body?.errorCode],
      document: document.status,
      unacceptedLink: (await acceptShare(app, unaccepted.grantId, unaccepted.secret)).response.status,
    }).toEqual({
      grants: ['REVOKED', 'REVOKED'],
      session: [410, 'SHARE_REVOKED'],
      document: 410,
      unacceptedLink: 410,
    });
  });
});

describe('document shares whose workflow an operator ended, past their clocks', () => {
  /**
   * At 0.02 the 5-minute link lasts 6 s, several times what sharing and accepting take on a loaded
   * machine; the session's hard end is set to 6 minutes (7.2 s), before its idle end (18 s).
   */
  const TIME_SCALE = 0.02;
  const LINK_MS = 5 * 60_000 * TIME_SCALE;
  const SESSION_MS = 6 * 60_000 * TIME_SCALE;
  const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
  const app = useTestApp({ ...NO_SHARE_IP_LIMIT, TIME_SCALE, SHARE_SESSION_MAX_MINUTES: 6 });
  let fixture: ShareFixture;
  let bookingId: string;
  const ownerHeaders = () => ({ Authorization: `Bearer ${fixture.owner.token}` });
  const share = () =>
    createShare(app, ownerHeaders(), {
      bookingId,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });

  beforeAll(async () => {
    fixture = await shareFixture(app);
    bookingId = await shareableBooking(app, fixture);
  });

  it('a link that ran out is expired by the database: preview, accept and revoke all say 410 SHARE_EXPIRED', async () => {
    const created = await share();
    await endProcess(app, created.grantId, 'terminate');
    await sleep(LINK_MS + 300);

    const preview = await previewShare(app, created.grantId, created.secret);
    const accept = await acceptShare(app, created.grantId, created.secret);
    const revoke = await revokeShare(app, created.grantId, ownerHeaders());
    expect({
      preview: [preview.status, preview.body.errorCode],
      accept: [accept.response.status, accept.response.body.errorCode],
      revoke: [revoke.status, revoke.body.errorCode],
      grant: (await grantRow(app, created.grantId))!.status,
      sessions: (await sessionRows(app, created.grantId)).length,
    }).toEqual({
      preview: [410, 'SHARE_EXPIRED'],
      accept: [410, 'SHARE_EXPIRED'],
      revoke: [410, 'SHARE_EXPIRED'],
      grant: 'EXPIRED',
      sessions: 0,
    });
  });

  it('a recipient session past its hard end: revoke says 410 SHARE_EXPIRED and the grant is EXPIRED, as its workflow would have left it', async () => {
    const created = await share();
    const { cookie, response } = await acceptShare(app, created.grantId, created.secret);
    expect(response.status, response.text).toBe(200);
    await endProcess(app, created.grantId, 'terminate');
    await sleep(SESSION_MS + 300);

    const revoke = await revokeShare(app, created.grantId, ownerHeaders());
    const session = await recipientSession(app, created.grantId, cookie);
    expect({
      revoke: [revoke.status, revoke.body.errorCode],
      grant: (await grantRow(app, created.grantId))!.status,
      endedReasons: (await sessionRows(app, created.grantId)).map((row) => row.ended_reason),
      session: [session.status, session.body.errorCode],
    }).toEqual({
      revoke: [410, 'SHARE_EXPIRED'],
      grant: 'EXPIRED',
      endedReasons: ['EXPIRED'],
      session: [410, 'SHARE_SESSION_EXPIRED'],
    });
  });

  it('a recipient who keeps using the share (never idle) loses it at the hard end: 410 SHARE_SESSION_EXPIRED, the document refused', async () => {
    const created = await share();
    const acceptedAt = Date.now();
    const { cookie, response } = await acceptShare(app, created.grantId, created.secret);
    const answeredAt = Date.now();
    expect(response.status, response.text).toBe(200);
    await endProcess(app, created.grantId, 'terminate');
    // Used every 2 s while at least a second is left before the hard end: the session is never idle.
    while (acceptedAt + SESSION_MS - Date.now() > 3000) {
      await sleep(2000);
      expect((await recipientSession(app, created.grantId, cookie)).status).toBe(200);
    }
    await sleep(Math.max(0, answeredAt + SESSION_MS + 300 - Date.now()));

    const session = await recipientSession(app, created.grantId, cookie);
    const document = await sharedDocument(app, created.grantId, cookie);
    expect({
      session: [session.status, session.body?.errorCode],
      document: document.status,
      endedReasons: (await sessionRows(app, created.grantId)).map((row) => row.ended_reason),
    }).toEqual({
      session: [410, 'SHARE_SESSION_EXPIRED'],
      document: 410,
      endedReasons: ['EXPIRED'],
    });
  });

  it('an accept that reaches the database after the link ran out opens no session: SHARE_EXPIRED', async () => {
    const created = await share();
    // No workflow marks the grant EXPIRED: only the clock says the link ran out, after the API's
    // own check let the accept through (or the workflow's accept arrived late).
    await endProcess(app, created.grantId, 'terminate');
    await sleep(LINK_MS + 300);

    const outcome = await acceptGrant(app.db, {
      grantId: created.grantId,
      sessionTokenHash: 'f'.repeat(64),
      sessionMilliseconds: SESSION_MS,
    }).then(
      () => 'ACCEPTED',
      (error: { code?: string }) => error.code,
    );

    expect({
      outcome,
      grant: (await grantRow(app, created.grantId))!.status,
      sessions: (await sessionRows(app, created.grantId)).length,
    }).toEqual({ outcome: 'SHARE_EXPIRED', grant: 'CREATED', sessions: 0 });
  });
});
