import { beforeAll, describe, expect, it } from 'vitest';
import { confirmedBooking, financeWorld, type FinanceWorld } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';

/**
 * The company's cash shifts (GET /payments/cash-shifts) a page at a time: opened latest first,
 * shifts opened at the same instant by id (descending), so a page ending among them neither
 * repeats nor skips one; every page has the total, a page past the end too; each shift of a page
 * sums its own collections and movements.
 */
describe('GET /dashboard/api/payments/cash-shifts: the history a page at a time', () => {
  const app = useTestApp();
  let world: FinanceWorld;
  /** Every closed shift as the list must show it: id, opening instant, its collections and movements. */
  const history: {
    id: string;
    openedAt: string;
    collections: number;
    movementsIn: number;
    movementsOut: number;
  }[] = [];

  interface Listed {
    id: string;
    status: string;
    opened_at: string;
    collections: { count: number; amount: number };
    movements_in: number;
    movements_out: number;
  }

  const list = async (query: string) => {
    const response = await app.request(`/dashboard/api/payments/cash-shifts?${query}`, {
      headers: { Cookie: world.staff.OWNER.cookie },
    });
    expect(response.status, response.text).toBe(200);
    return response.body as {
      data: { current: unknown; shifts: Listed[] };
      pagination: { limit: number; offset: number; total: number };
    };
  };

  /** The order the list promises: opened latest first, then id descending. */
  const inListOrder = () =>
    [...history].sort((a, b) =>
      a.openedAt === b.openedAt ? (a.id < b.id ? 1 : -1) : a.openedAt < b.openedAt ? 1 : -1,
    );

  beforeAll(async () => {
    world = await financeWorld(app);
    const staffId = world.staff.OWNER.staffUserId;
    // Seven closed shifts at three opening instants (3, 2, 2): a page of 2 or 3 ends inside a group.
    const instants = [3, 2, 1].map((days) => new Date(Date.now() - days * 86_400_000));
    for (let index = 0; index < 7; index++) {
      const openedAt = instants[index < 3 ? 0 : index < 5 ? 1 : 2]!;
      const [shift] = await app.db.query<{ id: string }>(
        `insert into cash_shifts (company_id, status, opening_balance, opened_by, opened_at, declared_amount, expected_amount,
                                  difference, closed_by, closed_at)
         values ($1, 'CLOSED', 1000, $2, $3, 0, 0, 0, $2, $3::timestamptz + interval '8 hours') returning id`,
        [world.companyId, staffId, openedAt],
      );
      const collections = index % 3;
      for (let paid = 0; paid < collections; paid++) {
        const { bookingId } = await confirmedBooking(app, world);
        await app.db.query(
          `insert into payment_operations (company_id, booking_id, method, source, amount, status, collected_at, cash_shift_id)
           values ($1, $2, 'CASH', 'office', 10000, 'COMPLETED', $3::timestamptz + interval '1 hour', $4)`,
          [world.companyId, bookingId, openedAt, shift!.id],
        );
      }
      await app.db.query(
        `insert into cash_shift_movements (shift_id, company_id, direction, amount, reason, recorded_by, recorded_at)
         values ($1, $2, 'IN', $4, 'Float top-up', $3, now()), ($1, $2, 'OUT', 500, 'Fuel', $3, now())`,
        [shift!.id, world.companyId, staffId, 100 * (index + 1)],
      );
      history.push({
        id: shift!.id,
        openedAt: openedAt.toISOString(),
        collections,
        movementsIn: 100 * (index + 1),
        movementsOut: 500,
      });
    }
  });

  it('pages through shifts opened together without repeating or skipping one, each with its own sums', async () => {
    const expected = inListOrder();
    for (const [query, limit] of [
      ['', 3],
      ['', 2],
      ['status=CLOSED&', 2],
      ['', 7],
    ] as const) {
      const shown: Listed[] = [];
      for (let offset = 0; ; offset += limit) {
        const page = await list(`${query}limit=${limit}&offset=${offset}`);
        expect(page.pagination, query).toEqual({ limit, offset, total: 7 });
        expect(page.data.current).toBeNull();
        shown.push(...page.data.shifts);
        if (page.data.shifts.length < limit) break;
      }
      expect(
        shown.map((shift) => shift.id),
        `${query}limit ${limit}`,
      ).toEqual(expected.map((shift) => shift.id));
      expect(shown.map((shift) => [shift.collections, shift.movements_in, shift.movements_out])).toEqual(
        expected.map((shift) => [
          { count: shift.collections, amount: 10_000 * shift.collections },
          shift.movementsIn,
          shift.movementsOut,
        ]),
      );
    }
    const pastTheEnd = await list('limit=5&offset=10');
    expect(pastTheEnd.data.shifts).toEqual([]);
    expect(pastTheEnd.pagination.total).toBe(7);
    const open = await list('status=OPEN&limit=5&offset=0');
    expect([open.data.shifts, open.pagination.total]).toEqual([[], 0]);
  });
});
