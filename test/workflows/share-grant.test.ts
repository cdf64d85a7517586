import { beforeAll, describe, expect, it } from 'vitest';
import type { GrantState } from '../../workflows/share-grant.contract.js';
import { useTestApp } from '../support/harness.js';
import {
  acceptShare,
  accessRows,
  createShare,
  eventually,
  NO_SHARE_IP_LIMIT,
  grantRow,
  previewShare,
  recipientSession,
  sessionRows,
  shareableBooking,
  shareFixture,
  sharedDocument,
  type ShareFixture,
} from '../support/document-shares.js';

/**
 * The share-grant workflow's clocks, shortened only through the documented TIME_SCALE setting:
 * at 0.008 the 5-minute link lasts 2.4 s, the 30-minute session 14.4 s and the 15-minute idle
 * limit 7.2 s.
 */
const TIME_SCALE = 0.008;
const LINK_MS = 5 * 60_000 * TIME_SCALE;
const IDLE_MS = 15 * 60_000 * TIME_SCALE;
const SESSION_MS = 30 * 60_000 * TIME_SCALE;
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('share-grant workflow: link expiry, idle end and hard end of the recipient session', () => {
  const app = useTestApp({ ...NO_SHARE_IP_LIMIT, TIME_SCALE });
  let fixture: ShareFixture;
  let bookingId: string;

  const share = () =>
    createShare(
      app,
      { Authorization: `Bearer ${fixture.owner.token}` },
      { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'DOWNLOAD' },
    );
  const outcome = (grantId: string) =>
    app.temporal.workflow.getHandle(`share-grant/${grantId}`).result() as Promise<GrantState>;

  beforeAll(async () => {
    fixture = await shareFixture(app);
    bookingId = await shareableBooking(app, fixture);
  });

  it('a link not accepted in time expires: the workflow marks the grant EXPIRED; preview and accept say 410', async () => {
    const created = await share();
    expect(created.response.status, created.response.text).toBe(201);
    expect(Date.parse(created.response.body.data.expiresAt) - Date.now()).toBeLessThanOrEqual(LINK_MS);
    expect((await outcome(created.grantId)).phase).toBe('EXPIRED');
    expect((await grantRow(app, created.grantId))!.status).toBe('EXPIRED');

    const preview = await previewShare(app, created.grantId, created.secret);
    expect(preview.status).toBe(410);
    expect(preview.body.errorCode).toBe('SHARE_EXPIRED');
    const accepted = await acceptShare(app, created.grantId, created.secret);
    expect(accepted.response.status).toBe(410);
    expect(accepted.response.body.errorCode).toBe('SHARE_EXPIRED');
    expect(await sessionRows(app, created.grantId)).toHaveLength(0);
    // The secret still decides: a wrong one is the same 404 as ever, even for an expired grant.
    expect((await previewShare(app, created.grantId, 'wrong')).status).toBe(404);
  });

  it('a session left idle ends on the next request (no waiting for a timer), and the grant expires', async () => {
    const created = await share();
    const { cookie, response } = await acceptShare(app, created.grantId, created.secret);
    expect(response.status, response.text).toBe(200);
    await sleep(IDLE_MS + 500);
    const session = await recipientSession(app, created.grantId, cookie);
    expect(session.status).toBe(410);
    expect(session.body.errorCode).toBe('SHARE_SESSION_EXPIRED');
    expect((await sessionRows(app, created.grantId))[0]!.ended_reason).toBe('IDLE');
    const document = await sharedDocument(app, created.grantId, cookie);
    expect(document.status).toBe(410);
    expect(await accessRows(app, created.grantId)).toHaveLength(0);
    expect((await outcome(created.grantId)).phase).toBe('EXPIRED');
    expect((await grantRow(app, created.grantId))!.status).toBe('EXPIRED');
  });

  it('an active session still ends at its hard limit; the document is refused after it', async () => {
    const created = await share();
    const { cookie } = await acceptShare(app, created.grantId, created.secret);
    const started = Date.now();
    expect((await sharedDocument(app, created.grantId, cookie)).status).toBe(200);
    // Requests keep the session from going idle; only the hard limit can end it.
    while (Date.now() - started < SESSION_MS - 2000) {
      expect((await recipientSession(app, created.grantId, cookie)).status).toBe(200);
      await sleep(IDLE_MS / 3);
    }
    const ended = await eventually(
      () => recipientSession(app, created.grantId, cookie),
      (answer) => answer.status !== 200,
      SESSION_MS,
    );
    expect(ended.status).toBe(410);
    expect(ended.body.errorCode).toBe('SHARE_SESSION_EXPIRED');
    expect(Date.now() - started).toBeGreaterThanOrEqual(SESSION_MS - 1000);
    const document = await sharedDocument(app, created.grantId, cookie);
    expect(document.status).toBe(410);
    expect(document.headers.get('content-type')).not.toContain('pdf');
    expect(await accessRows(app, created.grantId)).toHaveLength(1);
    expect((await outcome(created.grantId)).phase).toBe('EXPIRED');
    const rows = await eventually(
      () => sessionRows(app, created.grantId),
      (value) => value[0]?.ended_at !== null,
    );
    expect(rows[0]!.ended_reason).toBe('EXPIRED');
  }, 60_000);

  it('accept and revoke are Updates: racing them leaves one consistent outcome', async () => {
    const created = await share();
    const [accepted, revoked] = await Promise.all([
      acceptShare(app, created.grantId, created.secret),
      app.request(`/api/document-shares/${created.grantId}/revoke`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${fixture.owner.token}` },
      }),
    ]);
    expect(revoked.status).toBe(200);
    expect((await outcome(created.grantId)).phase).toBe('REVOKED');
    const sessions = await sessionRows(app, created.grantId);
    if (accepted.response.status === 200) {
      expect(sessions[0]!.ended_reason).toBe('REVOKED');
      expect((await recipientSession(app, created.grantId, accepted.cookie)).status).toBe(410);
    } else {
      expect(accepted.response.body.errorCode).toBe('SHARE_REVOKED');
      expect(sessions).toHaveLength(0);
    }
  });
});
