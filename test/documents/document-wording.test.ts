import { describe, expect, it } from 'vitest';
import { acceptShare, createShare, NO_SHARE_IP_LIMIT, sharedDocument } from '../support/document-shares.js';
import { fetchDocument } from '../support/documents.js';
import { createCorridor } from '../support/factories.js';
import { financeWorld, openShift, paymentAction } from '../support/finance.js';
import { useTestApp } from '../support/harness.js';
import { confirmedJourneyRows, journeyTripOf, staffSession } from '../support/journey-rows.js';
import { mobileTraveller, type Caller } from '../support/journeys.js';
import { dispatch } from '../support/operations.js';
import { pdfText } from '../support/pdf.js';

/**
 * The words a traveller reads on the documents of a booking's life, read back from the PDFs the
 * API serves: who took the cash on a receipt, and why a booking ended on its cancellation
 * confirmation, in the document's language rather than as the ledger's or the journey's code.
 */
describe('document wording through a booking’s life', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);

  async function receiptText(bookingId: string, caller: Caller, locale: 'ar' | 'en') {
    const receipt = await fetchDocument(
      app,
      `/api/bookings/${bookingId}/receipt?locale=${locale}`,
      caller.headers,
    );
    expect(receipt.status, JSON.stringify(receipt.body)).toBe(200);
    return pdfText(receipt.bytes);
  }

  async function sharedText(caller: Caller, bookingId: string, kind: string, locale: 'ar' | 'en') {
    const share = await createShare(app, caller.headers, {
      bookingId,
      documentKind: kind,
      presentation: 'VIEW',
    });
    expect(share.response.status, share.response.text).toBe(201);
    const accepted = await acceptShare(app, share.grantId, share.secret);
    expect(accepted.response.status, accepted.response.text).toBe(200);
    const pdf = await sharedDocument(app, share.grantId, accepted.cookie, 'view', locale);
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
    return pdfText(pdf.bytes);
  }

  it('the receipt of cash the traveller announced and the office took names the office, not an online transaction', async () => {
    const world = await financeWorld(app);
    const traveller = await mobileTraveller(app);
    const rows = await confirmedJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip: world.trip,
      travellers: ['رامي حداد'],
    });
    const announced = await app.request('/api/payments/create', {
      method: 'POST',
      headers: traveller.headers,
      json: { booking_id: rows.bookingId, method: 'CASH' },
    });
    expect(announced.status, announced.text).toBe(201);
    await openShift(app, world.staff.OWNER, 0);
    const verified = await paymentAction(
      app,
      world.staff.ACCOUNTANT,
      announced.body.data.payment.id,
      'verify',
    );
    expect(verified.status, verified.text).toBe(200);

    const english = await receiptText(rows.bookingId, traveller, 'en');
    const arabic = await receiptText(rows.bookingId, traveller, 'ar');
    expect(english).toMatch(/Method\s+Cash/);
    expect(english).toMatch(/Recorded by\s+Office \(announced by the traveller\)/);
    expect(english).not.toContain('Online');
    expect(arabic).toContain('نقد');
    expect(arabic).toContain('المكتب بعد إعلان المسافر');
    expect(arabic).not.toContain('إلكترونية');
  });

  it('the cancellation confirmation of a booking whose trip the company cancelled says so in words', async () => {
    const corridor = await createCorridor(app.db);
    const caller = await mobileTraveller(app);
    const rows = await confirmedJourneyRows(app.db, {
      ownerUserId: caller.userId,
      trip: journeyTripOf(corridor),
      travellers: ['رامي حداد'],
    });
    const owner = await staffSession(app.db, app.config, corridor.company.id, 'OWNER');
    const cancelled = await dispatch(app, owner, corridor.trip.id, {
      action: 'CANCEL',
      reason: 'Bus broke down',
    });
    expect(cancelled.status, cancelled.text).toBe(200);

    const arabic = await sharedText(caller, rows.bookingId, 'CANCELLATION_CONFIRMATION', 'ar');
    const english = await sharedText(caller, rows.bookingId, 'CANCELLATION_CONFIRMATION', 'en');
    expect(arabic).toContain('السبب');
    expect(arabic).toContain('ألغت الشركة الرحلة');
    expect(english).toMatch(/Reason\s+The company cancelled the trip/);
    expect(`${arabic}\n${english}`).not.toContain('TRIP_CANCELLED');
  });
});
