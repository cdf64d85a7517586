import type { PoolClient } from 'pg';
import { BEFORE_DEPARTURE } from '../../domain/booking-rules.js';
import { refuseOverdraw } from '../../domain/cash-shift.js';
import {
  PaymentDecisionRefusal,
  refuseNoteChange,
  transitionFor,
  type PaymentAction,
  type PaymentStatus,
} from '../../domain/payment-ledger.js';
import type { TripStatus } from '../../domain/trip-dispatch.js';
import type { Database } from '../orm.js';
import { withDeadlockRetry } from '../pg-errors.js';
import { COMPENSATION_REVOCATION } from '../queries/booking-ending.js';
import { readShiftSummary } from '../queries/cash-shifts.js';
import type { ActingMember } from './acting-member.js';
import { companyTransaction } from './active-company.js';
import { recordStaffAudit } from './audit.js';
import { revokeCredentials } from './boarding-credentials.js';
import { endJourneyBooking, type EndingBooking } from './booking-changes/end-booking.js';
import { lockJourneyOf, lockTrips, lockTripsOf } from './booking-changes/own-booking.js';
import { reverseBookingPoints } from './loyalty/reversal.js';
import { forfeitVouchers } from './loyalty/voucher-return.js';
import { lockOpenShift } from './cash-shifts.js';
import { recordCashCollection } from './payments.js';
import { writeTime } from './write-time.js';

/**
 * The company's money decisions on the ledger (SPEC "Payments (company)"). Each is one
 * transaction that locks the company (FOR SHARE, still ACTIVE: db/writes/active-company.ts), the
 * booking, then the operation (the order of db/writes/payments.ts;
 * a refund, which may end the booking, first locks the booking's trip, journey order and journey),
 * checks the move against domain/payment-ledger.ts's transition table, records the deciding
 * staff user, syncs the booking payment fact and writes the audit row. Money that enters or
 * leaves the till is tied to the company's open cash shift, locked FOR SHARE after the booking
 * and the operation so a concurrent CLOSE (FOR UPDATE) sees all or none of it. A line's change moves
 * the company's ledger statistics rows (payment_ledger_daily, by a trigger), which every trip's
 * payment writes share and a multi-line write (a trip CANCEL) takes in its own order: a decision
 * PostgreSQL aborts as a deadlock's victim has written nothing and runs again (withDeadlockRetry).
 */
type Queryable = Pick<PoolClient, 'query'>;

export interface Decider {
  companyId: string;
  staffUserId: string;
  /** The request the decision came from (requestOrigin), for its audit row. */
  ip?: string;
  requestId?: string;
  /**
   * The dashboard member deciding, with the roles the route lets in: checked again right after the
   * company row (db/writes/acting-member.ts); one signed out, deactivated or demoted while the
   * decision waited is refused (401 INVALID_CREDENTIAL, 403 ROLE_NOT_ALLOWED), changing nothing.
   */
  actor?: ActingMember | undefined;
}

interface LockedOperation {
  id: string;
  booking_id: string;
  booking_code: string;
  status: PaymentStatus;
  amount: number;
  /** Its booking, read under the booking's lock, has not ended (not CANCELLED or EXPIRED). */
  booking_live: boolean;
}

const notFound = () => new PaymentDecisionRefusal(404, 'PAYMENT_NOT_FOUND', 'No such payment');

/**
 * Locks the booking, then the operation; another company's operation is not found. `withJourney`
 * (a refund, which may end the booking) first locks the booking's trip FOR SHARE, then its journey
 * order and journey, in the order a traveller's cancel takes them
 * (db/writes/booking-changes/own-booking.ts), and answers the trip's status too.
 */
async function lockOperation(
  client: PoolClient,
  decider: Decider,
  paymentId: string,
  withJourney = false,
): Promise<LockedOperation & { trips: Map<string, TripStatus> }> {
  // booking_id, a booking's journey_id and a journey's order_id never change, so reading them before
  // the locks keeps the trip-then-journey-then-booking order. A booking's trip_id may (a modify
  // moves it): bookingEndedByRefund reads it again under the booking's lock.
  const { rows: found } = await client.query<{
    booking_id: string;
    journey_id: string | null;
    order_id: string | null;
    trip_id: string;
  }>(
    `select p.booking_id, b.journey_id, j.order_id, b.trip_id
       from payment_operations p join bookings b on b.id = p.booking_id left join journeys j on j.id = b.journey_id
      where p.id = $1 and p.company_id = $2`,
    [paymentId, decider.companyId],
  );
  if (!found[0]) throw notFound();
  const trips = withJourney
    ? await lockTrips(client, [found[0].trip_id], 'share')
    : new Map<string, TripStatus>();
  if (withJourney) await lockJourneyOf(client, found[0]);
  await client.query(`select id from bookings where id = $1 for update`, [found[0].booking_id]);
  const { rows } = await client.query<LockedOperation>(
    `select p.id, p.booking_id, b.booking_code, p.status, p.amount::float8 as amount,
            b.status not in ('CANCELLED', 'EXPIRED') as booking_live
       from payment_operations p join bookings b on b.id = p.booking_id
      where p.id = $1 for update of p`,
    [paymentId],
  );
  return { ...rows[0]!, trips };
}

/** The audit row of a decision on the payment operation `paymentId`. */
function auditPayment(
  client: Queryable,
  decider: Decider,
  action: string,
  paymentId: string,
  details: Record<string, unknown>,
): Promise<void> {
  return recordStaffAudit(client, decider, action, { kind: 'payment', id: paymentId }, details);
}

/** Locks and checks the operation for `action`; returns it with the step the table allows. */
async function decide(client: PoolClient, decider: Decider, paymentId: string, action: PaymentAction) {
  const { trips, ...operation } = await lockOperation(client, decider, paymentId, action === 'refund');
  return { operation, trips, transition: transitionFor(operation.status, action) };
}

/**
 * verify: the pending cash was received. Needs the company's open cash shift, and links the
 * operation to it; the booking becomes PAID (recordCashCollection refuses a booking that is
 * already paid or no longer payable).
 */
export async function verifyPayment(db: Database, decider: Decider, paymentId: string): Promise<void> {
  await withDeadlockRetry(() =>
    companyTransaction(db, decider, 'share', async (client) => {
      await decide(client, decider, paymentId, 'verify');
      const shift = await lockOpenShift(client, { companyId: decider.companyId }, 'share');
      await recordCashCollection(client, { paymentId, staffUserId: decider.staffUserId });
      await client.query(`update payment_operations set cash_shift_id = $2 where id = $1`, [
        paymentId,
        shift.id,
      ]);
      await auditPayment(client, decider, 'payments.verify', paymentId, { cashShiftId: shift.id });
    }),
  );
}

/**
 * The booking of a refund, when the refund ends it: a CONFIRMED booking of a journey whose bus has
 * not left (its trip SCHEDULED, BOARDING or DELAYED) has not travelled, and ends as a traveller's
 * cancel ends it (endJourneyBooking), whatever the cut-off: the company decides. Its trip was taken
 * FOR SHARE first (lockOperation), as the cancel takes it, so a DEPART and the refund take turns and
 * the trip's status read there stays true until the commit; a booking a modify moved to another trip
 * meanwhile has that trip locked here. A booking on a bus that has left is never cancelled
 * (the trip cancel's rule, db/writes/trip-operations/cancel-trip.ts): a CONFIRMED one there (DEPART
 * leaves unscanned bookings as they are; COMPLETE makes them NO_SHOW), like one that travelled
 * (CHECKED_IN, NO_SHOW, COMPLETED), keeps its status, seats and tickets: its refund is a
 * compensation. A booking is paid only once confirmed (domain/payment.ts), so no refund meets a
 * HELD or PENDING_CONFIRMATION one; an imported booking (no journey) ends so too (its own seats
 * released), and a cancelled one (a REFUND_DUE of a cancelled trip) is left as it is.
 */
async function bookingEndedByRefund(
  client: PoolClient,
  bookingId: string,
  trips: Map<string, TripStatus>,
): Promise<EndingBooking | null> {
  const { rows } = await client.query<EndingBooking & { status: string }>(
    `select b.id, b.journey_id, j.order_id, b.trip_id, b.status
       from bookings b left join journeys j on j.id = b.journey_id where b.id = $1`,
    [bookingId],
  );
  const { status, ...booking } = rows[0]!;
  if (status !== 'CONFIRMED') return null;
  const tripStatus = trips.get(booking.trip_id) ?? (await lockTripsOf(client, booking, [], 'share'));
  if (!BEFORE_DEPARTURE.includes(tripStatus)) return null;
  return booking;
}

/**
 * refund: the full amount, paid back from the open shift's till (an OUT movement of kind REFUND
 * naming the payment); the booking becomes REFUNDED, so its receipt becomes a refund notice, and
 * the loyalty points it earned are taken back (reverseBookingPoints). A booking that has not
 * travelled ends (bookingEndedByRefund): seats free, tickets cancelled, credentials revoked
 * (BOOKING_REFUNDED), booking and journey CANCELLED; one kept (a compensation) has its VALID
 * tickets' credentials revoked (revokeKeptCredentials, BOOKING_COMPENSATED). Ended or kept, a live booking's voucher is
 * forfeited (forfeitVouchers): a trip CANCEL never gives it back. Locks: the booking's trip (FOR
 * SHARE), the journey order and journey, the booking, the operation, then the shift: a DEPART or a
 * trip CANCEL takes its trip before the journeys and bookings on it, so it and the refund take
 * turns on the trip (test/api/dashboard/cancel-lock-order.test.ts). Taken after the booking, the
 * trip deadlocked with a trip CANCEL; a deadlock left (a modify moving the booking meanwhile) runs
 * the refund again.
 */
export async function refundPayment(db: Database, decider: Decider, paymentId: string): Promise<void> {
  await withDeadlockRetry(() => refundOnce(db, decider, paymentId));
}

async function refundOnce(db: Database, decider: Decider, paymentId: string): Promise<void> {
  await companyTransaction(db, decider, 'share', async (client) => {
    const { operation, trips, transition } = await decide(client, decider, paymentId, 'refund');
    const ending = await bookingEndedByRefund(client, operation.booking_id, trips);
    // FOR UPDATE, as an OUT adjustment: two refunds of different payments must not both find the cash
    // only one of them can take (test/api/dashboard/payments-concurrency.test.ts).
    const shift = await lockOpenShift(client, { companyId: decider.companyId }, 'update');
    refuseOverdraw((await readShiftSummary(client, shift.id))!.expectedAmount, operation.amount);
    // The refund's time, read after the shift's lock (writeTime), as a collection's: a refund that
    // waited while the shift was opened is never dated before it. The booking it ends, its tickets'
    // revocations and the till's movement carry the same instant.
    const at = await writeTime(client);
    await client.query(
      `update payment_operations set status = $2, refunded_at = $4::timestamptz, refunded_by = $3,
              updated_at = $4::timestamptz
        where id = $1`,
      [paymentId, transition.to, decider.staffUserId, at],
    );
    await client.query(
      `update bookings set payment_status = $2, updated_at = $3::timestamptz where id = $1`,
      [operation.booking_id, transition.bookingFact, at],
    );
    if (ending) await endJourneyBooking(client, ending, 'BOOKING_REFUNDED', at);
    else await revokeKeptCredentials(client, operation.booking_id, at);
    // A refunded booking keeps no loyalty points (the booking row is locked: awardTripPoints waits).
    await reverseBookingPoints(client, operation.booking_id);
    // The traveller has their money back: a voucher the live booking used stays spent for good, even
    // when a trip CANCEL ends its other bookings (a round trip's). One a trip CANCEL already ended
    // (this is its REFUND_DUE) is not: that cancel was the company's. After the accounts, as
    // giveBackVouchers takes them before the vouchers.
    if (operation.booking_live) await forfeitVouchers(client, [operation.booking_id], at);
    await takeRefundFromTill(client, decider, operation, shift.id);
    await auditPayment(client, decider, 'payments.refund', paymentId, {
      amount: operation.amount,
      from: operation.status,
      cashShiftId: shift.id,
    });
  });
}

/**
 * A compensation (the booking is kept) still gives the money back, so the booking's tickets no longer
 * board: the credentials of its tickets of its trip still VALID go on the revocation list
 * (BOOKING_COMPENSATED), and /verify, the driver app's list and the traveller's QR code follow it.
 * Its own reason, not the ending refund's BOOKING_REFUNDED: the booking lives on, and a trip CANCEL
 * that ends it later finds the ticket listed already (one entry per ticket), so how the booking
 * ended (db/queries/booking-ending.ts) must not read this entry as its end. The
 * tickets keep their status (a USED one stays USED; a cancelled or re-issued one was revoked then);
 * an imported booking (no journey) has none. The locks are the refund's: the trip FOR SHARE, the
 * journey (a re-issue takes it before the ticket) and the booking (a check-in takes it before the
 * ticket), so the revocation's key-share lock on each ticket waits for no one holding it.
 */
async function revokeKeptCredentials(client: PoolClient, bookingId: string, at: string): Promise<void> {
  const { rows: tickets } = await client.query<{ id: string }>(
    `select k.id from bookings b join journey_tickets k on k.journey_id = b.journey_id and k.trip_id = b.trip_id
      where b.id = $1 and k.status = 'VALID'`,
    [bookingId],
  );
  const ticketIds = tickets.map((ticket) => ticket.id);
  await revokeCredentials(client, ticketIds, COMPENSATION_REVOCATION, at);
}

/**
 * The refund's OUT movement, recorded at the refund's time (refunded_at); a payment of nothing (a
 * voucher paid the whole fare) takes no cash out of the till.
 */
async function takeRefundFromTill(
  client: Queryable,
  decider: Decider,
  operation: LockedOperation,
  shiftId: string,
): Promise<void> {
  if (operation.amount <= 0) return;
  await client.query(
    `insert into cash_shift_movements (shift_id, company_id, kind, direction, amount, reason, payment_id, recorded_by,
                                       recorded_at)
     values ($1, $2, 'REFUND', 'OUT', $3, $4, $5, $6, (select refunded_at from payment_operations where id = $5))`,
    [
      shiftId,
      decider.companyId,
      operation.amount,
      `Refund of booking ${operation.booking_code}`,
      operation.id,
      decider.staffUserId,
    ],
  );
}

/** cancel: an incomplete (PENDING) operation will not be collected; the booking stays UNPAID. */
export async function cancelPayment(db: Database, decider: Decider, paymentId: string): Promise<void> {
  await withDeadlockRetry(() =>
    companyTransaction(db, decider, 'share', async (client) => {
      const { transition } = await decide(client, decider, paymentId, 'cancel');
      await client.query(
        `update payment_operations set status = $2, cancelled_at = now(), cancelled_by = $3, updated_at = now()
          where id = $1`,
        [paymentId, transition.to, decider.staffUserId],
      );
      await auditPayment(client, decider, 'payments.cancel', paymentId, {});
    }),
  );
}

/** PATCH: the note only, and only before a final state. */
export async function changePaymentNote(
  db: Database,
  decider: Decider,
  paymentId: string,
  note: string | null,
): Promise<void> {
  await companyTransaction(db, decider, 'share', async (client) => {
    const { rows } = await client.query<{ status: PaymentStatus }>(
      `select status from payment_operations where id = $1 and company_id = $2 for update`,
      [paymentId, decider.companyId],
    );
    if (!rows[0]) throw notFound();
    refuseNoteChange(rows[0].status);
    await client.query(`update payment_operations set note = $2, updated_at = now() where id = $1`, [
      paymentId,
      note,
    ]);
    await auditPayment(client, decider, 'payments.note', paymentId, { noteLength: note?.length ?? 0 });
  });
}

/**
 * POST /payments: the office takes a booking's cash. It completes the booking's announced
 * (PENDING) payment when it has one, else records a COMPLETED `office` operation; either way the
 * money goes into the open cash shift and the booking becomes PAID.
 */
export async function recordOfficePayment(
  db: Database,
  decider: Decider,
  input: { bookingId: string; note?: string | null },
): Promise<{ paymentId: string }> {
  return withDeadlockRetry(() =>
    companyTransaction(db, decider, 'share', async (client) => {
      // The booking, then the shift, before the collection writes its operation (and the ledger's daily
      // statistics row, through its trigger): the order verify and refund keep. Taking the shift after
      // the collection deadlocked against a refund, which holds the shift when it updates the statistics.
      const { rows } = await client.query<{ id: string }>(
        `select id from bookings where id = $1 and company_id = $2 for update`,
        [input.bookingId, decider.companyId],
      );
      if (!rows[0]) throw new PaymentDecisionRefusal(404, 'BOOKING_NOT_FOUND', 'No such booking');
      const shift = await lockOpenShift(client, { companyId: decider.companyId }, 'share');
      const collection = await recordCashCollection(client, {
        bookingId: input.bookingId,
        source: 'office',
        staffUserId: decider.staffUserId,
      });
      await client.query(
        `update payment_operations set cash_shift_id = $2, note = coalesce($3, note) where id = $1`,
        [collection.paymentId, shift.id, input.note ?? null],
      );
      await auditPayment(client, decider, 'payments.record', collection.paymentId, {
        bookingId: input.bookingId,
        amount: collection.amount,
        cashShiftId: shift.id,
      });
      return { paymentId: collection.paymentId };
    }),
  );
}
