import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { usePrivateDatabase } from '../../support/private-database.js';
import {
  acceptShare,
  accessRows,
  createShare,
  eventually,
  NO_SHARE_IP_LIMIT,
  grantRow,
  previewShare,
  recipientSession,
  revokeShare,
  sessionRows,
  shareableBooking,
  shareFixture,
  sharedDocument,
  type ShareFixture,
} from '../../support/document-shares.js';
import { legacyPassengerBooking } from '../../support/legacy-bookings.js';
import { pdfPageCount, pdfText } from '../../support/pdf.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function expectPrivateHeaders(headers: Headers) {
  expect(headers.get('cache-control')).toBe('private, no-store');
  expect(headers.get('x-robots-tag')).toContain('noindex');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
}

describe('document shares: one-use link, recipient session, document', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);
  let fixture: ShareFixture;
  let bookingId: string;
  const ownerHeaders = () => ({ Authorization: `Bearer ${fixture.owner.token}` });
  const share = (presentation: 'VIEW' | 'DOWNLOAD' = 'DOWNLOAD', kind = 'BOOKING_CONFIRMATION') =>
    createShare(app, ownerHeaders(), { bookingId, documentKind: kind, presentation });

  beforeAll(async () => {
    fixture = await shareFixture(app);
    bookingId = await shareableBooking(app, fixture);
  });

  it('the owner creates a grant: a one-use link with the secret in the fragment, only its hash stored', async () => {
    const created = await share();
    expect(created.response.status, created.response.text).toBe(201);
    expectPrivateHeaders(created.response.headers);
    expect(created.response.body.data.url).toBe(`/share/${created.grantId}#token=${created.secret}`);
    const expiresIn = Date.parse(created.response.body.data.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(4 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(5 * 60_000);
    const row = await grantRow(app, created.grantId);
    expect(row).toMatchObject({ status: 'CREATED', issuer_kind: 'TRAVELLER', issuer_role: 'TRAVELLER' });
    expect(row!.secret_hash).toBe(createHash('sha256').update(created.secret).digest('hex'));
    const leaks = await app.db.query(
      `select id from document_share_grants where id = $1 and row_to_json(document_share_grants)::text like $2`,
      [created.grantId, `%${created.secret}%`],
    );
    expect(leaks).toHaveLength(0);
  });

  it('takes bookingId, documentKind and presentation only; anything else is refused and nothing is written', async () => {
    const before = await app.db.query(
      `select count(*)::int as n from document_share_grants where booking_id = $1`,
      [bookingId],
    );
    const extra = await createShare(app, ownerHeaders(), {
      bookingId,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
      companyId: fixture.companyId,
    });
    expect(extra.response.status).toBe(400);
    expect(extra.response.body.errorCode).toBe('VALIDATION_FAILED');
    const ticket = await createShare(app, ownerHeaders(), {
      bookingId,
      documentKind: 'TICKET',
      presentation: 'VIEW',
    });
    expect(ticket.response.status).toBe(400);
    const anonymous = await createShare(
      app,
      {},
      { bookingId, documentKind: 'INVOICE', presentation: 'VIEW' },
    );
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.response.body.errorCode).toBe('AUTH_REQUIRED');
    expectPrivateHeaders(anonymous.response.headers);
    const after = await app.db.query(
      `select count(*)::int as n from document_share_grants where booking_id = $1`,
      [bookingId],
    );
    expect(after).toEqual(before);
  });

  it('another traveller’s booking is 404, as if it did not exist', async () => {
    const stranger = await app.signIn();
    const created = await createShare(
      app,
      { Authorization: `Bearer ${stranger.token}` },
      { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
    );
    expect(created.response.status).toBe(404);
    expect(created.response.body.errorCode).toBe('BOOKING_NOT_FOUND');
  });

  it('an imported booking made for the traveller’s passenger profile is theirs to share and to revoke shares of', async () => {
    const legacyId = await legacyPassengerBooking(app.db, {
      trip: fixture.trip,
      passengerId: fixture.owner.passengerId,
    });
    const grantsOf = () =>
      app.db.query(`select id from document_share_grants where booking_id = $1`, [legacyId]);
    const stranger = { Authorization: `Bearer ${(await app.signIn()).token}` };
    const refused = await createShare(app, stranger, {
      bookingId: legacyId,
      documentKind: 'INVOICE',
      presentation: 'DOWNLOAD',
    });
    expect([refused.response.status, refused.response.body.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
    expect(await grantsOf()).toEqual([]);

    const created = await createShare(app, ownerHeaders(), {
      bookingId: legacyId,
      documentKind: 'INVOICE',
      presentation: 'DOWNLOAD',
    });
    expect([created.response.status, created.response.body.errorCode], created.response.text).toEqual([
      201,
      undefined,
    ]);
    expect(await grantRow(app, created.grantId)).toMatchObject({
      booking_id: legacyId,
      issuer_kind: 'TRAVELLER',
    });

    // The company's share of it: the traveller whose booking it is may revoke it, a stranger may not.
    const manager = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');
    const companyShare = await createShare(app, manager.writeHeaders, {
      bookingId: legacyId,
      documentKind: 'INVOICE',
      presentation: 'VIEW',
    });
    expect(companyShare.response.status, companyShare.response.text).toBe(201);
    const notTheirs = await revokeShare(app, companyShare.grantId, stranger);
    expect([notTheirs.status, notTheirs.body.errorCode]).toEqual([404, 'SHARE_NOT_FOUND']);
    expect((await grantRow(app, companyShare.grantId))!.status).toBe('CREATED');
    const revoked = await revokeShare(app, companyShare.grantId, ownerHeaders());
    expect([revoked.status, revoked.body.data?.status], revoked.text).toEqual([200, 'REVOKED']);
  });

  it('takes the journey id as the document routes do; the grant names the booking row', async () => {
    const [row] = await app.db.query<{ journey_id: string }>(
      'select journey_id from bookings where id = $1',
      [bookingId],
    );
    const journeyId = row!.journey_id;
    const created = await createShare(app, ownerHeaders(), {
      bookingId: journeyId,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });
    expect(created.response.status, created.response.text).toBe(201);
    expect((await grantRow(app, created.grantId))!.booking_id).toBe(bookingId);
    // Another traveller naming the same journey is as refused as by the booking id.
    const stranger = await app.signIn();
    const refused = await createShare(
      app,
      { Authorization: `Bearer ${stranger.token}` },
      { bookingId: journeyId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
    );
    expect([refused.response.status, refused.response.body.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
  });

  it('preview shows only the document kind and the operating company', async () => {
    const created = await share();
    const preview = await previewShare(app, created.grantId, created.secret);
    expect(preview.status, preview.text).toBe(200);
    expectPrivateHeaders(preview.headers);
    const [company] = await app.db.query<{ name_ar: string; name_en: string }>(
      `select name_ar, name_en from companies where id = $1`,
      [fixture.companyId],
    );
    expect(preview.body).toEqual({
      success: true,
      data: {
        documentKind: 'BOOKING_CONFIRMATION',
        company: { name_ar: company!.name_ar, name_en: company!.name_en },
      },
    });
    expect(preview.text).not.toContain('Rami');
    expect(preview.text).not.toContain('BK-');
  });

  it('a wrong secret answers exactly like an unknown grant: 404 SHARE_NOT_FOUND, for preview and accept', async () => {
    const created = await share();
    const wrong = await previewShare(app, created.grantId, `${created.secret}x`);
    const unknown = await previewShare(app, '7d0c8a62-1b7e-4c4e-9d64-2a4f1c9b0e11', created.secret);
    expect([wrong.status, unknown.status]).toEqual([404, 404]);
    expect(wrong.body.errorCode).toBe('SHARE_NOT_FOUND');
    expect(unknown.body.errorCode).toBe('SHARE_NOT_FOUND');
    expect(wrong.body.message).toBe(unknown.body.message);
    const accept = await acceptShare(app, created.grantId, 'guess');
    expect(accept.response.status).toBe(404);
    expect(accept.setCookie).toBe('');
    expect(await sessionRows(app, created.grantId)).toHaveLength(0);
    expect((await grantRow(app, created.grantId))!.status).toBe('CREATED');
  });

  it('accept sets the recipient cookie for this grant only; a second accept is 409 and makes no session', async () => {
    const created = await share('VIEW');
    const accepted = await acceptShare(app, created.grantId, created.secret);
    expect(accepted.response.status, accepted.response.text).toBe(200);
    expectPrivateHeaders(accepted.response.headers);
    const attributes = accepted.setCookie.toLowerCase();
    expect(attributes).toContain('httponly');
    expect(attributes).toContain('samesite=strict');
    expect(attributes).toContain(`path=/api/document-shares/${created.grantId}`);
    expect(attributes).toContain('secure');
    expect(accepted.response.body.data).toMatchObject({
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });

    const again = await acceptShare(app, created.grantId, created.secret);
    expect(again.response.status).toBe(409);
    expect(again.response.body.errorCode).toBe('SHARE_ALREADY_ACCEPTED');
    expect(again.setCookie).toBe('');
    expect(await sessionRows(app, created.grantId)).toHaveLength(1);
    expect((await grantRow(app, created.grantId))!.status).toBe('ACCEPTED');

    const session = await recipientSession(app, created.grantId, accepted.cookie);
    expect(session.status, session.text).toBe(200);
    expectPrivateHeaders(session.headers);
    const { expiresAt, idleExpiresAt } = session.body.data;
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(30 * 60_000);
    expect(Date.parse(idleExpiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(idleExpiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
  });

  it('two racing accepts give exactly one session', async () => {
    const created = await share();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => acceptShare(app, created.grantId, created.secret)),
    );
    const statuses = results.map((result) => result.response.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409]);
    expect(results.filter((result) => result.setCookie !== '')).toHaveLength(1);
    expect(await sessionRows(app, created.grantId)).toHaveLength(1);
  });

  it('the document: rendered, logged with checksum and size, then sent private and no-store', async () => {
    const created = await share('DOWNLOAD');
    const { cookie } = await acceptShare(app, created.grantId, created.secret);
    const view = await sharedDocument(app, created.grantId, cookie, 'view', 'en');
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    expect(view.headers.get('content-type')).toBe('application/pdf');
    expect(view.headers.get('content-disposition')).toMatch(/^inline/);
    expectPrivateHeaders(view.headers);
    expect(pdfPageCount(view.bytes)).toBeGreaterThanOrEqual(1);
    expect(pdfText(view.bytes)).toContain('Rami Haddad');

    const download = await sharedDocument(app, created.grantId, cookie, 'download', 'en');
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(sha256(download.bytes)).toBe(sha256(view.bytes));

    const log = await accessRows(app, created.grantId);
    expect(log).toEqual([
      { action: 'VIEW', sha256: sha256(view.bytes), size: view.bytes.byteLength },
      { action: 'DOWNLOAD', sha256: sha256(view.bytes), size: view.bytes.byteLength },
    ]);
  });

  it('a VIEW grant refuses download with 403 SHARE_DOWNLOAD_NOT_ALLOWED, before anything is logged', async () => {
    const created = await share('VIEW');
    const { cookie } = await acceptShare(app, created.grantId, created.secret);
    const download = await sharedDocument(app, created.grantId, cookie, 'download');
    expect(download.status).toBe(403);
    expect(download.body?.errorCode).toBe('SHARE_DOWNLOAD_NOT_ALLOWED');
    expect(await accessRows(app, created.grantId)).toHaveLength(0);
  });

  it('a HEAD of the document sends no bytes: 405 (Allow: GET), nothing logged, the session untouched', async () => {
    const created = await share('DOWNLOAD');
    const { cookie } = await acceptShare(app, created.grantId, created.secret);
    const head = await app.request(
      `/api/document-shares/${created.grantId}/document?action=download&locale=en`,
      { method: 'HEAD', headers: { Cookie: cookie } },
    );
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET']);
    expectPrivateHeaders(head.headers);
    expect(await accessRows(app, created.grantId)).toEqual([]);
    expect((await sharedDocument(app, created.grantId, cookie, 'download')).status).toBe(200);
    expect(await accessRows(app, created.grantId)).toHaveLength(1);
  });

  it('every answer on the share paths is private and noindex, the router’s 405 too', async () => {
    for (const path of [
      `/api/document-shares/${randomUUID()}/accept`,
      `/dashboard/api/document-shares/${randomUUID()}/revoke`,
    ]) {
      const response = await app.request(path);
      expect(response.status, path).toBe(405);
      expectPrivateHeaders(response.headers);
    }
  });

  it('a link whose grant id is in capitals: its cookie is scoped to the path accept was called on', async () => {
    const created = await share('VIEW');
    const upper = created.grantId.toUpperCase();
    expect((await app.request(`/share/${upper}`)).status).toBe(200);
    const accepted = await acceptShare(app, upper, created.secret);
    expect(accepted.response.status, accepted.response.text).toBe(200);
    const path = /;\s*path=([^;]+)/i.exec(accepted.setCookie)?.[1];
    // A browser sends the cookie only if its Path is a (case-sensitive) prefix of the request's path.
    expect(`/api/document-shares/${upper}/document`.startsWith(path ?? '?')).toBe(true);
    expect((await sharedDocument(app, upper, accepted.cookie)).status).toBe(200);
  });

  it('the recipient cookie opens nothing else: not another grant, not the booking API, not boarding', async () => {
    const first = await share();
    const second = await share();
    const { cookie } = await acceptShare(app, first.grantId, first.secret);
    const other = await recipientSession(app, second.grantId, cookie);
    expect(other.status).toBe(401);
    expect(other.body.errorCode).toBe('SHARE_SESSION_REQUIRED');
    const noCookie = await recipientSession(app, first.grantId, '');
    expect(noCookie.status).toBe(401);

    const bookings = await app.request('/api/bookings', { headers: { Cookie: cookie } });
    expect(bookings.status).toBe(401);
    const booking = await app.request(`/api/bookings/${bookingId}`, { headers: { Cookie: cookie } });
    expect(booking.status).toBe(401);
    const verify = await app.request('/driver/api/verify', {
      method: 'POST',
      headers: { Cookie: cookie },
      json: { payload: {}, signature: 'x', tripId: fixture.trip.id },
    });
    expect(verify.status).toBe(401);
  });

  it('revoke ends the recipient session at once: session and document are refused, nothing more is logged', async () => {
    const created = await share();
    const { cookie } = await acceptShare(app, created.grantId, created.secret);
    expect((await sharedDocument(app, created.grantId, cookie)).status).toBe(200);
    const revoked = await revokeShare(app, created.grantId, ownerHeaders());
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.data).toMatchObject({ grantId: created.grantId, status: 'REVOKED' });
    expectPrivateHeaders(revoked.headers);
    const sessions = await sessionRows(app, created.grantId);
    expect(sessions[0]!.ended_reason).toBe('REVOKED');

    const session = await recipientSession(app, created.grantId, cookie);
    expect(session.status).toBe(410);
    expect(session.body.errorCode).toBe('SHARE_REVOKED');
    const document = await sharedDocument(app, created.grantId, cookie);
    expect(document.status).toBe(410);
    expect(document.body?.errorCode).toBe('SHARE_REVOKED');
    expect(await accessRows(app, created.grantId)).toHaveLength(1);

    const again = await revokeShare(app, created.grantId, ownerHeaders());
    expect(again.status).toBe(200);
    expect(again.body.data.revokedAt).toBe(revoked.body.data.revokedAt);
  });

  it('a ticket re-issued as CREDENTIAL_LEAKED ends the live shares of its confirmation; LOST_DEVICE keeps them', async () => {
    const booking = await shareableBooking(app, fixture);
    const shareIt = () =>
      createShare(app, ownerHeaders(), {
        bookingId: booking,
        documentKind: 'BOOKING_CONFIRMATION',
        presentation: 'VIEW',
      });
    const validTicket = async () => {
      const [ticket] = await app.db.query<{ id: string }>(
        `select t.id from journey_tickets t join bookings b on b.journey_id = t.journey_id and b.trip_id = t.trip_id
          where b.id = $1 and t.status = 'VALID'`,
        [booking],
      );
      return ticket!.id;
    };
    const reissue = async (headers: Record<string, string>, reason: string) =>
      app.request('/api/tickets', {
        method: 'POST',
        headers,
        json: { ticket_id: await validTicket(), reason },
      });

    const accepted = await shareIt();
    const { cookie } = await acceptShare(app, accepted.grantId, accepted.secret);
    expect((await reissue(ownerHeaders(), 'LOST_DEVICE')).status).toBe(201);
    expect((await recipientSession(app, accepted.grantId, cookie)).status).toBe(200);

    const unaccepted = await shareIt();
    const stranger = await app.signIn();
    const refused = await reissue({ Authorization: `Bearer ${stranger.token}` }, 'CREDENTIAL_LEAKED');
    expect([refused.status, refused.body.errorCode]).toEqual([404, 'TICKET_NOT_FOUND']);
    expect((await grantRow(app, unaccepted.grantId))!.status).toBe('CREATED');

    const leaked = await reissue(ownerHeaders(), 'CREDENTIAL_LEAKED');
    expect(leaked.status, leaked.text).toBe(201);
    const session = await recipientSession(app, accepted.grantId, cookie);
    expect([session.status, session.body.errorCode]).toEqual([410, 'SHARE_REVOKED']);
    expect((await grantRow(app, unaccepted.grantId))!.status).toBe('REVOKED');
    // The traveller may share again.
    expect((await shareIt()).response.status).toBe(201);
  });

  /**
   * A document request in flight holds the recipient session; a revoke waits for it, and its revokedAt
   * is when it took effect, so the access log never shows a view after the revocation (it was the
   * revoke's start, before the view it waited for).
   */
  it('a revoke that waited for a document in flight is dated after it', async () => {
    const created = await share();
    const { cookie } = await acceptShare(app, created.grantId, created.secret);
    const [session] = await sessionRows(app, created.grantId);
    const inFlight = await holdLock(
      app.db,
      `select id from share_recipient_sessions where id = '${session!.id}' for update`,
    );
    const revoke = revokeShare(app, created.grantId, ownerHeaders());
    await waitersOf(app.db, inFlight.pid, 1);
    const released = Date.now();
    await inFlight.release();
    const revoked = await revoke;
    expect(revoked.status, revoked.text).toBe(200);
    expect(Date.parse(revoked.body.data.revokedAt)).toBeGreaterThanOrEqual(released);
    expect((await sharedDocument(app, created.grantId, cookie)).status).toBe(410);
  });

  it('racing revokes each answer 200 REVOKED, never 410 SHARE_EXPIRED', async () => {
    const seen: string[] = [];
    for (let round = 0; round < 6; round++) {
      const created = await share();
      const answers = await Promise.all(
        Array.from({ length: 3 }, () => revokeShare(app, created.grantId, ownerHeaders())),
      );
      for (const answer of answers) seen.push(`${answer.status} ${answer.body?.errorCode ?? ''}`.trim());
    }
    expect(seen.filter((value) => value !== '200')).toEqual([]);
  });

  it('a revoked link cannot be previewed or accepted (410 SHARE_REVOKED)', async () => {
    const created = await share();
    expect((await revokeShare(app, created.grantId, ownerHeaders())).status).toBe(200);
    const preview = await previewShare(app, created.grantId, created.secret);
    expect(preview.status).toBe(410);
    expect(preview.body.errorCode).toBe('SHARE_REVOKED');
    const accept = await acceptShare(app, created.grantId, created.secret);
    expect(accept.response.status).toBe(410);
    expect(await sessionRows(app, created.grantId)).toHaveLength(0);
  });

  it('someone who is neither issuer, owner nor company manager cannot revoke: 404', async () => {
    const created = await share();
    const stranger = await app.signIn();
    const refused = await revokeShare(app, created.grantId, { Authorization: `Bearer ${stranger.token}` });
    expect(refused.status).toBe(404);
    expect(refused.body.errorCode).toBe('SHARE_NOT_FOUND');
    expect((await grantRow(app, created.grantId))!.status).toBe('CREATED');
  });

  it('a cookie-authenticated issuer needs the CSRF header', async () => {
    const without = await createShare(
      app,
      { Cookie: fixture.owner.cookie },
      { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
    );
    expect(without.response.status).toBe(403);
    expect(without.response.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    const withCsrf = await createShare(app, fixture.owner.writeHeaders, {
      bookingId,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });
    expect(withCsrf.response.status).toBe(201);
  });

  it('a document that cannot be issued is refused when sharing (cancelled booking: 410)', async () => {
    const cancelled = await shareableBooking(app, fixture, { cancelled: true });
    const created = await createShare(app, ownerHeaders(), {
      bookingId: cancelled,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });
    expect(created.response.status).toBe(410);
    const unpaid = await createShare(app, ownerHeaders(), {
      bookingId,
      documentKind: 'PAYMENT_RECEIPT',
      presentation: 'VIEW',
    });
    expect(unpaid.response.status).toBe(409);
    const rows = await app.db.query(`select id from document_share_grants where booking_id = $1`, [
      cancelled,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('the workflow records the grant for operators (share-grant/{grantId}, status search attribute)', async () => {
    const created = await share();
    await acceptShare(app, created.grantId, created.secret);
    const handle = app.temporal.workflow.getHandle(`share-grant/${created.grantId}`);
    const description = await eventually(
      () => handle.describe(),
      (value) => value.searchAttributes.ProcessStatus?.[0] === 'ACCEPTED',
    );
    const [row] = await app.db.query<{ journey_id: string }>(
      'select journey_id from bookings where id = $1',
      [bookingId],
    );
    // The booking row's id and its journey's: either finds the grant's process.
    expect(description.searchAttributes.BookingId).toEqual([bookingId, row!.journey_id]);
    expect(description.searchAttributes.CompanyId).toEqual([fixture.companyId]);
    expect(description.searchAttributes.ProcessStatus).toEqual(['ACCEPTED']);
  });
});

describe('document shares: rate limits', () => {
  const app = useTestApp({ SHARE_RATE_LIMIT_PER_GRANT_PER_MINUTE: 3 });

  it('preview, accept, session and document are limited per client IP and grant (429 RATE_LIMITED)', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const headers = { Authorization: `Bearer ${fixture.owner.token}` };
    const body = { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' };
    const limited = await createShare(app, headers, body);
    const other = await createShare(app, headers, body);
    const statuses = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      statuses.push((await previewShare(app, limited.grantId, `${limited.secret}-guess-${attempt}`)).status);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    const refused = await acceptShare(app, limited.grantId, limited.secret);
    expect(refused.response.status).toBe(429);
    expect(refused.response.body.errorCode).toBe('RATE_LIMITED');
    expect(refused.response.headers.get('retry-after')).toBeTruthy();
    expectPrivateHeaders(refused.response.headers);
    expect(await sessionRows(app, limited.grantId)).toHaveLength(0);
    // Another grant has its own counter.
    expect((await previewShare(app, other.grantId, other.secret)).status).toBe(200);
  });
});

describe('document shares: per-IP limit', () => {
  const app = useTestApp({ SHARE_RATE_LIMIT_PER_IP_PER_MINUTE: 3, SHARE_RATE_LIMIT_PER_GRANT_PER_MINUTE: 0 });

  it('a client IP is limited across grants (429 RATE_LIMITED)', async () => {
    const statuses = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      statuses.push((await previewShare(app, randomUUID(), 'guess')).status);
    }
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
  });
});

describe('document shares: a maintenance window', () => {
  // A window is global to the platform: in the shared database it would refuse the writes of every
  // test file running meanwhile, so this one runs on a database of its own (no grants: the routes
  // are shown reached, past the gate, by their own answers).
  const database = usePrivateDatabase('share_maintenance');
  const app = useTestApp({
    ...NO_SHARE_IP_LIMIT,
    DATABASE_URL: database.url,
    PLATFORM_STATE_POLL_SECONDS: 1,
  });

  it('keeps accept, the document and revoke (customer and dashboard) open; creating a share is 503', async () => {
    const owner = { Authorization: `Bearer ${(await app.signIn()).token}` };
    const company = await createCompany(app.db);
    const staff = await staffSession(app.db, app.config, company.id, 'OWNER');
    const body = { bookingId: randomUUID(), documentKind: 'BOOKING_CONFIRMATION', presentation: 'DOWNLOAD' };
    await app.db.query(
      `insert into maintenance_windows (message, starts_at, ends_at)
       values ('upgrade', now() - interval '1 minute', now() + interval '2 hours')`,
    );
    await app.db.query(`update platform_state_versions set version = version + 1 where name = 'maintenance'`);

    const blocked = await eventually(
      () => createShare(app, owner, body),
      (attempt) => attempt.response.status === 503,
      10_000,
    );
    expect(blocked.response.body.errorCode).toBe('MAINTENANCE');
    const fromDashboard = await app.request('/dashboard/api/document-shares', {
      method: 'POST',
      headers: staff.writeHeaders,
      json: body,
    });
    expect(fromDashboard.body.errorCode).toBe('MAINTENANCE');

    const grantId = randomUUID();
    const reached = [
      await acceptShare(app, grantId, 'secret').then((accepted) => accepted.response),
      await sharedDocument(app, grantId, '', 'download'),
      await revokeShare(app, grantId, owner),
      await app.request(`/dashboard/api/document-shares/${grantId}/revoke`, {
        method: 'POST',
        headers: staff.writeHeaders,
      }),
    ];
    expect(reached.map((answer) => `${answer.status} ${answer.body?.errorCode ?? ''}`)).toEqual([
      '404 SHARE_NOT_FOUND',
      '401 SHARE_SESSION_REQUIRED',
      '404 SHARE_NOT_FOUND',
      '404 SHARE_NOT_FOUND',
    ]);
  });
});
