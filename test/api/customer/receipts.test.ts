import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookableTrip, createBooking } from '../../support/bookings.js';
import { fetchDocument } from '../../support/documents.js';
import { createCompany, createCorridor } from '../../support/factories.js';
import { useTestApp, type SignedInTraveller } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf, type JourneyTrip } from '../../support/journey-rows.js';
import type { Caller } from '../../support/journeys.js';
import { legacyPassengerBooking } from '../../support/legacy-bookings.js';
import { collectCash } from '../../support/payments.js';
import { pdfLanguage, pdfText } from '../../support/pdf.js';

const RECEIPT_NUMBER = /RCP-\d{4}-\d{6}/;
const REFUND_NUMBER = /RFD-\d{4}-\d{6}/;

describe('GET /bookings/{id}/receipt: receipt only after collection, with a fixed number', () => {
  const app = useTestApp();
  let trip: JourneyTrip;
  let traveller: SignedInTraveller;

  const download = (bookingId: string, locale = 'en', who = traveller) =>
    fetchDocument(app, `/api/bookings/${bookingId}/receipt?locale=${locale}`, {
      Authorization: `Bearer ${who.token}`,
    });

  const confirmedBooking = (travellers = ['Rami Haddad'], onTrip = trip) =>
    confirmedJourneyRows(app.db, { ownerUserId: traveller.userId, trip: onTrip, travellers });

  const receiptsOf = (bookingId: string) =>
    app.db.query<{ payment_id: string; kind: string; number: string }>(
      `select payment_id, kind, number from receipts where booking_id = $1 order by issued_at`,
      [bookingId],
    );
  const snapshotsOf = (bookingId: string) =>
    app.db.query<{ id: string; kind: string; locale: string; number: string | null }>(
      `select id, kind, locale, number from document_snapshots where booking_id = $1 order by created_at`,
      [bookingId],
    );

  /** A collection record written as another source would leave it (a driver, the office, the booking fact). */
  async function insertCollection(
    bookingId: string,
    options: { source: string; collectedAt: Date; companyId?: string; amount?: number },
  ): Promise<string> {
    const [row] = await app.db.query<{ id: string }>(
      `insert into payment_operations (company_id, booking_id, method, source, amount, status, collected_at, decided_at)
       select coalesce($2, company_id), id, 'CASH', $3, $4, 'COMPLETED', $5, $5 from bookings where id = $1 returning id`,
      [bookingId, options.companyId ?? null, options.source, options.amount ?? 10_000, options.collectedAt],
    );
    return row!.id;
  }

  beforeAll(async () => {
    trip = journeyTripOf(await createCorridor(app.db));
    traveller = await app.signIn();
  });

  it('refuses a receipt before the cash is collected, then issues one whose number stays fixed', async () => {
    const caller: Caller = {
      userId: traveller.userId,
      headers: { Authorization: `Bearer ${traveller.token}` },
      channel: 'CUSTOMER_MOBILE',
    };
    const bookable = await bookableTrip(app.db);
    const booking = await createBooking(app, caller, {
      tripId: bookable.tripId,
      seatNumbers: bookable.seatNumbers.slice(0, 2),
      passengerName: 'Sami Haddad',
    });

    const early = await download(booking.id);
    expect([early.status, early.body?.errorCode]).toEqual([409, 'PAYMENT_NOT_COLLECTED']);
    expect(await receiptsOf(booking.id)).toEqual([]);
    expect(await snapshotsOf(booking.id)).toEqual([]);

    await collectCash(app.db, booking.id, { source: 'office' });
    const first = await download(booking.id, 'en');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/pdf');
    expect(first.headers.get('cache-control')).toBe('private, no-store');
    expect(first.headers.get('content-disposition')).toContain(
      `booking-${booking.booking_code}-receipt-en.pdf`,
    );
    const text = pdfText(first.bytes);
    const number = RECEIPT_NUMBER.exec(text)?.[0];
    expect(number).toBeDefined();
    expect(text).toContain(booking.booking_code);
    expect(text).toContain(booking.total_price.toLocaleString('en'));

    const second = await download(booking.id, 'en');
    expect(Buffer.compare(Buffer.from(first.bytes), Buffer.from(second.bytes))).toBe(0);
    const arabic = await download(booking.id, 'ar');
    expect(arabic.status).toBe(200);
    expect(pdfText(arabic.bytes)).toContain(number);

    expect(await receiptsOf(booking.id)).toEqual([
      expect.objectContaining({ kind: 'PAYMENT_RECEIPT', number }),
    ]);
    const snapshots = await snapshotsOf(booking.id);
    expect(snapshots.map((s) => [s.kind, s.locale, s.number])).toEqual([
      ['PAYMENT_RECEIPT', 'en', number],
      ['PAYMENT_RECEIPT', 'ar', number],
    ]);
  });

  it('numbers receipts per company in sequence', async () => {
    // A fresh company's trip, so its receipt numbers start at 000001.
    const ownTrip = journeyTripOf(await createCorridor(app.db));
    const numbers: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      const rows = await confirmedBooking(['Rami Haddad'], ownTrip);
      await collectCash(app.db, rows.bookingId);
      expect((await download(rows.bookingId)).status).toBe(200);
      numbers.push((await receiptsOf(rows.bookingId))[0]!.number);
    }
    const year = new Date().getUTCFullYear();
    expect(numbers[0]).toMatch(new RegExp(`^RCP-(${year}|${year + 1})-000001$`));
    expect(numbers[1]).toBe(numbers[0]!.replace(/000001$/, '000002'));
  });

  it('assigns one number when two first downloads race, and distinct numbers to two payments at once', async () => {
    const ownTrip = journeyTripOf(await createCorridor(app.db));
    const one = await confirmedBooking(['Rami Haddad'], ownTrip);
    const two = await confirmedBooking(['Lina Haddad'], ownTrip);
    await collectCash(app.db, one.bookingId);
    await collectCash(app.db, two.bookingId);
    const answers = await Promise.all([
      download(one.bookingId),
      download(one.bookingId),
      download(two.bookingId),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const numbers = [...(await receiptsOf(one.bookingId)), ...(await receiptsOf(two.bookingId))].map(
      (r) => r.number,
    );
    expect(numbers).toHaveLength(2);
    expect(numbers.map((number) => number.slice(-6)).sort()).toEqual(['000001', '000002']);
  });

  it('uses the most reliable collection record: the driver’s before the booking fact, whatever is newer', async () => {
    const rows = await confirmedBooking();
    const driver = await insertCollection(rows.bookingId, {
      source: 'driver',
      collectedAt: new Date(Date.now() - 3_600_000),
      amount: 10_000,
    });
    await insertCollection(rows.bookingId, { source: 'booking', collectedAt: new Date(), amount: 9_999 });
    const response = await download(rows.bookingId);
    expect(response.status).toBe(200);
    expect(await receiptsOf(rows.bookingId)).toEqual([expect.objectContaining({ payment_id: driver })]);
    const [snapshot] = await app.db.query<{ data: any }>(
      `select data from document_snapshots where booking_id = $1`,
      [rows.bookingId],
    );
    expect(snapshot!.data.payment).toMatchObject({ source: 'driver', amount: 10_000 });
  });

  it('never uses a collection record of another company', async () => {
    const rows = await confirmedBooking();
    const stranger = await createCompany(app.db);
    await insertCollection(rows.bookingId, {
      source: 'office',
      collectedAt: new Date(),
      companyId: stranger.id,
    });
    const response = await download(rows.bookingId);
    expect([response.status, response.body?.errorCode]).toEqual([409, 'PAYMENT_NOT_COLLECTED']);
    expect(await receiptsOf(rows.bookingId)).toEqual([]);
  });

  it('gives the refund notice, with its own RFD number, once the payment was refunded', async () => {
    const rows = await confirmedBooking();
    const collection = await collectCash(app.db, rows.bookingId);
    const receipt = await download(rows.bookingId);
    const receiptNumber = RECEIPT_NUMBER.exec(pdfText(receipt.bytes))?.[0];
    await app.db.query(
      `update payment_operations set status = 'REFUNDED', refunded_at = now() where id = $1`,
      [collection.paymentId],
    );
    await app.db.query(`update bookings set payment_status = 'REFUNDED' where id = $1`, [rows.bookingId]);

    const refund = await download(rows.bookingId);
    expect(refund.status).toBe(200);
    expect(refund.headers.get('content-disposition')).toContain('-refund-en.pdf');
    const refundNumber = REFUND_NUMBER.exec(pdfText(refund.bytes))?.[0];
    expect(refundNumber).toBeDefined();
    expect((await receiptsOf(rows.bookingId)).map((r) => [r.kind, r.number])).toEqual([
      ['PAYMENT_RECEIPT', receiptNumber],
      ['REFUND_NOTICE', refundNumber],
    ]);
  });

  it("answers 404 for another traveller's booking", async () => {
    const rows = await confirmedBooking();
    await collectCash(app.db, rows.bookingId);
    const stranger = await app.signIn();
    const response = await download(rows.bookingId, 'en', stranger);
    expect([response.status, response.body?.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
    expect(await receiptsOf(rows.bookingId)).toEqual([]);
  });

  it('issues the receipt of an imported booking to the traveller whose passenger profile it is, and to no one else', async () => {
    const bookingId = await legacyPassengerBooking(app.db, { trip, passengerId: traveller.passengerId });
    await collectCash(app.db, bookingId, { source: 'office' });
    const detail = await app.request(`/api/bookings/${bookingId}`, { token: traveller.token });
    expect([detail.status, detail.body.data?.payment_status]).toEqual([200, 'PAID']);

    const stranger = await app.signIn();
    const refused = await download(bookingId, 'en', stranger);
    expect([refused.status, refused.body?.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
    expect(await receiptsOf(bookingId)).toEqual([]);
    expect(await snapshotsOf(bookingId)).toEqual([]);

    const receipt = await download(bookingId, 'en');
    expect([receipt.status, receipt.body?.errorCode]).toEqual([200, undefined]);
    expect(receipt.headers.get('content-type')).toBe('application/pdf');
    expect((await receiptsOf(bookingId)).map((r) => r.kind)).toEqual(['PAYMENT_RECEIPT']);
  });

  it('re-renders from the stored snapshot when its bytes are missing, keeping number and snapshot', async () => {
    const rows = await confirmedBooking();
    await collectCash(app.db, rows.bookingId);
    const first = await download(rows.bookingId);
    const [snapshot] = await snapshotsOf(rows.bookingId);
    await app.db.query(`delete from document_access_log where snapshot_id = $1`, [snapshot!.id]);
    await app.db.query(`delete from document_renders where snapshot_id = $1`, [snapshot!.id]);
    // A company rename afterwards must not change an issued receipt.
    await app.db.query(`update companies set name_en = name_en || ' Renamed' where id = $1`, [
      trip.companyId,
    ]);

    const again = await download(rows.bookingId);
    expect(again.status).toBe(200);
    expect(pdfText(again.bytes)).toBe(pdfText(first.bytes));
    expect(await snapshotsOf(rows.bookingId)).toEqual([snapshot]);
    const [render] = await app.db.query(`select size from document_renders where snapshot_id = $1`, [
      snapshot!.id,
    ]);
    expect(render).toEqual({ size: again.bytes.byteLength });
    await app.db.query(`update companies set name_en = replace(name_en, ' Renamed', '') where id = $1`, [
      trip.companyId,
    ]);
  });

  describe('one issued receipt whatever the language it is read in', () => {
    /** A company of its own, so changing its name and phone touches no other test. */
    let ownTrip: JourneyTrip;
    const company = (fields: { name_ar?: string; name_en?: string; phone: string }) =>
      app.db.query(
        `update companies set name_ar = coalesce($2, name_ar), name_en = coalesce($3, name_en), phone = $4
         where id = $1`,
        [ownTrip.companyId, fields.name_ar ?? null, fields.name_en ?? null, fields.phone],
      );
    const snapshotDataOf = (bookingId: string, kind: string) =>
      app.db.query<{ locale: string; number: string; data: unknown }>(
        `select locale, number, data from document_snapshots where booking_id = $1 and kind = $2 order by created_at`,
        [bookingId, kind],
      );

    beforeAll(async () => {
      ownTrip = journeyTripOf(await createCorridor(app.db));
    });

    it('the English copy of a receipt first issued in Arabic prints the company as it was at issue, in English', async () => {
      await company({ name_en: 'Qadmous Lines', phone: '+963114440001' });
      const rows = await confirmedBooking(['Rami Haddad'], ownTrip);
      await collectCash(app.db, rows.bookingId);
      const arabic = await download(rows.bookingId, 'ar');
      expect(arabic.status, JSON.stringify(arabic.body)).toBe(200);
      const number = RECEIPT_NUMBER.exec(pdfText(arabic.bytes))?.[0];
      expect(number).toBeDefined();

      // The company is renamed and changes its phone after the receipt was issued.
      await company({ name_en: 'Qadmous Express', phone: '+963114449999' });
      const english = await download(rows.bookingId, 'en');
      expect(english.status, JSON.stringify(english.body)).toBe(200);
      const text = pdfText(english.bytes);
      expect(RECEIPT_NUMBER.exec(text)?.[0]).toBe(number);
      expect(text).toContain('Qadmous Lines');
      expect(text).toContain('+963114440001');
      expect(text).not.toContain('Qadmous Express');
      expect(text).not.toContain('+963114449999');
      // Each language is its own render of the one issued receipt, never the other's bytes.
      expect(pdfLanguage(english.bytes)).toBe('en');
      expect(pdfLanguage((await download(rows.bookingId, 'ar')).bytes)).toBe('ar');
      expect(pdfText((await download(rows.bookingId, 'en')).bytes)).toBe(text);
      const [first, second] = await snapshotDataOf(rows.bookingId, 'PAYMENT_RECEIPT');
      expect([first?.locale, second?.locale]).toEqual(['ar', 'en']);
      expect(second?.number).toBe(number);
      expect(second?.data).toEqual(first?.data);
      expect(await receiptsOf(rows.bookingId)).toHaveLength(1);
    });

    it('the Arabic copy of a refund notice first issued in English prints the company as it was at issue, in Arabic', async () => {
      await company({ name_ar: 'شركة الساحل للنقل', phone: '+963114440002' });
      const rows = await confirmedBooking(['Lina Haddad'], ownTrip);
      const collection = await collectCash(app.db, rows.bookingId);
      expect((await download(rows.bookingId, 'en')).status).toBe(200);
      await app.db.query(
        `update payment_operations set status = 'REFUNDED', refunded_at = now() where id = $1`,
        [collection.paymentId],
      );
      await app.db.query(`update bookings set payment_status = 'REFUNDED' where id = $1`, [rows.bookingId]);
      const english = await download(rows.bookingId, 'en');
      expect(english.status, JSON.stringify(english.body)).toBe(200);
      const number = REFUND_NUMBER.exec(pdfText(english.bytes))?.[0];
      expect(number).toBeDefined();

      await company({ name_ar: 'شركة الجبل للنقل', phone: '+963114449998' });
      const arabic = await download(rows.bookingId, 'ar');
      expect(arabic.status, JSON.stringify(arabic.body)).toBe(200);
      expect(arabic.headers.get('content-disposition')).toContain('-refund-ar.pdf');
      const text = pdfText(arabic.bytes);
      expect(REFUND_NUMBER.exec(text)?.[0]).toBe(number);
      expect(text).toContain('+963114440002');
      expect(text).toContain('الساحل');
      expect(text).not.toContain('الجبل');
      expect(text).not.toContain('+963114449998');
      expect(pdfLanguage(arabic.bytes)).toBe('ar');
      const [first, second] = await snapshotDataOf(rows.bookingId, 'REFUND_NOTICE');
      expect([first?.locale, second?.locale]).toEqual(['en', 'ar']);
      expect(second?.data).toEqual(first?.data);
    });
  });

  it('fails with 500 DOCUMENT_RENDER_FAILED, sending nothing, when the checksum cannot be recorded', async () => {
    const rows = await confirmedBooking();
    await collectCash(app.db, rows.bookingId);
    // The render log refuses this booking's renders (and only this booking's: tests share the database).
    const name = `refuse_render_${randomUUID().replace(/-/g, '')}`;
    await app.db.query(`create function ${name}() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from document_snapshots where id = new.snapshot_id and booking_id = '${rows.bookingId}') then
          raise exception 'render log unavailable';
        end if;
        return new;
      end $$`);
    await app.db.query(
      `create trigger ${name} before insert on document_renders for each row execute function ${name}()`,
    );
    try {
      const response = await download(rows.bookingId);
      expect([response.status, response.body?.errorCode]).toEqual([500, 'DOCUMENT_RENDER_FAILED']);
      expect(response.headers.get('content-type')).not.toContain('pdf');
      const [snapshot] = await snapshotsOf(rows.bookingId);
      const log = await app.db.query(`select 1 from document_access_log where snapshot_id = $1`, [
        snapshot!.id,
      ]);
      expect(log).toEqual([]);
    } finally {
      await app.db.query(`drop trigger ${name} on document_renders`);
      await app.db.query(`drop function ${name}()`);
    }
    const recovered = await download(rows.bookingId);
    expect(recovered.status).toBe(200);
  });
});
