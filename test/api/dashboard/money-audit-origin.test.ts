import { describe, expect, it } from 'vitest';
import {
  confirmedBooking,
  financeWorld,
  paymentAction,
  pendingPayment,
  shiftCommand,
  type Session,
} from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { advance, bookSeats, operationsWorld, scan } from '../../support/operations.js';

/**
 * README (Company staff and administrators): the audit log (audit.view) shows every row with the
 * actor, action, target, time and IP; (Operations) audit rows keep the exact address; (Layout) the
 * `{ ip, requestId }` an audit row records is requestOrigin(ctx). The money a company's people move
 * (the ledger's decisions, the till's steps, the driver's collection at the door) is audited with
 * the request each came from, like any other act of theirs. The app trusts one proxy hop, so each
 * member's requests come from the address X-Forwarded-For names.
 */
describe('the audit log of money decisions, cash shifts and driver collections', () => {
  const app = useTestApp({ TRUSTED_PROXY_HOPS: 1 });

  /** `session` writing from the client address `ip`. */
  const from = (session: Session, ip: string) => ({
    writeHeaders: { ...session.writeHeaders, 'X-Forwarded-For': ip },
  });

  const auditRows = (where: string, params: unknown[]) =>
    app.db.query<{
      action: string;
      actor_id: string | null;
      ip: string | null;
      request_id: string | null;
      details: Record<string, unknown>;
    }>(`select action, actor_id, ip, request_id, details from audit_log where ${where} order by id`, params);

  it('shows the IP and request id of a verify, an office payment and a refund; a refused verify leaves no row', async () => {
    const world = await financeWorld(app);
    const pending = await pendingPayment(app, world);
    const accountant = from(world.staff.ACCOUNTANT, '203.0.113.10');

    // No open shift: refused, and nothing audited.
    const refused = await paymentAction(app, accountant, pending.paymentId, 'verify');
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    expect(await auditRows(`action like 'payments.%' and target_id = $1`, [pending.paymentId])).toEqual([]);

    const opened = await shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 50_000 });
    expect(opened.status, opened.text).toBe(201);
    const verified = await paymentAction(app, accountant, pending.paymentId, 'verify');
    expect(verified.status, verified.text).toBe(200);

    const booking = await confirmedBooking(app, world);
    const office = await app.request('/dashboard/api/payments', {
      method: 'POST',
      headers: from(world.staff.ADMIN, '2001:db8::20').writeHeaders,
      json: { booking_id: booking.bookingId },
    });
    expect(office.status, office.text).toBe(201);

    const refunded = await paymentAction(
      app,
      from(world.staff.OWNER, '198.51.100.30'),
      pending.paymentId,
      'refund',
    );
    expect(refunded.status, refunded.text).toBe(200);

    const rows = await auditRows(`action like 'payments.%' and target_id in ($1, $2)`, [
      pending.paymentId,
      office.body.data.id,
    ]);
    expect(rows.map(({ details, ...row }) => ({ ...row, companyId: details.companyId }))).toEqual([
      {
        action: 'payments.verify',
        actor_id: world.staff.ACCOUNTANT.staffUserId,
        ip: '203.0.113.10',
        request_id: verified.headers.get('X-Request-Id'),
        companyId: world.companyId,
      },
      {
        action: 'payments.record',
        actor_id: world.staff.ADMIN.staffUserId,
        ip: '2001:db8::20',
        request_id: office.headers.get('X-Request-Id'),
        companyId: world.companyId,
      },
      {
        action: 'payments.refund',
        actor_id: world.staff.OWNER.staffUserId,
        ip: '198.51.100.30',
        request_id: refunded.headers.get('X-Request-Id'),
        companyId: world.companyId,
      },
    ]);
  });

  it("shows the IP, request id and company of the till's OPEN, ADJUST and CLOSE; a refused ADJUST leaves no row", async () => {
    const world = await financeWorld(app);
    const owner = from(world.staff.OWNER, '203.0.113.41');
    const admin = from(world.staff.ADMIN, '203.0.113.42');
    const opened = await shiftCommand(app, owner, { action: 'OPEN', opening_balance: 10_000 });
    expect(opened.status, opened.text).toBe(201);
    const shiftId = opened.body.data.id as string;

    // More out than the till holds: refused, and nothing audited.
    const overdraw = await shiftCommand(app, admin, {
      action: 'ADJUST',
      direction: 'OUT',
      amount: 20_000,
      reason: 'more than the till holds',
    });
    expect([overdraw.status, overdraw.body.errorCode]).toEqual([409, 'CASH_SHIFT_INSUFFICIENT_CASH']);

    const adjusted = await shiftCommand(app, admin, {
      action: 'ADJUST',
      direction: 'OUT',
      amount: 1_000,
      reason: 'bought receipt paper',
    });
    expect(adjusted.status, adjusted.text).toBe(200);
    const closed = await shiftCommand(app, owner, { action: 'CLOSE', declared_amount: 9_000 });
    expect(closed.status, closed.text).toBe(200);

    const rows = await auditRows(`target_kind = 'cash_shift' and target_id = $1`, [shiftId]);
    expect(rows.map(({ details, ...row }) => ({ ...row, companyId: details.companyId }))).toEqual([
      {
        action: 'cash_shifts.open',
        actor_id: world.staff.OWNER.staffUserId,
        ip: '203.0.113.41',
        request_id: opened.headers.get('X-Request-Id'),
        companyId: world.companyId,
      },
      {
        action: 'cash_shifts.adjust',
        actor_id: world.staff.ADMIN.staffUserId,
        ip: '203.0.113.42',
        request_id: adjusted.headers.get('X-Request-Id'),
        companyId: world.companyId,
      },
      {
        action: 'cash_shifts.close',
        actor_id: world.staff.OWNER.staffUserId,
        ip: '203.0.113.41',
        request_id: closed.headers.get('X-Request-Id'),
        companyId: world.companyId,
      },
    ]);
    // The facts of each step stay as they were.
    expect(rows.map((row) => row.details)).toEqual([
      { companyId: world.companyId, openingBalance: 10_000 },
      { companyId: world.companyId, movementId: expect.any(String), direction: 'OUT', amount: 1_000 },
      { companyId: world.companyId, declared: 9_000, expected: 9_000, difference: 0 },
    ]);
  });

  it("shows the IP and request id of a driver's cash collection; the recording sent again adds no row", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const rami = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const scanned = await scan(app, world.driver.token, world.trip.tripId, rami.credentials[0]!);
    expect(scanned.body.data).toMatchObject({ outcome: 'CHECKED_IN', booking: { cashToCollect: true } });

    const collect = () =>
      app.request(`/driver/api/trips/${world.trip.tripId}/bookings/${rami.bookingId}/cash-collection`, {
        method: 'POST',
        token: world.driver.token,
        headers: { 'X-Forwarded-For': '2001:db8:5::7' },
      });
    const collected = await collect();
    expect(collected.status, collected.text).toBe(201);
    const again = await collect();
    expect(again.status, again.text).toBe(200);

    const rows = await auditRows(`action = 'payments.driver_collection' and target_id = $1`, [
      collected.body.data.id,
    ]);
    expect(rows.map(({ details, ...row }) => ({ ...row, companyId: details.companyId }))).toEqual([
      {
        action: 'payments.driver_collection',
        actor_id: world.driver.staffUserId,
        ip: '2001:db8:5::7',
        request_id: collected.headers.get('X-Request-Id'),
        companyId: world.companyId,
      },
    ]);
  });
});
