import { describe, expect, it } from 'vitest';
import {
  confirmedBooking,
  financeSnapshot,
  financeWorld,
  pendingPayment,
  shiftCommand,
  type FinanceWorld,
} from '../../support/finance.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import { PROSE, UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';

/**
 * What a company's staff write in its cash book for the others to read (the shift's notes and an
 * adjustment's reason, shown in the shift and its CSV; a payment's note, in the ledger) is prose:
 * line breaks and tabs are kept, but no other control character and no bidirectional override,
 * which would make one text read as another. A refusal is 400 VALIDATION_FAILED naming the field,
 * and changes nothing.
 */
describe('the cash book: notes and reasons other staff read', () => {
  const app = useTestApp();

  /** Everything the company's finance writes could change, with its audit rows. */
  const rows = async (world: FinanceWorld) => ({
    ...(await financeSnapshot(app, world.companyId)),
    audit: await app.db.query(`select id from audit_log where actor_id = any($1::uuid[]) order by id`, [
      Object.values(world.staff).map((member) => member.staffUserId),
    ]),
  });

  /** Sends each text, expects each refused as a bad `field`, and the company's rows as they were. */
  async function expectEachRefused(
    world: FinanceWorld,
    field: string,
    write: (text: string) => Promise<TestResponse>,
  ) {
    const before = await rows(world);
    for (const [what, text] of Object.entries(UNPRINTABLE_TEXTS)) {
      const refused = await write(text);
      expect([refused.status, refused.body.errorCode], `${field}: ${what}`).toEqual([
        400,
        'VALIDATION_FAILED',
      ]);
      expect(refused.body.details.issues, `${field}: ${what}`).toContainEqual(
        expect.objectContaining({ path: `body.${field}` }),
      );
    }
    expect(await rows(world)).toEqual(before);
  }

  it("a cash shift's opening and closing notes and an adjustment's reason", async () => {
    const world = await financeWorld(app);
    const owner = world.staff.OWNER;
    const command = (json: object) => shiftCommand(app, owner, json);
    await expectEachRefused(world, 'note', (note) =>
      command({ action: 'OPEN', opening_balance: 1_000, note }),
    );

    const opened = await command({ action: 'OPEN', opening_balance: 1_000, note: PROSE });
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.data.note).toBe(PROSE);
    const adjust = (reason: string) => command({ action: 'ADJUST', direction: 'IN', amount: 500, reason });
    await expectEachRefused(world, 'reason', adjust);
    await expectEachRefused(world, 'note', (note) =>
      command({ action: 'CLOSE', declared_amount: 1_500, note }),
    );

    expect((await adjust(PROSE)).status).toBe(200);
    const closed = await command({ action: 'CLOSE', declared_amount: 1_500, note: PROSE });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body.data).toMatchObject({ status: 'CLOSED', difference: 0 });
    const movements = await app.db.query(`select reason from cash_shift_movements where company_id = $1`, [
      world.companyId,
    ]);
    expect(movements).toEqual([{ reason: PROSE }]);
  });

  it("a payment's note, on recording an office payment and on changing the note", async () => {
    const world = await financeWorld(app);
    expect((await shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 0 })).status).toBe(
      201,
    );
    const accountant = world.staff.ACCOUNTANT.writeHeaders;
    const booking = await confirmedBooking(app, world);
    const record = (note: string) =>
      app.request('/dashboard/api/payments', {
        method: 'POST',
        headers: accountant,
        json: { booking_id: booking.bookingId, note },
      });
    await expectEachRefused(world, 'note', record);
    const announced = await pendingPayment(app, world);
    const change = (note: string) =>
      app.request(`/dashboard/api/payments/${announced.paymentId}`, {
        method: 'PATCH',
        headers: accountant,
        json: { note },
      });
    await expectEachRefused(world, 'note', change);

    const recorded = await record(PROSE);
    expect(recorded.status, recorded.text).toBe(201);
    expect(recorded.body.data.note).toBe(PROSE);
    const changed = await change(PROSE);
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.note).toBe(PROSE);
  });
});
