import { beforeAll, describe, expect, it } from 'vitest';
import { issueAdminSession } from '../../../api/auth/admin-session.js';
import { createCorridor } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import {
  createShare,
  grantRow,
  NO_SHARE_IP_LIMIT,
  revokeShare,
  shareableBooking,
  shareFixture,
  type ShareFixture,
} from '../../support/document-shares.js';
import { staffSession } from '../../support/journey-rows.js';
import type { StaffRole } from '../../support/staff.js';
import { createAdmin } from '../admin/helpers.js';

type Kind = 'BOOKING_CONFIRMATION' | 'INVOICE' | 'CANCELLATION_CONFIRMATION' | 'PAYMENT_RECEIPT';
const KINDS: Kind[] = ['BOOKING_CONFIRMATION', 'INVOICE', 'CANCELLATION_CONFIRMATION', 'PAYMENT_RECEIPT'];

/** SPEC "Document sharing": who may share which kind of a booking they reach. */
const MAY_SHARE: Record<string, Kind[]> = {
  traveller: KINDS,
  OWNER: KINDS,
  ADMIN: KINDS,
  DISPATCHER: ['BOOKING_CONFIRMATION', 'CANCELLATION_CONFIRMATION'],
  STAFF: ['BOOKING_CONFIRMATION', 'CANCELLATION_CONFIRMATION'],
  ACCOUNTANT: [],
  'assigned driver': ['BOOKING_CONFIRMATION', 'PAYMENT_RECEIPT'],
};

describe('document shares: who may share what', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);
  let fixture: ShareFixture;
  /** A confirmed, paid booking (confirmation, invoice and receipt can be issued). */
  let paid: string;
  /** A cancelled booking of the same trip (the cancellation confirmation can be issued). */
  let cancelled: string;
  const issuers: Record<string, Record<string, string>> = {};

  const bookingFor = (kind: Kind) => (kind === 'CANCELLATION_CONFIRMATION' ? cancelled : paid);

  async function companyUser(role: StaffRole, companyId = fixture.companyId) {
    return staffSession(app.db, app.config, companyId, role);
  }

  beforeAll(async () => {
    fixture = await shareFixture(app);
    paid = await shareableBooking(app, fixture, { paid: true });
    cancelled = await shareableBooking(app, fixture, { cancelled: true });
    issuers.traveller = { Authorization: `Bearer ${fixture.owner.token}` };
    for (const role of ['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const) {
      issuers[role] = (await companyUser(role)).writeHeaders;
    }
    const driver = await companyUser('DRIVER');
    await app.db.query(`update trips set driver_id = $1 where id = $2`, [
      driver.staffUserId,
      fixture.trip.id,
    ]);
    issuers['assigned driver'] = { Authorization: `Bearer ${driver.token}` };
  });

  for (const [issuer, allowed] of Object.entries(MAY_SHARE)) {
    it(`${issuer}: may share ${allowed.join(', ') || 'nothing'}; other kinds 403 SHARE_KIND_NOT_ALLOWED`, async () => {
      for (const kind of KINDS) {
        const created = await createShare(app, issuers[issuer]!, {
          bookingId: bookingFor(kind),
          documentKind: kind,
          presentation: 'VIEW',
        });
        if (allowed.includes(kind)) {
          expect(created.response.status, `${issuer} ${kind}: ${created.response.text}`).toBe(201);
        } else {
          expect(created.response.status, `${issuer} ${kind}`).toBe(403);
          expect(created.response.body.errorCode).toBe('SHARE_KIND_NOT_ALLOWED');
        }
      }
    });
  }

  it('records the issuer from the session: kind, id and role', async () => {
    const created = await createShare(app, issuers.DISPATCHER!, {
      bookingId: paid,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });
    expect(await grantRow(app, created.grantId)).toMatchObject({
      issuer_kind: 'STAFF',
      issuer_role: 'DISPATCHER',
    });
    const driven = await createShare(app, issuers['assigned driver']!, {
      bookingId: paid,
      documentKind: 'PAYMENT_RECEIPT',
      presentation: 'DOWNLOAD',
    });
    expect(await grantRow(app, driven.grantId)).toMatchObject({
      issuer_kind: 'DRIVER',
      issuer_role: 'DRIVER',
    });
  });

  it('a driver not assigned to the trip, and a company user of another company, get 404', async () => {
    const otherDriver = await companyUser('DRIVER');
    const foreign = await createCorridor(app.db);
    const foreignOwner = await companyUser('OWNER', foreign.company.id);
    for (const headers of [{ Authorization: `Bearer ${otherDriver.token}` }, foreignOwner.writeHeaders]) {
      const created = await createShare(app, headers, {
        bookingId: paid,
        documentKind: 'BOOKING_CONFIRMATION',
        presentation: 'VIEW',
      });
      expect(created.response.status).toBe(404);
      expect(created.response.body.errorCode).toBe('BOOKING_NOT_FOUND');
    }
  });

  it('a company session also works as a bearer token (the driver app’s way), and a cookie write needs CSRF', async () => {
    const dispatcher = await companyUser('DISPATCHER');
    const bearer = await createShare(
      app,
      { Authorization: `Bearer ${dispatcher.token}` },
      { bookingId: paid, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
    );
    expect(bearer.response.status).toBe(201);
    const noCsrf = await createShare(
      app,
      { Cookie: dispatcher.cookie },
      { bookingId: paid, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
    );
    expect(noCsrf.response.status).toBe(403);
    expect(noCsrf.response.body.errorCode).toBe('CSRF_TOKEN_INVALID');
  });

  it('a platform administrator (SUPPORT) has no issuer scope: 403 SHARE_ISSUER_FORBIDDEN, nothing written', async () => {
    const support = await createAdmin(app.db, { role: 'SUPPORT' });
    const session = await issueAdminSession(app.db.pool, app.config, support.id);
    const before = await app.db.query(
      `select count(*)::int as n from document_share_grants where booking_id = $1`,
      [paid],
    );
    const created = await createShare(
      app,
      { Cookie: `bb_admin=${session.token}`, 'X-CSRF-Token': session.csrfToken },
      { bookingId: paid, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' },
    );
    expect(created.response.status).toBe(403);
    expect(created.response.body.errorCode).toBe('SHARE_ISSUER_FORBIDDEN');
    const after = await app.db.query(
      `select count(*)::int as n from document_share_grants where booking_id = $1`,
      [paid],
    );
    expect(after).toEqual(before);
  });

  it('revoke: the issuer, the booking owner and company OWNER/ADMIN may; a DISPATCHER who did not issue may not', async () => {
    const share = async () =>
      (
        await createShare(app, issuers['assigned driver']!, {
          bookingId: paid,
          documentKind: 'BOOKING_CONFIRMATION',
          presentation: 'VIEW',
        })
      ).grantId;
    const refused = await share();
    const byDispatcher = await revokeShare(app, refused, issuers.DISPATCHER!);
    expect(byDispatcher.status).toBe(404);
    expect((await grantRow(app, refused))!.status).toBe('CREATED');
    for (const who of ['assigned driver', 'traveller', 'OWNER', 'ADMIN']) {
      const grantId = await share();
      const revoked = await revokeShare(app, grantId, issuers[who]!);
      expect(revoked.status, `${who}: ${revoked.text}`).toBe(200);
      expect((await grantRow(app, grantId))!.status).toBe('REVOKED');
    }
  });

  it('the dashboard shares through /dashboard/api/document-shares with its own session cookie, same rules', async () => {
    const dashboard = (path: string, headers: Record<string, string>, json?: unknown) =>
      app.request(`/dashboard/api${path}`, { method: 'POST', headers, ...(json ? { json } : {}) });
    const owner = await companyUser('OWNER');
    const created = await dashboard('/document-shares', owner.writeHeaders, {
      bookingId: paid,
      documentKind: 'INVOICE',
      presentation: 'DOWNLOAD',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('x-robots-tag')).toContain('noindex');
    const grantId = created.body.data.grantId as string;
    expect(await grantRow(app, grantId)).toMatchObject({ issuer_kind: 'STAFF', issuer_role: 'OWNER' });

    const dispatcher = await companyUser('DISPATCHER');
    const refused = await dashboard('/document-shares', dispatcher.writeHeaders, {
      bookingId: paid,
      documentKind: 'INVOICE',
      presentation: 'VIEW',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('SHARE_KIND_NOT_ALLOWED');
    expect((await dashboard(`/document-shares/${grantId}/revoke`, dispatcher.writeHeaders)).status).toBe(404);
    const revoked = await dashboard(`/document-shares/${grantId}/revoke`, owner.writeHeaders);
    expect(revoked.status, revoked.text).toBe(200);
    expect((await grantRow(app, grantId))!.status).toBe('REVOKED');
  });
});
