import { describe, expect, it } from 'vitest';
import { collectedPayment, financeWorld, pendingPayment } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';

const LEDGER = '/dashboard/api/payments';

/**
 * The ledger's search as an accountant types it: a traveller's phone number in any form the
 * platform reads as that number (domain/phone.ts normalisePhone: the local 09… form, with spaces,
 * +963 or 00963) finds their lines, as the stored international form does.
 */
describe('GET /dashboard/api/payments?search=: a phone number as typed', () => {
  const app = useTestApp();

  it("finds a traveller's lines by their phone in the local, spaced or international form, and only theirs", async () => {
    const world = await financeWorld(app);
    const pending = await pendingPayment(app, world);
    const collected = await collectedPayment(app, world, 'driver');
    const other = await collectedPayment(app, world, 'office');
    // The fixture's bookings are Rami's, +963944000000; the third one is someone else's.
    await app.db.query(`update bookings set passenger_phone = '+963933123456' where id = $1`, [
      other.bookingId,
    ]);
    const ledger = (search: string) =>
      app.request(`${LEDGER}?search=${encodeURIComponent(search)}`, {
        headers: { Cookie: world.staff.ACCOUNTANT.cookie },
      });
    const ramis = [collected.paymentId, pending.paymentId].sort();

    for (const typed of [
      '+963944000000',
      '0944000000',
      '0944 000 000',
      '0944-000-000',
      '00963 944 000 000',
    ]) {
      const answer = await ledger(typed);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data.map((line: { id: string }) => line.id).sort(), typed).toEqual(ramis);
      expect(answer.body.pagination.total, typed).toBe(2);
      expect(answer.body.statistics.count, typed).toBe(2);
    }
    const theirs = await ledger('0933 123 456');
    expect(theirs.body.data.map((line: { id: string }) => line.id)).toEqual([other.paymentId]);

    // Another number in the local form finds nothing; the other matches stay as they were.
    const nobody = await ledger('0944 000 001');
    expect(nobody.status, nobody.text).toBe(200);
    expect(nobody.body.pagination.total).toBe(0);
    const byPart = await ledger('44000');
    expect(byPart.body.data.map((line: { id: string }) => line.id).sort()).toEqual(ramis);
    const byCode = await ledger(collected.bookingCode.slice(0, 6).toLowerCase());
    expect(byCode.body.data.map((line: { id: string }) => line.id)).toContain(collected.paymentId);
    const byName = await ledger('rami');
    expect(byName.body.pagination.total).toBe(3);

    // Another company's accountant does not find Rami's lines by his number.
    const elsewhere = await financeWorld(app);
    const foreign = await app.request(`${LEDGER}?search=0944000000`, {
      headers: { Cookie: elsewhere.staff.ACCOUNTANT.cookie },
    });
    expect(foreign.status, foreign.text).toBe(200);
    expect(foreign.body.pagination.total).toBe(0);
  });
});

/**
 * The ledger's search finds a passenger's name as people type it (README "Network": names match
 * ignoring case, diacritics, tatweel and the letters names write one for the other): احمد for
 * أحمد, ابراهيم for إبراهيم, الحمزه for الحمزة, مصطفي for مصطفى, with vowel marks or tatweel.
 */
describe("GET /dashboard/api/payments?search=: a passenger's name as typed", () => {
  const app = useTestApp();

  it('finds "أحمد إبراهيم الحمزة مصطفى" typed without hamza seats, with ه for ة, ي for ى, harakat or tatweel, and only his lines', async () => {
    const world = await financeWorld(app);
    const his = await collectedPayment(app, world, 'office');
    const other = await collectedPayment(app, world, 'driver');
    await app.db.query(`update bookings set passenger_name = 'أحمد إبراهيم الحمزة مصطفى' where id = $1`, [
      his.bookingId,
    ]);
    await app.db.query(`update bookings set passenger_name = 'محمود الحمصي' where id = $1`, [
      other.bookingId,
    ]);
    const ledger = async (search: string) => {
      const answer = await app.request(`${LEDGER}?search=${encodeURIComponent(search)}`, {
        headers: { Cookie: world.staff.ACCOUNTANT.cookie },
      });
      expect(answer.status, answer.text).toBe(200);
      return {
        ids: answer.body.data.map((line: { id: string }) => line.id),
        total: answer.body.pagination.total,
        counted: answer.body.statistics.count,
      };
    };

    const found: Record<string, unknown> = {};
    for (const typed of [
      'أحمد',
      'احمد',
      'ابراهيم',
      'الحمزه',
      'مصطفي',
      'أَحْمَد',
      'أحـمد',
      'احمد  ابراهيم',
      'إبراهيم الحمزة',
    ]) {
      found[typed] = await ledger(typed);
    }
    const onlyHis = { ids: [his.paymentId], total: 1, counted: 1 };
    expect(found).toEqual({
      أحمد: onlyHis,
      احمد: onlyHis,
      ابراهيم: onlyHis,
      الحمزه: onlyHis,
      مصطفي: onlyHis,
      أَحْمَد: onlyHis,
      أحـمد: onlyHis,
      'احمد  ابراهيم': onlyHis,
      'إبراهيم الحمزة': onlyHis,
    });

    // A Latin name still matches in any case; a wildcard typed (also full-width) matches itself only,
    // and vowel marks alone are no name at all.
    await app.db.query(`update bookings set passenger_name = 'Ahmad Ibrahim' where id = $1`, [
      other.bookingId,
    ]);
    expect(await ledger('AHMAD ibr')).toEqual({ ids: [other.paymentId], total: 1, counted: 1 });
    for (const typed of ['%', '_', '％', '＿', 'أحم_', '\u064e']) {
      expect(await ledger(typed), typed).toEqual({ ids: [], total: 0, counted: 0 });
    }
    // Another company's accountant does not find him.
    const elsewhere = await financeWorld(app);
    const foreign = await app.request(`${LEDGER}?search=${encodeURIComponent('احمد')}`, {
      headers: { Cookie: elsewhere.staff.ACCOUNTANT.cookie },
    });
    expect(foreign.status, foreign.text).toBe(200);
    expect(foreign.body.pagination.total).toBe(0);
  });
});
