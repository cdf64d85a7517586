import { expect } from 'vitest';
import { createCorridor } from './factories.js';
import type { TestApp, TestResponse } from './harness.js';
import { confirmedJourneyRows, journeyTripOf, staffSession, type JourneyTrip } from './journey-rows.js';
import { announceCashPayment, collectCash } from './payments.js';
import type { StaffRole } from './staff.js';

/**
 * A company's finance world for dashboard tests: a trip, a signed-in member of every dashboard
 * role, a traveller who owns the bookings, and helpers for payments and the cash shift.
 */
export type Session = Awaited<ReturnType<typeof staffSession>>;

/** What a request on a member's behalf needs of their session (an operations world's sessions have no more). */
type Writer = Pick<Session, 'writeHeaders'>;

export interface FinanceWorld {
  companyId: string;
  trip: JourneyTrip;
  travellerId: string;
  staff: Record<Exclude<StaffRole, 'DRIVER'>, Session>;
}

export const DASHBOARD_ROLES = ['OWNER', 'ADMIN', 'ACCOUNTANT', 'DISPATCHER', 'STAFF'] as const;

export async function financeWorld(app: TestApp): Promise<FinanceWorld> {
  const world = await createCorridor(app.db);
  const trip = journeyTripOf(world);
  const traveller = await app.signIn();
  const sessions = await Promise.all(
    DASHBOARD_ROLES.map((role) => staffSession(app.db, app.config, trip.companyId, role)),
  );
  const staff = Object.fromEntries(
    DASHBOARD_ROLES.map((role, index) => [role, sessions[index]!]),
  ) as FinanceWorld['staff'];
  return { companyId: trip.companyId, trip, travellerId: traveller.userId, staff };
}

/** A confirmed booking of the world's traveller (10,000 SYP a seat). */
export async function confirmedBooking(app: TestApp, world: FinanceWorld, travellers = ['Rami Haddad']) {
  const rows = await confirmedJourneyRows(app.db, {
    ownerUserId: world.travellerId,
    trip: world.trip,
    travellers,
  });
  const [booking] = await app.db.query<{ booking_code: string }>(
    `select booking_code from bookings where id = $1`,
    [rows.bookingId],
  );
  return { bookingId: rows.bookingId, bookingCode: booking!.booking_code };
}

/** A booking with the traveller's announced (PENDING) cash payment. */
export async function pendingPayment(app: TestApp, world: FinanceWorld) {
  const booking = await confirmedBooking(app, world);
  const { paymentId } = await announceCashPayment(app.db, booking.bookingId, world.travellerId);
  return { ...booking, paymentId };
}

/** A booking whose cash was collected (COMPLETED, not linked to a shift). */
export async function collectedPayment(
  app: TestApp,
  world: FinanceWorld,
  source: 'driver' | 'office' = 'driver',
) {
  const booking = await confirmedBooking(app, world);
  const collection = await collectCash(app.db, booking.bookingId, { source });
  return { ...booking, paymentId: collection.paymentId };
}

export function shiftCommand(app: TestApp, session: Writer, json: unknown): Promise<TestResponse> {
  return app.request('/dashboard/api/payments/cash-shifts', {
    method: 'POST',
    headers: session.writeHeaders,
    json,
  });
}

/** `session`'s member as the cash-shift routes send them with a step (OWNER or ADMIN let in). */
export const shiftActor = (session: Session) => ({
  sessionId: session.sessionId,
  membershipId: session.membershipId,
  staffUserId: session.staffUserId,
  allowedRoles: ['OWNER', 'ADMIN'],
});

/** Opens the company's shift through the API (fails the test otherwise). */
export async function openShift(app: TestApp, session: Writer, openingBalance = 50_000) {
  const response = await shiftCommand(app, session, { action: 'OPEN', opening_balance: openingBalance });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: string; expected_amount: number };
}

export function paymentAction(
  app: TestApp,
  session: Writer,
  paymentId: string,
  action: 'verify' | 'refund' | 'cancel',
  json?: unknown,
): Promise<TestResponse> {
  return app.request(`/dashboard/api/payments/${paymentId}/${action}`, {
    method: 'POST',
    headers: session.writeHeaders,
    ...(json === undefined ? {} : { json }),
  });
}

/** POST /payments: the office takes the booking's cash into the open shift (fails the test otherwise); the operation's id. */
export async function payAtOffice(app: TestApp, session: Writer, bookingId: string): Promise<string> {
  const paid = await app.request('/dashboard/api/payments', {
    method: 'POST',
    headers: session.writeHeaders,
    json: { booking_id: bookingId },
  });
  expect(paid.status, paid.text).toBe(201);
  return paid.body.data.id as string;
}

/** A full refund of the payment by `session` (fails the test unless it answers 200). */
export async function refundInFull(app: TestApp, session: Writer, paymentId: string): Promise<TestResponse> {
  const refund = await paymentAction(app, session, paymentId, 'refund');
  expect(refund.status, refund.text).toBe(200);
  return refund;
}

/** The rows a refused request must leave exactly as they were. */
export async function financeSnapshot(app: TestApp, companyId: string) {
  return {
    payments: await app.db.query(
      `select id, status, note, cash_shift_id, decided_by, refunded_by, cancelled_by, updated_at
         from payment_operations where company_id = $1 order by id`,
      [companyId],
    ),
    bookings: await app.db.query(
      `select id, payment_status, updated_at from bookings where company_id = $1 order by id`,
      [companyId],
    ),
    shifts: await app.db.query(`select * from cash_shifts where company_id = $1 order by id`, [companyId]),
    movements: await app.db.query(`select * from cash_shift_movements where company_id = $1 order by id`, [
      companyId,
    ]),
  };
}

/** A company's booking paid at the office, verified and then refunded in full by its accountant. */
export async function bookingRefundedInFull(app: TestApp) {
  const world = await financeWorld(app);
  await openShift(app, world.staff.OWNER, 50_000);
  const payment = await pendingPayment(app, world);
  for (const action of ['verify', 'refund'] as const) {
    const response = await paymentAction(app, world.staff.ACCOUNTANT, payment.paymentId, action);
    expect(response.status, response.text).toBe(200);
  }
  return { world, payment };
}
