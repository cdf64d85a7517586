import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fetchDocument } from '../../support/documents.js';
import { createCorridor } from '../../support/factories.js';
import { assignDriver } from '../../support/operations.js';
import { useTestApp, type SignedInTraveller } from '../../support/harness.js';
import {
  confirmedJourneyRows,
  createJourneyRows,
  firstCallDueAgo,
  journeyTripOf,
  staffSession,
  type JourneyTrip,
} from '../../support/journey-rows.js';
import {
  decodeQrCodes,
  decodeQrCodesByPage,
  pdfPageCount,
  pdfPageTexts,
  pdfText,
} from '../../support/pdf.js';

describe('GET /bookings/{id}/document: ticket and booking confirmation PDFs', () => {
  const app = useTestApp();
  let trip: JourneyTrip;
  let traveller: SignedInTraveller;
  let driverToken: string;

  const bearer = (who: SignedInTraveller) => ({ Authorization: `Bearer ${who.token}` });

  const download = (bookingId: string, type: string, locale: string, who = traveller) =>
    fetchDocument(app, `/api/bookings/${bookingId}/document?type=${type}&locale=${locale}`, bearer(who));

  const confirmedBooking = (travellers: string[], onTrip = trip) =>
    confirmedJourneyRows(app.db, { ownerUserId: traveller.userId, trip: onTrip, travellers });

  /** What the driver app answers for a scanned QR text at the door of `tripId`. */
  async function scanAtDoor(qrText: string, tripId = trip.id) {
    const response = await app.request('/driver/api/verify', {
      method: 'POST',
      token: driverToken,
      json: { ...JSON.parse(qrText), tripId },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.data;
  }

  const snapshotsOf = (bookingId: string) =>
    app.db.query<{ id: string; kind: string; locale: string }>(
      `select id, kind, locale from document_snapshots where booking_id = $1 order by created_at`,
      [bookingId],
    );

  beforeAll(async () => {
    const corridor = await createCorridor(app.db);
    trip = journeyTripOf(corridor);
    traveller = await app.signIn();
    const driver = await staffSession(app.db, app.config, corridor.company.id, 'DRIVER');
    await assignDriver(app.db, trip.id, driver.staffUserId);
    driverToken = driver.token;
  });

  // Each locale with names in its own script (and a Latin one in the Arabic document).
  const NAMES = { en: ['Rami Haddad', 'Lina Haddad'], ar: ['Rami Haddad', 'ليلى الخطيب'] } as const;

  for (const locale of ['en', 'ar'] as const) {
    it(`prints the confirmation (${locale}) with every traveller, seat and one QR per traveller the driver app verifies`, async () => {
      const rows = await confirmedBooking([...NAMES[locale]]);
      const response = await download(rows.bookingId, 'confirmation', locale);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      const [booking] = await app.db.query<{ booking_code: string }>(
        `select booking_code from bookings where id = $1`,
        [rows.bookingId],
      );
      expect(response.headers.get('content-disposition')).toContain(
        `inline; filename="booking-${booking!.booking_code}-confirmation-${locale}.pdf"`,
      );

      const text = pdfText(response.bytes);
      for (const name of NAMES[locale]) expect(text).toContain(name);
      expect(text).toContain('1A');
      expect(text).toContain('2A');

      const codes = decodeQrCodes(response.bytes);
      expect(codes).toHaveLength(2);
      const keys = await app.request('/driver/api/keys');
      const published = keys.body.data.keys.map((key: any) => key.keyId);
      const scanned = [];
      for (const code of codes) {
        expect(published).toContain(JSON.parse(code).payload.keyId);
        scanned.push(await scanAtDoor(code));
      }
      expect(scanned.every((verdict) => verdict.valid)).toBe(true);
      expect(scanned.map((verdict) => verdict.ticket.ticketId).sort()).toEqual([...rows.ticketIds].sort());
    });

    it(`prints the ticket (${locale}): every ticket with its seat and its own QR`, async () => {
      const rows = await confirmedBooking(['Omar Saleh', 'Huda Saleh', 'Sami Saleh']);
      const response = await download(rows.bookingId, 'ticket', locale);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(pdfPageCount(response.bytes)).toBeGreaterThanOrEqual(1);
      const text = pdfText(response.bytes);
      for (const name of ['Omar Saleh', 'Huda Saleh', 'Sami Saleh']) expect(text).toContain(name);
      for (const seat of ['1A', '2A', '3A']) expect(text).toContain(seat);
      const codes = decodeQrCodes(response.bytes);
      expect(codes.map((code) => JSON.parse(code).payload.ticketId).sort()).toEqual(
        [...rows.ticketIds].sort(),
      );
      for (const code of codes) expect((await scanAtDoor(code)).valid).toBe(true);
      const [snapshot] = await snapshotsOf(rows.bookingId);
      expect(snapshot).toMatchObject({ kind: 'TICKET', locale });
    });

    it(`prints the ticket (${locale}) one page per ticket: each page its traveller, seat and QR, no blank page`, async () => {
      const names = ['Omar Saleh', 'Huda Saleh', 'Sami Saleh'];
      const rows = await confirmedBooking(names);
      const response = await download(rows.bookingId, 'ticket', locale);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(pdfPageCount(response.bytes)).toBe(3);
      const pages = pdfPageTexts(response.bytes);
      const codes = decodeQrCodesByPage(response.bytes);
      const travellerOf = (code: string) => JSON.parse(code).payload as { ticketId: string };
      expect(codes.map((page) => page.length)).toEqual([1, 1, 1]);
      expect(codes.map(([code]) => travellerOf(code!).ticketId).sort()).toEqual([...rows.ticketIds].sort());
      pages.forEach((text, index) => {
        // Each page is a whole ticket: the booking, the trip, and only its own traveller and seat.
        expect(text).toContain(names[index]);
        expect(text).toContain(`${index + 1}A`);
        for (const other of names.filter((_, at) => at !== index)) expect(text).not.toContain(other);
        expect(text).toContain(locale === 'ar' ? 'تذكرة سفر' : 'Ticket');
      });
    });
  }

  it('serves the same bytes twice, with the checksum recorded before they were sent and each download logged', async () => {
    const rows = await confirmedBooking(['Rami Haddad']);
    const first = await download(rows.bookingId, 'confirmation', 'en');
    const second = await download(rows.bookingId, 'confirmation', 'en');
    expect(Buffer.compare(Buffer.from(first.bytes), Buffer.from(second.bytes))).toBe(0);
    const snapshots = await snapshotsOf(rows.bookingId);
    expect(snapshots).toHaveLength(1);
    const sha256 = createHash('sha256').update(first.bytes).digest('hex');
    const [render] = await app.db.query<{ sha256: string; size: number }>(
      `select sha256, size from document_renders where snapshot_id = $1`,
      [snapshots[0]!.id],
    );
    expect(render).toEqual({ sha256, size: first.bytes.byteLength });
    const log = await app.db.query<{ actor_kind: string; actor_id: string; sha256: string }>(
      `select actor_kind, actor_id, sha256 from document_access_log where snapshot_id = $1`,
      [snapshots[0]!.id],
    );
    expect(log).toEqual([
      { actor_kind: 'TRAVELLER', actor_id: traveller.userId, sha256 },
      { actor_kind: 'TRAVELLER', actor_id: traveller.userId, sha256 },
    ]);
  });

  it('issues a new snapshot with the new credential after the ticket was re-issued; the old QR no longer boards', async () => {
    const rows = await confirmedBooking(['Rami Haddad']);
    const before = await download(rows.bookingId, 'confirmation', 'en');
    const [oldCode] = decodeQrCodes(before.bytes);
    const reissued = await app.request('/api/tickets', {
      method: 'POST',
      headers: bearer(traveller),
      json: { ticket_id: rows.ticketIds[0], reason: 'CREDENTIAL_LEAKED' },
    });
    expect(reissued.status, reissued.text).toBe(201);

    const after = await download(rows.bookingId, 'confirmation', 'en');
    expect(after.status).toBe(200);
    const [newCode] = decodeQrCodes(after.bytes);
    expect(newCode).toBe(reissued.body.data.ticket.qr_text);
    expect(await snapshotsOf(rows.bookingId)).toHaveLength(2);
    expect((await scanAtDoor(newCode!)).valid).toBe(true);
    expect(await scanAtDoor(oldCode!)).toMatchObject({ valid: false, reason: 'REVOKED' });
  });

  it('finds the booking by its journey id too', async () => {
    const rows = await confirmedBooking(['Rami Haddad']);
    const response = await download(rows.journeyId, 'confirmation', 'en');
    expect(response.status).toBe(200);
    expect((await snapshotsOf(rows.bookingId)).length).toBe(1);
  });

  it("answers 404 for another traveller's booking and writes no snapshot", async () => {
    const rows = await confirmedBooking(['Rami Haddad']);
    const stranger = await app.signIn();
    const response = await download(rows.bookingId, 'confirmation', 'en', stranger);
    expect([response.status, response.body?.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await snapshotsOf(rows.bookingId)).toEqual([]);
    const anonymous = await fetch(`${app.baseUrl}/api/bookings/${rows.bookingId}/document?type=ticket`);
    expect(anonymous.status).toBe(401);
  });

  it('gives no PDF and no QR while the journey awaits the company (REQUESTED)', async () => {
    const requested = await createJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip,
      travellers: ['Waiting Person'],
      requestDeadline: new Date(Date.now() + 3_600_000),
    });
    for (const type of ['ticket', 'confirmation']) {
      const response = await download(requested.bookingId, type, 'en');
      expect([response.status, response.body?.errorCode]).toEqual([409, 'BOOKING_NOT_CONFIRMED']);
    }
    expect(await snapshotsOf(requested.bookingId)).toEqual([]);
  });

  it('refuses bad input with 400 and writes nothing', async () => {
    const rows = await confirmedBooking(['Rami Haddad']);
    for (const query of ['type=boarding', 'type=ticket&locale=fr', 'locale=en']) {
      const response = await app.request(`/api/bookings/${rows.bookingId}/document?${query}`, {
        headers: bearer(traveller),
      });
      expect([response.status, response.body.errorCode]).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect(await snapshotsOf(rows.bookingId)).toEqual([]);
  });

  it('a HEAD sends no bytes: 405 (Allow: GET), nothing rendered or logged, for the document and the receipt', async () => {
    const rows = await confirmedBooking(['Rami Haddad']);
    for (const path of ['document?type=confirmation&locale=en', 'receipt?locale=en']) {
      const head = await app.request(`/api/bookings/${rows.bookingId}/${path}`, {
        method: 'HEAD',
        headers: bearer(traveller),
      });
      expect([head.status, head.headers.get('allow')], path).toEqual([405, 'GET']);
    }
    expect(await snapshotsOf(rows.bookingId)).toEqual([]);
  });

  it("still lists every traveller on the confirmation once one checked in: the boarded one without a QR, the ticket prints only the others'", async () => {
    const rows = await confirmedBooking(['Rami Haddad', 'Lina Haddad']);
    // Rami boarded: his credential is consumed (USED); Lina has not boarded yet.
    await app.db.query(
      `update journey_tickets set status = 'USED', attendance = 'CHECKED_IN', attendance_at = now() where id = $1`,
      [rows.ticketIds[0]],
    );

    const confirmation = await download(rows.bookingId, 'confirmation', 'en');
    expect(confirmation.status, JSON.stringify(confirmation.body)).toBe(200);
    const text = pdfText(confirmation.bytes);
    for (const name of ['Rami Haddad', 'Lina Haddad']) expect(text).toContain(name);
    const codes = decodeQrCodes(confirmation.bytes);
    expect(codes.map((code) => JSON.parse(code).payload.ticketId)).toEqual([rows.ticketIds[1]]);
    const [snapshot] = await app.db.query<{ data: { travellers: Record<string, unknown>[] } }>(
      `select data from document_snapshots where booking_id = $1 and kind = 'BOOKING_CONFIRMATION'`,
      [rows.bookingId],
    );
    expect(snapshot!.data.travellers).toEqual([
      { name: 'Rami Haddad', seat_number: '1A', leg: 1 },
      { name: 'Lina Haddad', seat_number: '2A', leg: 1, credential: codes[0] },
    ]);

    const ticket = await download(rows.bookingId, 'ticket', 'en');
    expect(ticket.status, JSON.stringify(ticket.body)).toBe(200);
    expect(pdfText(ticket.bytes)).not.toContain('Rami Haddad');
    expect(decodeQrCodes(ticket.bytes).map((code) => JSON.parse(code).payload.ticketId)).toEqual([
      rows.ticketIds[1],
    ]);
  });

  describe('410 DOCUMENT_GONE for an expired or consumed QR', () => {
    async function expectGone(bookingId: string) {
      for (const type of ['ticket', 'confirmation']) {
        const response = await download(bookingId, type, 'en');
        expect([response.status, response.body?.errorCode]).toEqual([410, 'DOCUMENT_GONE']);
      }
      expect(await snapshotsOf(bookingId)).toEqual([]);
    }

    it('once the trip has departed, completed or been cancelled', async () => {
      for (const status of ['DEPARTED', 'COMPLETED', 'CANCELLED']) {
        const ownTrip = journeyTripOf(await createCorridor(app.db));
        const rows = await confirmedBooking(['Rami Haddad'], ownTrip);
        await app.db.query(`update trips set status = $2 where id = $1`, [ownTrip.id, status]);
        await expectGone(rows.bookingId);
      }
    });

    it('once the booking was cancelled', async () => {
      const rows = await confirmedBooking(['Rami Haddad']);
      await app.db.query(`update journeys set status = 'CANCELLED', closed_at = now() where id = $1`, [
        rows.journeyId,
      ]);
      await app.db.query(`update bookings set status = 'CANCELLED' where id = $1`, [rows.bookingId]);
      await app.db.query(
        `update journey_tickets set status = 'CANCELLED', boarding_authorized = false where journey_id = $1`,
        [rows.journeyId],
      );
      await expectGone(rows.bookingId);
    });

    it('once the ticket was used at boarding', async () => {
      const rows = await confirmedBooking(['Rami Haddad']);
      await app.db.query(`update journey_tickets set status = 'USED' where journey_id = $1`, [
        rows.journeyId,
      ]);
      await expectGone(rows.bookingId);
    });
  });

  describe('a delayed trip, and a traveller boarding after the first stop', () => {
    /** Both boarding documents answer `status` (with `errorCode` when refused). */
    async function expectDocuments(bookingId: string, expected: [number, string?]) {
      for (const type of ['ticket', 'confirmation']) {
        const response = await download(bookingId, type, 'en');
        const answer = response.status === 200 ? [200] : [response.status, response.body?.errorCode];
        expect(answer, `${type}: ${JSON.stringify(response.body)}`).toEqual(expected);
      }
    }

    const snapshotCount = async (bookingId: string) => (await snapshotsOf(bookingId)).length;

    it('a DELAYED trip keeps its documents past the planned arrival, until the arrival plus the delay has passed', async () => {
      const ownTrip = journeyTripOf(await createCorridor(app.db));
      const rows = await confirmedBooking(['Rami Haddad'], ownTrip);
      await app.db.query(`update trips set status = 'DELAYED', delay_minutes = 1440 where id = $1`, [
        ownTrip.id,
      ]);
      // Planned to leave 4 hours ago, so to arrive (220 minutes later) 20 minutes ago; announced a day late.
      await firstCallDueAgo(app.db, ownTrip.id, 240);
      await expectDocuments(rows.bookingId, [200]);

      // A day later the planned arrival plus the delay lies 20 minutes back too.
      await firstCallDueAgo(app.db, ownTrip.id, 240 + 1440);
      const issued = await snapshotCount(rows.bookingId);
      await expectDocuments(rows.bookingId, [410, 'DOCUMENT_GONE']);
      expect(await snapshotCount(rows.bookingId)).toBe(issued);
    });

    it('after the bus leaves its first stop, a traveller boarding at a later stop keeps the documents until the bus leaves theirs', async () => {
      const ownTrip = journeyTripOf(await createCorridor(app.db));
      const fromFirst = await confirmedBooking(['Rami Haddad'], ownTrip);
      // Boards at the origin's parking point, due to leave 25 minutes after the first stop.
      const later = { ...ownTrip, stopCallIds: ownTrip.stopCallIds.slice(1) };
      const fromSecond = await confirmedBooking(['Lina Haddad'], later);

      // The bus left its first stop on time 10 minutes ago.
      await firstCallDueAgo(app.db, ownTrip.id, 10);
      await app.db.query(
        `update trips set status = 'DEPARTED', actual_departure_at = now() - interval '10 minutes' where id = $1`,
        [ownTrip.id],
      );
      await expectDocuments(fromFirst.bookingId, [410, 'DOCUMENT_GONE']);
      await expectDocuments(fromSecond.bookingId, [200]);

      // 20 minutes on, the bus has left the parking point too (on time).
      await firstCallDueAgo(app.db, ownTrip.id, 30);
      await app.db.query(
        `update trips set actual_departure_at = now() - interval '30 minutes' where id = $1`,
        [ownTrip.id],
      );
      const issued = await snapshotCount(fromSecond.bookingId);
      await expectDocuments(fromSecond.bookingId, [410, 'DOCUMENT_GONE']);
      expect(await snapshotCount(fromSecond.bookingId)).toBe(issued);
    });

    it('a traveller boarding at a later stop counts the trip running late: its announced delay or its late departure', async () => {
      for (const late of [
        { delayMinutes: 60, leftMinutesAgo: 50 },
        { delayMinutes: 0, leftMinutesAgo: 10 },
      ]) {
        const ownTrip = journeyTripOf(await createCorridor(app.db));
        const rows = await confirmedBooking(['Lina Haddad'], {
          ...ownTrip,
          stopCallIds: ownTrip.stopCallIds.slice(1),
        });
        // Planned to leave its first stop 50 minutes ago, its second 25 minutes ago.
        await firstCallDueAgo(app.db, ownTrip.id, 50);
        await app.db.query(
          `update trips set status = 'DEPARTED', delay_minutes = $2, actual_departure_at = now() - $3::int * interval '1 minute'
            where id = $1`,
          [ownTrip.id, late.delayMinutes, late.leftMinutesAgo],
        );
        await expectDocuments(rows.bookingId, [200]);
      }
    });
  });
});
