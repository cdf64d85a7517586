import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import {
  createShare,
  NO_SHARE_IP_LIMIT,
  shareableBooking,
  shareFixture,
} from '../../support/document-shares.js';
import type { TestApp } from '../../support/harness.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { signedOutWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';

/**
 * POST /dashboard/api/document-shares judges the company and the issuing member as they stand when
 * the grant is written, after the document was rendered (README: a suspended company's staff and
 * drivers neither issue nor revoke document shares; deactivation and sign-out end a session at
 * once): a suspension, deactivation or sign-out committed while the share waited is refused as the
 * next request would be, and no grant is written. A traveller's share of their own booking is no
 * write of the company and is issued all the same.
 */

const shareBody = (bookingId: string) => ({
  bookingId,
  documentKind: 'BOOKING_CONFIRMATION',
  presentation: 'VIEW',
});

const dashboardShare = (app: TestApp, headers: Record<string, string>, bookingId: string) =>
  app.request('/dashboard/api/document-shares', { method: 'POST', headers, json: shareBody(bookingId) });

const grantsOf = async (app: TestApp, bookingId: string) =>
  app.db.query<{ issuer_kind: string; status: string }>(
    `select issuer_kind, status from document_share_grants where booking_id = $1`,
    [bookingId],
  );

describe('POST /dashboard/api/document-shares: the company and the issuer are checked when the grant is written', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);

  it('an OWNER whose company is suspended while the share waits for the company row is 403 COMPANY_SUSPENDED; no grant', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const owner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');

    const refused = await suspendedWhileWriting(app.db, fixture.companyId, () =>
      dashboardShare(app, owner.writeHeaders, bookingId),
    );

    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    expect(await grantsOf(app, bookingId)).toEqual([]);
  });

  it('an OWNER deactivated by PATCH /team while the share waits for its booking is 401 INVALID_CREDENTIAL; no grant', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const owner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');
    const otherOwner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');

    // The share has passed the session guard and rendered; its grant waits for the booking row.
    const held = await holdLock(app.db, `select id from bookings where id = '${bookingId}' for update`);
    const sharing = dashboardShare(app, owner.writeHeaders, bookingId);
    await waitersOf(app.db, held.pid);
    const deactivated = await app.request(`/dashboard/api/team/${owner.membershipId}`, {
      method: 'PATCH',
      headers: otherOwner.writeHeaders,
      json: { active: false },
    });
    expect(deactivated.status, deactivated.text).toBe(200);
    await held.release();

    const refused = await sharing;
    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([401, 'INVALID_CREDENTIAL']);
    expect(await grantsOf(app, bookingId)).toEqual([]);
  });

  it('an OWNER signed out while the share waits for the company row is 401 INVALID_CREDENTIAL; no grant', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const owner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');

    const refused = await signedOutWhileWriting(app.db, fixture.companyId, owner.sessionId, () =>
      dashboardShare(app, owner.writeHeaders, bookingId),
    );

    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([401, 'INVALID_CREDENTIAL']);
    expect(await grantsOf(app, bookingId)).toEqual([]);
  });

  it('a traveller sharing their own booking while its company is suspended still gets the share', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);

    const { response } = await suspendedWhileWriting(app.db, fixture.companyId, () =>
      createShare(app, { Authorization: `Bearer ${fixture.owner.token}` }, shareBody(bookingId)),
    );

    expect(response.status, response.text).toBe(201);
    expect(await grantsOf(app, bookingId)).toEqual([{ issuer_kind: 'TRAVELLER', status: 'CREATED' }]);
  });
});
