import { describe, expect, it } from 'vitest';
import {
  financeSnapshot,
  financeWorld,
  openShift,
  paymentAction,
  pendingPayment,
  type FinanceWorld,
} from '../../support/finance.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { dispatch } from '../../support/operations.js';

/**
 * SPEC "Payments (company)": "Cancel applies only to an incomplete operation. PATCH changes the note
 * only, and only before the operation reaches a final state"; README "Company finance", the table of
 * `domain/payment-ledger.ts`: PENDING verify → COMPLETED, cancel → CANCELLED; COMPLETED refund → REFUNDED;
 * REFUND_DUE refund → REFUNDED; "REFUNDED, CANCELLED and FAILED are final ... Any other move is 409
 * PAYMENT_TRANSITION_NOT_ALLOWED", PATCH of a final one 409 PAYMENT_FINAL. One test per status, reached
 * through the API: the line offers exactly the table's moves (allowed_actions), every other move is
 * refused and changes nothing, and its note may or may not change. The moves the table lists are
 * payments.test.ts's.
 */
type Status = 'PENDING' | 'COMPLETED' | 'REFUND_DUE' | 'REFUNDED' | 'CANCELLED';
type Action = 'verify' | 'refund' | 'cancel';
const ACTIONS: readonly Action[] = ['verify', 'refund', 'cancel'];
const TABLE: Record<Status, Partial<Record<Action, Status>>> = {
  PENDING: { verify: 'COMPLETED', cancel: 'CANCELLED' },
  COMPLETED: { refund: 'REFUNDED' },
  REFUND_DUE: { refund: 'REFUNDED' },
  REFUNDED: {},
  CANCELLED: {},
};
const FINAL: readonly Status[] = ['REFUNDED', 'CANCELLED'];
/** The moves that bring an announced (PENDING) payment to each status; REFUND_DUE's trip is then cancelled. */
const STEPS: Record<Status, Action[]> = {
  PENDING: [],
  COMPLETED: ['verify'],
  REFUND_DUE: ['verify'],
  REFUNDED: ['verify', 'refund'],
  CANCELLED: ['cancel'],
};

/** A traveller's announced cash payment of the world's company, brought to `status` by its staff. */
async function paymentIn(app: TestApp, status: Status): Promise<{ world: FinanceWorld; paymentId: string }> {
  const world = await financeWorld(app);
  await openShift(app, world.staff.OWNER, 500_000);
  const { paymentId } = await pendingPayment(app, world);
  for (const action of STEPS[status]) {
    const response = await paymentAction(app, world.staff.ACCOUNTANT, paymentId, action);
    expect(response.status, response.text).toBe(200);
  }
  if (status === 'REFUND_DUE') {
    const cancel = await dispatch(app, world.staff.DISPATCHER, world.trip.id, {
      action: 'CANCEL',
      reason: 'Bus broke down',
    });
    expect(cancel.status, cancel.text).toBe(200);
  }
  const [row] = await app.db.query(`select status from payment_operations where id = $1`, [paymentId]);
  expect(row).toEqual({ status });
  return { world, paymentId };
}

describe('payment ledger: each status and the moves its row of the table does not list', () => {
  const app = useTestApp();

  for (const status of Object.keys(TABLE) as Status[]) {
    const moves = ACTIONS.filter((action) => TABLE[status][action]);
    const refused = ACTIONS.filter((action) => !TABLE[status][action]);
    const final = FINAL.includes(status);
    it(`${status}: offers [${moves.join(', ')}]; ${refused.join(', ')} 409 PAYMENT_TRANSITION_NOT_ALLOWED; the note ${final ? '409 PAYMENT_FINAL' : 'changes'}`, async () => {
      const { world, paymentId } = await paymentIn(app, status);
      const read = await app.request(`/dashboard/api/payments/${paymentId}`, {
        headers: { Cookie: world.staff.ACCOUNTANT.cookie },
      });
      expect([read.status, read.body.data?.allowed_actions], read.text).toEqual([200, moves]);

      const before = await financeSnapshot(app, world.companyId);
      for (const action of refused) {
        const response = await paymentAction(app, world.staff.ACCOUNTANT, paymentId, action);
        expect([response.status, response.body.errorCode], `${action}: ${response.text}`).toEqual([
          409,
          'PAYMENT_TRANSITION_NOT_ALLOWED',
        ]);
      }
      expect(await financeSnapshot(app, world.companyId)).toEqual(before);

      const note = await app.request(`/dashboard/api/payments/${paymentId}`, {
        method: 'PATCH',
        headers: world.staff.ACCOUNTANT.writeHeaders,
        json: { note: 'called the traveller' },
      });
      if (final) {
        expect([note.status, note.body.errorCode], note.text).toEqual([409, 'PAYMENT_FINAL']);
        expect(await financeSnapshot(app, world.companyId)).toEqual(before);
      } else {
        expect([note.status, note.body.data?.status, note.body.data?.note], note.text).toEqual([
          200,
          status,
          'called the traveller',
        ]);
        const [row] = await app.db.query(`select status, note from payment_operations where id = $1`, [
          paymentId,
        ]);
        expect(row).toEqual({ status, note: 'called the traveller' });
      }
    });
  }
});
