import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  collectedPayment,
  confirmedBooking,
  DASHBOARD_ROLES,
  financeSnapshot,
  financeWorld,
  openShift,
  paymentAction,
  pendingPayment,
  type FinanceWorld,
} from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { demotedWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';
import { staffSession } from '../../support/journey-rows.js';

const LEDGER = '/dashboard/api/payments';

describe('the company payment ledger', () => {
  const app = useTestApp();
  let world: FinanceWorld;

  const paymentRow = async (id: string) =>
    (
      await app.db.query<{ status: string; cash_shift_id: string | null; decided_by: string | null }>(
        `select status, cash_shift_id, decided_by from payment_operations where id = $1`,
        [id],
      )
    )[0]!;
  const bookingFact = async (id: string) =>
    (
      await app.db.query<{ payment_status: string }>(`select payment_status from bookings where id = $1`, [
        id,
      ])
    )[0]!.payment_status;

  beforeAll(async () => {
    world = await financeWorld(app);
  });

  it('lists one line per payment with statistics of the filtered set, newest first', async () => {
    const own = await financeWorld(app);
    const pending = await pendingPayment(app, own);
    const collected = await collectedPayment(app, own, 'driver');
    const office = await collectedPayment(app, own, 'office');
    const response = await app.request(`${LEDGER}?limit=2`, {
      headers: { Cookie: own.staff.ACCOUNTANT.cookie },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.body.pagination).toEqual({ limit: 2, offset: 0, total: 3 });
    expect(response.body.data.map((line: any) => line.id)).toEqual([office.paymentId, collected.paymentId]);
    expect(response.body.data[1]).toMatchObject({
      source: 'driver',
      status: 'COMPLETED',
      amount: 10_000,
      booking: { id: collected.bookingId, booking_code: collected.bookingCode, payment_status: 'PAID' },
      allowed_actions: ['refund'],
      receipt: { source: 'driver', id: collected.paymentId },
    });
    const stats = response.body.statistics;
    expect(stats).toMatchObject({
      count: 3,
      collected: 20_000,
      refunded: 0,
      net: 20_000,
      outstanding: 10_000,
    });
    expect(stats.byStatus.PENDING).toEqual({ count: 1, amount: 10_000 });
    expect(stats.bySource).toMatchObject({
      transaction: { count: 1, amount: 10_000 },
      driver: { count: 1, amount: 10_000 },
      office: { count: 1, amount: 10_000 },
      booking: { count: 0, amount: 0 },
    });

    const filtered = await app.request(`${LEDGER}?status=PENDING&source=transaction&provider=cash`, {
      headers: { Cookie: own.staff.OWNER.cookie },
    });
    expect(filtered.body.data.map((line: any) => line.id)).toEqual([pending.paymentId]);
    expect(filtered.body.data[0].allowed_actions).toEqual(['verify', 'cancel']);
    expect(filtered.body.statistics.count).toBe(1);

    const searched = await app.request(`${LEDGER}?search=${collected.bookingCode.slice(0, 6)}`, {
      headers: { Cookie: own.staff.OWNER.cookie },
    });
    expect(searched.body.data.map((line: any) => line.id)).toContain(collected.paymentId);
    const byName = await app.request(`${LEDGER}?search=rami`, {
      headers: { Cookie: own.staff.OWNER.cookie },
    });
    expect(byName.body.pagination.total).toBe(3);
    const none = await app.request(`${LEDGER}?search=nobody-here`, {
      headers: { Cookie: own.staff.OWNER.cookie },
    });
    expect(none.body.pagination.total).toBe(0);

    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Damascus' }).format(new Date());
    const dated = await app.request(`${LEDGER}?from=${today}&to=${today}`, {
      headers: { Cookie: own.staff.OWNER.cookie },
    });
    expect(dated.body.pagination.total).toBe(3);
    const past = await app.request(`${LEDGER}?from=2020-01-01&to=2020-01-31`, {
      headers: { Cookie: own.staff.OWNER.cookie },
    });
    expect(past.body.pagination.total).toBe(0);
  });

  /**
   * Days by the time-zone database, as the daily roll-up behind the statistics counts them: 23:30 on
   * 2021-01-15 in Damascus was 21:30 UTC (UTC+2 then). Read as UTC+3 the line was listed under the
   * 16th while the statistics counted it on the 15th (imported or backfilled history).
   */
  it('files a line of a winter day before 2022 under its Damascus day, in the rows and the statistics alike', async () => {
    const own = await financeWorld(app);
    const { bookingId } = await confirmedBooking(app, own);
    const [line] = await app.db.query<{ id: string }>(
      `insert into payment_operations (company_id, booking_id, method, provider, source, amount, status, collected_at,
                                       created_at, updated_at)
       values ($1, $2, 'CASH', 'cash', 'office', 10000, 'COMPLETED', $3, $3, $3) returning id`,
      [own.companyId, bookingId, '2021-01-15T21:30:00Z'],
    );
    const day = async (date: string) => {
      const answer = await app.request(`${LEDGER}?from=${date}&to=${date}`, {
        headers: { Cookie: own.staff.OWNER.cookie },
      });
      expect(answer.status, answer.text).toBe(200);
      const { data, pagination, statistics } = answer.body;
      return { rows: data.map((row: any) => row.id), total: pagination.total, counted: statistics.count };
    };
    expect(await day('2021-01-15')).toEqual({ rows: [line!.id], total: 1, counted: 1 });
    expect(await day('2021-01-16')).toEqual({ rows: [], total: 0, counted: 0 });
    // SPEC's `date` filter is the same one day.
    const dated = await app.request(`${LEDGER}?date=2021-01-15`, {
      headers: { Cookie: own.staff.OWNER.cookie },
    });
    expect([dated.status, dated.body.data?.map((row: any) => row.id)]).toEqual([200, [line!.id]]);
  });

  it('lets DISPATCHER and STAFF read lines without statistics; any other company sees none of them', async () => {
    const payment = await pendingPayment(app, world);
    for (const role of ['DISPATCHER', 'STAFF'] as const) {
      const response = await app.request(LEDGER, { headers: { Cookie: world.staff[role].cookie } });
      expect(response.status).toBe(200);
      expect(response.body.statistics).toBeNull();
      const one = await app.request(`${LEDGER}/${payment.paymentId}`, {
        headers: { Cookie: world.staff[role].cookie },
      });
      expect(one.status).toBe(200);
    }
    const stranger = await financeWorld(app);
    const list = await app.request(LEDGER, { headers: { Cookie: stranger.staff.OWNER.cookie } });
    expect(list.body.data.map((line: any) => line.id)).not.toContain(payment.paymentId);
    const one = await app.request(`${LEDGER}/${payment.paymentId}`, {
      headers: { Cookie: stranger.staff.OWNER.cookie },
    });
    expect([one.status, one.body.errorCode]).toEqual([404, 'PAYMENT_NOT_FOUND']);
    const before = await financeSnapshot(app, world.companyId);
    await openShift(app, stranger.staff.OWNER);
    for (const action of ['verify', 'refund', 'cancel'] as const) {
      const decided = await paymentAction(app, stranger.staff.OWNER, payment.paymentId, action);
      expect([decided.status, decided.body.errorCode]).toEqual([404, 'PAYMENT_NOT_FOUND']);
    }
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
  });

  it('refuses verify without an open cash shift (409), then verifies into the open shift', async () => {
    const own = await financeWorld(app);
    const payment = await pendingPayment(app, own);
    const before = await financeSnapshot(app, own.companyId);
    const refused = await paymentAction(app, own.staff.ACCOUNTANT, payment.paymentId, 'verify');
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    expect(await financeSnapshot(app, own.companyId)).toEqual(before);

    const shift = await openShift(app, own.staff.OWNER, 5_000);
    const verified = await paymentAction(app, own.staff.ACCOUNTANT, payment.paymentId, 'verify');
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.data).toMatchObject({
      status: 'COMPLETED',
      cash_shift_id: shift.id,
      verified_by: own.staff.ACCOUNTANT.staffUserId,
      booking: { payment_status: 'PAID' },
    });
    expect(await bookingFact(payment.bookingId)).toBe('PAID');
    const audit = await app.db.query(
      `select actor_id from audit_log where action = 'payments.verify' and target_id = $1`,
      [payment.paymentId],
    );
    expect(audit).toEqual([{ actor_id: own.staff.ACCOUNTANT.staffUserId }]);
    const again = await paymentAction(app, own.staff.ACCOUNTANT, payment.paymentId, 'verify');
    expect([again.status, again.body.errorCode]).toEqual([409, 'PAYMENT_TRANSITION_NOT_ALLOWED']);
  });

  it('refunds in full only: an amount is 400 and changes nothing; the full refund pays out of the shift', async () => {
    const own = await financeWorld(app);
    const shift = await openShift(app, own.staff.OWNER, 0);
    const payment = await pendingPayment(app, own);
    expect((await paymentAction(app, own.staff.ADMIN, payment.paymentId, 'verify')).status).toBe(200);
    const before = await financeSnapshot(app, own.companyId);
    for (const body of [{ amount: 5_000 }, { amount: 10_000 }, { partial: true }]) {
      const refused = await paymentAction(app, own.staff.ADMIN, payment.paymentId, 'refund', body);
      expect([refused.status, refused.body.errorCode]).toEqual([400, 'PARTIAL_REFUND_NOT_ALLOWED']);
    }
    // The query string is no way round it: any key is the same 400, with nothing paid out.
    for (const query of ['amount=5000', 'partial=true', 'x=']) {
      const refused = await app.request(`${LEDGER}/${payment.paymentId}/refund?${query}`, {
        method: 'POST',
        headers: own.staff.ADMIN.writeHeaders,
      });
      expect([refused.status, refused.body.errorCode]).toEqual([400, 'PARTIAL_REFUND_NOT_ALLOWED']);
    }
    expect(await financeSnapshot(app, own.companyId)).toEqual(before);

    const refunded = await paymentAction(app, own.staff.ADMIN, payment.paymentId, 'refund');
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body.data).toMatchObject({
      status: 'REFUNDED',
      refunded_by: own.staff.ADMIN.staffUserId,
      allowed_actions: [],
      booking: { payment_status: 'REFUNDED' },
    });
    const movements = await app.db.query(
      `select kind, direction, amount::int, payment_id from cash_shift_movements where shift_id = $1`,
      [shift.id],
    );
    expect(movements).toEqual([
      { kind: 'REFUND', direction: 'OUT', amount: 10_000, payment_id: payment.paymentId },
    ]);
    const note = await app.request(`${LEDGER}/${payment.paymentId}`, {
      method: 'PATCH',
      headers: own.staff.ADMIN.writeHeaders,
      json: { note: 'too late' },
    });
    expect([note.status, note.body.errorCode]).toEqual([409, 'PAYMENT_FINAL']);
  });

  it('refunds a payment of nothing (a voucher paid the whole fare) with no cash out of the till', async () => {
    const own = await financeWorld(app);
    const shift = await openShift(app, own.staff.OWNER, 0);
    const booking = await confirmedBooking(app, own);
    // A free-trip voucher took the whole fare off: the booking's final price is 0. Such a booking is
    // no longer collected (409 NOTHING_TO_COLLECT), but a 0 SYP line collected before that rule stays.
    await app.db.query(`update bookings set total_price = 0, payment_status = 'PAID' where id = $1`, [
      booking.bookingId,
    ]);
    const [line] = await app.db.query<{ id: string }>(
      `insert into payment_operations (company_id, booking_id, user_id, method, provider, source, amount, status,
                                       collected_at, cash_shift_id)
       values ($1, $2, $3, 'CASH', 'cash', 'transaction', 0, 'COMPLETED', now(), $4) returning id`,
      [own.companyId, booking.bookingId, own.travellerId, shift.id],
    );
    const paymentId = line!.id;

    const refunded = await paymentAction(app, own.staff.ADMIN, paymentId, 'refund');
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body.data).toMatchObject({ status: 'REFUNDED', booking: { payment_status: 'REFUNDED' } });
    expect(await app.db.query(`select 1 from cash_shift_movements where shift_id = $1`, [shift.id])).toEqual(
      [],
    );
  });

  it('refunds a REFUND_DUE payment of a cancelled trip, and cancels only an incomplete one', async () => {
    const own = await financeWorld(app);
    await openShift(app, own.staff.OWNER, 100_000);
    const due = await collectedPayment(app, own);
    await app.db.query(
      `update payment_operations set status = 'REFUND_DUE', refund_due_reason = 'TRIP_CANCELLED' where id = $1`,
      [due.paymentId],
    );
    const refunded = await paymentAction(app, own.staff.OWNER, due.paymentId, 'refund');
    expect(refunded.body.data).toMatchObject({ status: 'REFUNDED', booking: { payment_status: 'REFUNDED' } });

    const collected = await collectedPayment(app, own);
    const refused = await paymentAction(app, own.staff.OWNER, collected.paymentId, 'cancel');
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'PAYMENT_TRANSITION_NOT_ALLOWED']);
    expect(refused.body.details).toMatchObject({ status: 'COMPLETED', allowedFrom: ['PENDING'] });

    const pending = await pendingPayment(app, own);
    const cancelled = await paymentAction(app, own.staff.OWNER, pending.paymentId, 'cancel');
    expect(cancelled.body.data).toMatchObject({
      status: 'CANCELLED',
      cancelled_by: own.staff.OWNER.staffUserId,
    });
    expect(await bookingFact(pending.bookingId)).toBe('UNPAID');
    expect((await paymentAction(app, own.staff.OWNER, pending.paymentId, 'refund')).status).toBe(409);

    // The statistics' daily rollup follows every change, whoever made it (here also a direct update).
    const rollup = await app.db.query(
      `select status, source, sum(count)::int as n, sum(amount)::int as amount from payment_ledger_daily
        where company_id = $1 group by 1, 2 having sum(count) > 0 order by 1, 2`,
      [own.companyId],
    );
    const rows = await app.db.query(
      `select status, source, count(*)::int as n, sum(amount)::int as amount from payment_operations
        where company_id = $1 group by 1, 2 order by 1, 2`,
      [own.companyId],
    );
    expect(rollup).toEqual(rows);
    expect(rows.length).toBeGreaterThanOrEqual(3);
  });

  it('records an office payment into the open shift, completing an announced one', async () => {
    const own = await financeWorld(app);
    const booking = await confirmedBooking(app, own);
    const noShift = await app.request(LEDGER, {
      method: 'POST',
      headers: own.staff.ACCOUNTANT.writeHeaders,
      json: { booking_id: booking.bookingId },
    });
    expect([noShift.status, noShift.body.errorCode]).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    expect(
      await app.db.query(`select 1 from payment_operations where booking_id = $1`, [booking.bookingId]),
    ).toEqual([]);

    const shift = await openShift(app, own.staff.ADMIN);
    const recorded = await app.request(LEDGER, {
      method: 'POST',
      headers: own.staff.ACCOUNTANT.writeHeaders,
      json: { booking_id: booking.bookingId, note: 'paid at the Homs office' },
    });
    expect(recorded.status, recorded.text).toBe(201);
    expect(recorded.body.data).toMatchObject({
      source: 'office',
      status: 'COMPLETED',
      note: 'paid at the Homs office',
      cash_shift_id: shift.id,
    });
    const twice = await app.request(LEDGER, {
      method: 'POST',
      headers: own.staff.ACCOUNTANT.writeHeaders,
      json: { booking_id: booking.bookingId },
    });
    expect([twice.status, twice.body.errorCode]).toEqual([409, 'BOOKING_ALREADY_PAID']);

    const announced = await pendingPayment(app, own);
    const completed = await app.request(LEDGER, {
      method: 'POST',
      headers: own.staff.OWNER.writeHeaders,
      json: { booking_id: announced.bookingId },
    });
    expect(completed.body.data).toMatchObject({
      id: announced.paymentId,
      source: 'transaction',
      status: 'COMPLETED',
    });

    const stranger = await financeWorld(app);
    await openShift(app, stranger.staff.OWNER);
    const foreign = await app.request(LEDGER, {
      method: 'POST',
      headers: stranger.staff.OWNER.writeHeaders,
      json: { booking_id: (await confirmedBooking(app, own)).bookingId },
    });
    expect([foreign.status, foreign.body.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
  });

  it('refuses to take cash for a booking that costs nothing: 409 NOTHING_TO_COLLECT, nothing in the shift', async () => {
    const own = await financeWorld(app);
    await openShift(app, own.staff.OWNER, 5_000);
    const free = await confirmedBooking(app, own);
    // A free-trip voucher took the whole fare off: the booking's final price is 0.
    await app.db.query(`update bookings set total_price = 0 where id = $1`, [free.bookingId]);
    const before = await financeSnapshot(app, own.companyId);
    const recorded = await app.request(LEDGER, {
      method: 'POST',
      headers: own.staff.ACCOUNTANT.writeHeaders,
      json: { booking_id: free.bookingId },
    });
    expect([recorded.status, recorded.body.errorCode], recorded.text).toEqual([409, 'NOTHING_TO_COLLECT']);
    expect(await financeSnapshot(app, own.companyId)).toEqual(before);
    expect(await bookingFact(free.bookingId)).toBe('UNPAID');
    expect(
      await app.db.query(`select 1 from payment_operations where booking_id = $1`, [free.bookingId]),
    ).toEqual([]);

    // A 0 SYP line announced before the rule is not offered verify, and verifying it is the same refusal.
    const [line] = await app.db.query<{ id: string }>(
      `insert into payment_operations (company_id, booking_id, user_id, method, provider, source, amount)
       values ($1, $2, $3, 'CASH', 'cash', 'transaction', 0) returning id`,
      [own.companyId, free.bookingId, own.travellerId],
    );
    const listed = await app.request(`${LEDGER}/${line!.id}`, {
      headers: { Cookie: own.staff.OWNER.cookie },
    });
    expect(listed.body.data.allowed_actions).toEqual(['cancel']);
    const withLine = await financeSnapshot(app, own.companyId);
    const verified = await paymentAction(app, own.staff.ACCOUNTANT, line!.id, 'verify');
    expect([verified.status, verified.body.errorCode], verified.text).toEqual([409, 'NOTHING_TO_COLLECT']);
    expect(await financeSnapshot(app, own.companyId)).toEqual(withLine);
    expect(await bookingFact(free.bookingId)).toBe('UNPAID');
  });

  it('changes the note only, before a final state', async () => {
    const payment = await pendingPayment(app, world);
    const path = `${LEDGER}/${payment.paymentId}`;
    const changed = await app.request(path, {
      method: 'PATCH',
      headers: world.staff.ACCOUNTANT.writeHeaders,
      json: { note: 'will pay on Friday' },
    });
    expect(changed.body.data.note).toBe('will pay on Friday');
    const before = await financeSnapshot(app, world.companyId);
    for (const json of [{ note: 'x', status: 'COMPLETED' }, { amount: 1 }, { note: 'x'.repeat(1001) }, {}]) {
      const refused = await app.request(path, {
        method: 'PATCH',
        headers: world.staff.ACCOUNTANT.writeHeaders,
        json,
      });
      expect([refused.status, refused.body.errorCode]).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
    const cleared = await app.request(path, {
      method: 'PATCH',
      headers: world.staff.ACCOUNTANT.writeHeaders,
      json: { note: '' },
    });
    expect(cleared.body.data.note).toBeNull();
  });

  it('refuses bad input with a 400 that changes nothing', async () => {
    const payment = await pendingPayment(app, world);
    const before = await financeSnapshot(app, world.companyId);
    const headers = world.staff.OWNER.writeHeaders;
    const answers = await Promise.all([
      app.request(`${LEDGER}/not-a-uuid/verify`, { method: 'POST', headers }),
      app.request(`${LEDGER}/${payment.paymentId}/verify`, {
        method: 'POST',
        headers,
        json: { force: true },
      }),
      app.request(`${LEDGER}/${payment.paymentId}/cancel`, {
        method: 'POST',
        headers,
        json: { reason: 'x' },
      }),
      app.request(LEDGER, { method: 'POST', headers, json: { booking_id: 'nope' } }),
      app.request(LEDGER, {
        method: 'POST',
        headers,
        json: { booking_id: payment.bookingId, company_id: randomUUID() },
      }),
      app.request(LEDGER, { method: 'POST', headers, json: { booking_id: payment.bookingId, amount: 5 } }),
      app.request(`${LEDGER}?status=PAID`, { headers }),
      app.request(`${LEDGER}?from=2026-02-30`, { headers }),
      app.request(`${LEDGER}?from=2026-03-02&to=2026-03-01`, { headers }),
      app.request(`${LEDGER}?date=2026-03-01&from=2026-03-01`, { headers }),
      app.request(`${LEDGER}?date=2026-02-30`, { headers }),
      app.request(`${LEDGER}?limit=1000`, { headers }),
      app.request(`${LEDGER}?company_id=${randomUUID()}`, { headers }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(answers.length).fill(400));
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
    const unknown = await paymentAction(app, world.staff.OWNER, randomUUID(), 'verify');
    expect([unknown.status, unknown.body.errorCode]).toEqual([404, 'PAYMENT_NOT_FOUND']);
  });

  it('lets only OWNER, ADMIN and ACCOUNTANT decide, and needs CSRF on every write', async () => {
    const payment = await pendingPayment(app, world);
    const before = await financeSnapshot(app, world.companyId);
    for (const role of ['DISPATCHER', 'STAFF'] as const) {
      const session = world.staff[role];
      const writes = await Promise.all([
        paymentAction(app, session, payment.paymentId, 'verify'),
        paymentAction(app, session, payment.paymentId, 'cancel'),
        paymentAction(app, session, payment.paymentId, 'refund'),
        app.request(`${LEDGER}/${payment.paymentId}`, {
          method: 'PATCH',
          headers: session.writeHeaders,
          json: { note: 'n' },
        }),
        app.request(LEDGER, {
          method: 'POST',
          headers: session.writeHeaders,
          json: { booking_id: payment.bookingId },
        }),
      ]);
      expect(writes.map((w) => [w.status, w.body.errorCode])).toEqual(
        Array(5).fill([403, 'ROLE_NOT_ALLOWED']),
      );
    }
    for (const role of DASHBOARD_ROLES) {
      const cookieOnly = { Cookie: world.staff[role].cookie };
      const writes = await Promise.all([
        app.request(`${LEDGER}/${payment.paymentId}/verify`, { method: 'POST', headers: cookieOnly }),
        app.request(`${LEDGER}/${payment.paymentId}/refund`, { method: 'POST', headers: cookieOnly }),
        app.request(`${LEDGER}/${payment.paymentId}/cancel`, { method: 'POST', headers: cookieOnly }),
        app.request(`${LEDGER}/${payment.paymentId}`, {
          method: 'PATCH',
          headers: cookieOnly,
          json: { note: 'n' },
        }),
        app.request(LEDGER, { method: 'POST', headers: cookieOnly, json: { booking_id: payment.bookingId } }),
        app.request(`${LEDGER}/cash-shifts`, {
          method: 'POST',
          headers: cookieOnly,
          json: { action: 'OPEN', opening_balance: 0 },
        }),
      ]);
      expect(writes.map((w) => w.status)).toEqual(Array(6).fill(403));
    }
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
    const anonymous = await app.request(LEDGER);
    expect(anonymous.status).toBe(401);
  });

  it('refuses DISPATCHER and STAFF before reading the input: 403 ROLE_NOT_ALLOWED whatever is sent, nothing changed', async () => {
    const payment = await pendingPayment(app, world);
    const before = await financeSnapshot(app, world.companyId);
    for (const role of ['DISPATCHER', 'STAFF'] as const) {
      const headers = world.staff[role].writeHeaders;
      const writes = await Promise.all([
        app.request(`${LEDGER}/not-a-uuid/verify`, { method: 'POST', headers }),
        app.request(`${LEDGER}/${payment.paymentId}/cancel`, {
          method: 'POST',
          headers,
          json: { reason: 'x' },
        }),
        app.request(`${LEDGER}/${payment.paymentId}/refund?amount=5000`, {
          method: 'POST',
          headers,
          json: { amount: 5_000 },
        }),
        app.request(`${LEDGER}/${payment.paymentId}`, { method: 'PATCH', headers, json: { note: 5 } }),
        app.request(LEDGER, { method: 'POST', headers, json: { booking_id: 'nope' } }),
      ]);
      expect(
        writes.map((w) => [w.status, w.body.errorCode]),
        role,
      ).toEqual(Array(5).fill([403, 'ROLE_NOT_ALLOWED']));
    }
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
  });

  it('refuses the money decisions of a suspended company', async () => {
    const own = await financeWorld(app);
    const payment = await pendingPayment(app, own);
    await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [own.companyId]);
    const refused = await paymentAction(app, own.staff.OWNER, payment.paymentId, 'cancel');
    expect([refused.status, refused.body.errorCode]).toEqual([403, 'COMPANY_SUSPENDED']);
    expect((await paymentRow(payment.paymentId)).status).toBe('PENDING');
    const read = await app.request(LEDGER, { headers: { Cookie: own.staff.OWNER.cookie } });
    expect(read.status).toBe(200);
  });

  it('refuses a money decision that reaches the company after its suspension committed meanwhile, changing nothing', async () => {
    const own = await financeWorld(app);
    const payment = await pendingPayment(app, own);
    const before = await financeSnapshot(app, own.companyId);
    const refused = await suspendedWhileWriting(app.db, own.companyId, () =>
      paymentAction(app, own.staff.OWNER, payment.paymentId, 'cancel'),
    );
    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    expect((await paymentRow(payment.paymentId)).status).toBe('PENDING');
    expect(await financeSnapshot(app, own.companyId)).toEqual(before);
  });

  it('refuses an ACCOUNTANT demoted to STAFF while the decision waits for the company 403 ROLE_NOT_ALLOWED, changing nothing', async () => {
    const own = await financeWorld(app);
    const payment = await pendingPayment(app, own);
    const accountant = await staffSession(app.db, app.config, own.companyId, 'ACCOUNTANT');
    const before = await financeSnapshot(app, own.companyId);
    const refused = await demotedWhileWriting(app.db, own.companyId, accountant.membershipId, 'STAFF', () =>
      paymentAction(app, accountant, payment.paymentId, 'cancel'),
    );
    expect([refused.status, refused.body?.errorCode, refused.body?.details], refused.text).toEqual([
      403,
      'ROLE_NOT_ALLOWED',
      { role: 'STAFF', allowedRoles: ['OWNER', 'ADMIN', 'ACCOUNTANT'] },
    ]);
    expect((await paymentRow(payment.paymentId)).status).toBe('PENDING');
    expect(await financeSnapshot(app, own.companyId)).toEqual(before);
  });

  it('tells how the company is paid: cash at the office or to the driver, online methods unavailable', async () => {
    const response = await app.request('/dashboard/api/payment-settings', {
      headers: { Cookie: world.staff.STAFF.cookie },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      currency: 'SYP',
      online_payments_available: false,
      refunds: 'FULL_ONLY',
      cash_shift_max_hours: 24,
    });
    expect(response.body.data.methods).toEqual([
      { method: 'CASH', available: true, collection_points: ['office', 'driver'], unavailable_reason: null },
      {
        method: 'SHAMCASH',
        available: false,
        collection_points: [],
        unavailable_reason: 'ONLINE_PAYMENTS_DEVELOPMENT_ONLY',
      },
      {
        method: 'CARD',
        available: false,
        collection_points: [],
        unavailable_reason: 'ONLINE_PAYMENTS_DEVELOPMENT_ONLY',
      },
    ]);
  });
});
