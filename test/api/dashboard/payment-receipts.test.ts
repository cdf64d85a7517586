import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fetchDocument } from '../../support/documents.js';
import {
  collectedPayment,
  financeWorld,
  openShift,
  paymentAction,
  pendingPayment,
  type FinanceWorld,
  type Session,
} from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { pdfText } from '../../support/pdf.js';

const RECEIPT_NUMBER = /RCP-\d{4}-\d{6}/;
const REFUND_NUMBER = /RFD-\d{4}-\d{6}/;

describe('GET /dashboard/api/payments/receipts/{source}/{id}', () => {
  const app = useTestApp();
  let world: FinanceWorld;

  const receipt = (session: Session, source: string, id: string, locale = 'en') =>
    fetchDocument(app, `/dashboard/api/payments/receipts/${source}/${id}?locale=${locale}`, {
      Cookie: session.cookie,
    });
  const numbersOf = (bookingId: string) =>
    app.db.query<{ kind: string; number: string; payment_id: string }>(
      `select kind, number, payment_id from receipts where booking_id = $1 order by issued_at`,
      [bookingId],
    );

  beforeAll(async () => {
    world = await financeWorld(app);
  });

  it('gives the receipt of each source under a fixed number, checksum recorded before the bytes go', async () => {
    const driver = await collectedPayment(app, world, 'driver');
    const office = await collectedPayment(app, world, 'office');
    await openShift(app, world.staff.OWNER, 0);
    const announced = await pendingPayment(app, world);
    expect((await paymentAction(app, world.staff.OWNER, announced.paymentId, 'verify')).status).toBe(200);

    for (const [source, record] of [
      ['driver', driver],
      ['office', office],
      ['transaction', announced],
    ] as const) {
      const first = await receipt(world.staff.ACCOUNTANT, source, record.paymentId);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.headers.get('content-type')).toBe('application/pdf');
      expect(first.headers.get('cache-control')).toBe('private, no-store');
      const text = pdfText(first.bytes);
      const number = RECEIPT_NUMBER.exec(text)?.[0];
      expect(number).toBeDefined();
      expect(text).toContain(record.bookingCode);
      const sha256 = createHash('sha256').update(first.bytes).digest('hex');
      const logged = await app.db.query(
        `select l.actor_kind, l.actor_id from document_access_log l join document_snapshots s on s.id = l.snapshot_id
          where s.booking_id = $1 and l.sha256 = $2`,
        [record.bookingId, sha256],
      );
      expect(logged).toEqual([{ actor_kind: 'STAFF', actor_id: world.staff.ACCOUNTANT.staffUserId }]);
      const again = await receipt(world.staff.OWNER, source, record.paymentId);
      expect(Buffer.compare(Buffer.from(first.bytes), Buffer.from(again.bytes))).toBe(0);
      expect(await numbersOf(record.bookingId)).toEqual([
        { kind: 'PAYMENT_RECEIPT', number, payment_id: record.paymentId },
      ]);
    }

    // source booking: the booking's payment fact, the same receipt number the traveller gets.
    const byBooking = await receipt(world.staff.ADMIN, 'booking', driver.bookingId);
    expect(byBooking.status).toBe(200);
    expect(pdfText(byBooking.bytes)).toContain((await numbersOf(driver.bookingId))[0]!.number);
    expect(await numbersOf(driver.bookingId)).toHaveLength(1);
  });

  it('a HEAD sends no bytes: 405 (Allow: GET), no receipt number issued, nothing rendered or logged', async () => {
    const office = await collectedPayment(app, world, 'office');
    const head = await app.request(`/dashboard/api/payments/receipts/office/${office.paymentId}?locale=en`, {
      method: 'HEAD',
      headers: { Cookie: world.staff.ACCOUNTANT.cookie },
    });
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET']);
    expect(await numbersOf(office.bookingId)).toEqual([]);
    const snapshots = await app.db.query(`select id from document_snapshots where booking_id = $1`, [
      office.bookingId,
    ]);
    expect(snapshots).toEqual([]);
  });

  it('turns into a distinct refund notice once refunded; the receipt keeps its number and bytes', async () => {
    const own = await financeWorld(app);
    await openShift(app, own.staff.OWNER, 0);
    const payment = await pendingPayment(app, own);
    expect((await paymentAction(app, own.staff.OWNER, payment.paymentId, 'verify')).status).toBe(200);
    const issued = await receipt(own.staff.OWNER, 'transaction', payment.paymentId, 'ar');
    const receiptNumber = RECEIPT_NUMBER.exec(pdfText(issued.bytes))?.[0];
    expect((await paymentAction(app, own.staff.OWNER, payment.paymentId, 'refund')).status).toBe(200);

    const notice = await receipt(own.staff.OWNER, 'transaction', payment.paymentId, 'ar');
    expect(notice.status).toBe(200);
    expect(notice.headers.get('content-disposition')).toContain('-refund-');
    const refundNumber = REFUND_NUMBER.exec(pdfText(notice.bytes))?.[0];
    expect(refundNumber).toBeDefined();
    expect((await numbersOf(payment.bookingId)).map((row) => [row.kind, row.number])).toEqual([
      ['PAYMENT_RECEIPT', receiptNumber],
      ['REFUND_NOTICE', refundNumber],
    ]);
    const snapshots = await app.db.query<{ kind: string; number: string }>(
      `select kind, number from document_snapshots where booking_id = $1 order by created_at`,
      [payment.bookingId],
    );
    expect(snapshots).toEqual([
      { kind: 'PAYMENT_RECEIPT', number: receiptNumber },
      { kind: 'REFUND_NOTICE', number: refundNumber },
    ]);
  });

  it('a receipt read in the other language is the one issued: same number, the company as it was at issue', async () => {
    const own = await financeWorld(app);
    await app.db.query(`update companies set phone = '+963114440003' where id = $1`, [own.companyId]);
    const collected = await collectedPayment(app, own, 'office');
    const arabic = await receipt(own.staff.ACCOUNTANT, 'office', collected.paymentId, 'ar');
    expect(arabic.status, JSON.stringify(arabic.body)).toBe(200);
    const number = RECEIPT_NUMBER.exec(pdfText(arabic.bytes))?.[0];
    expect(number).toBeDefined();

    await app.db.query(
      `update companies set name_en = name_en || ' Renamed', phone = '+963114449997' where id = $1`,
      [own.companyId],
    );
    const english = await receipt(own.staff.OWNER, 'office', collected.paymentId, 'en');
    expect(english.status, JSON.stringify(english.body)).toBe(200);
    const text = pdfText(english.bytes);
    expect(RECEIPT_NUMBER.exec(text)?.[0]).toBe(number);
    expect(text).toContain('+963114440003');
    expect(text).not.toContain('+963114449997');
    expect(text).not.toContain('Renamed');
    expect(await numbersOf(collected.bookingId)).toEqual([
      { kind: 'PAYMENT_RECEIPT', number, payment_id: collected.paymentId },
    ]);
  });

  it('has no receipt for an incomplete record, and none for another company or another source', async () => {
    const pending = await pendingPayment(app, world);
    const incomplete = await receipt(world.staff.OWNER, 'transaction', pending.paymentId);
    expect([incomplete.status, incomplete.body?.errorCode]).toEqual([409, 'PAYMENT_NOT_COLLECTED']);
    const unpaid = await receipt(world.staff.OWNER, 'booking', pending.bookingId);
    expect([unpaid.status, unpaid.body?.errorCode]).toEqual([409, 'PAYMENT_NOT_COLLECTED']);

    const collected = await collectedPayment(app, world, 'driver');
    const wrongSource = await receipt(world.staff.OWNER, 'office', collected.paymentId);
    expect(wrongSource.status).toBe(404);
    const stranger = await financeWorld(app);
    for (const [source, id] of [
      ['driver', collected.paymentId],
      ['booking', collected.bookingId],
      ['transaction', randomUUID()],
    ] as const) {
      const foreign = await receipt(stranger.staff.OWNER, source, id);
      expect([foreign.status, foreign.body?.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
    }
    expect(await numbersOf(collected.bookingId)).toEqual([]);
    expect(await numbersOf(pending.bookingId)).toEqual([]);
  });

  it('needs a financial role, and refuses bad sources and locales', async () => {
    const collected = await collectedPayment(app, world, 'office');
    for (const role of ['DISPATCHER', 'STAFF'] as const) {
      const refused = await receipt(world.staff[role], 'office', collected.paymentId);
      expect([refused.status, refused.body?.errorCode]).toEqual([403, 'ROLE_NOT_ALLOWED']);
    }
    const badSource = await receipt(world.staff.OWNER, 'cash', collected.paymentId);
    const badLocale = await receipt(world.staff.OWNER, 'office', collected.paymentId, 'fr');
    const badId = await receipt(world.staff.OWNER, 'office', 'x');
    expect([badSource.status, badLocale.status, badId.status]).toEqual([400, 400, 400]);
    expect(await numbersOf(collected.bookingId)).toEqual([]);
  });
});
