import type { PoolClient } from 'pg';
import { driverCollectionRefusal } from '../../domain/payment.js';
import type { PaymentStatus } from '../../domain/payment-ledger.js';
import { Refusal } from '../../domain/refusal.js';
import { DispatchRefusal, tripNotFound, type TripStatus } from '../../domain/trip-dispatch.js';
import type { Database } from '../orm.js';
import { withDeadlockRetry } from '../pg-errors.js';
import type { ActingMember } from './acting-member.js';
import { companyTransaction } from './active-company.js';
import { recordDriverAudit, type RequestOrigin } from './audit.js';

/**
 * POST /driver/api/trips/{id}/bookings/{bookingId}/cash-collection: the trip's driver records the
 * cash they took at the door (SPEC's ledger source "driver collection"). It writes the booking's
 * PENDING `driver` line of its amount, the driver as `collected_by`; the office then verifies it
 * (POST /dashboard/api/payments/{id}/verify) into its open cash shift, and the booking becomes PAID.
 *
 * A booking has one pending cash line at most, so its cash is collected once: the traveller's
 * announced line (source transaction, POST /api/payments/create) is taken over, becoming the
 * driver's, and a traveller who announces afterwards is answered with the driver's line
 * (db/writes/payments.ts openCashPayment). A recording sent again (a retry, an offline queue) finds
 * the booking's live driver line and answers it: the booking row lock makes concurrent recordings
 * queue, and the partial unique index payment_operations_one_live_driver is the backstop.
 *
 * Locks, in the order a scan at the door takes them: the company (FOR SHARE, still ACTIVE) and the
 * acting user, the trip FOR SHARE (a trip CANCEL, which cancels the trip's pending lines, waits),
 * the booking FOR UPDATE, then its lines (the order of every payment write). The ledger's daily
 * statistics rows, moved by a trigger as the lines change, are the company's, shared with every
 * other trip: a write of another trip's lines taking them in another order deadlocks with the
 * takeover (a trip CANCEL did, until cancelPendingPayments ended announced lines first), so a
 * recording PostgreSQL aborts as a deadlock's victim, having written nothing, runs again
 * (withDeadlockRetry) rather than answering 500 (test/api/driver/cash-collection-deadlock.test.ts).
 */
export interface DriverCollectionInput {
  companyId: string;
  tripId: string;
  bookingId: string;
  /** The driver app's signed-in user, read again under the company lock (db/writes/acting-member.ts). */
  actor: ActingMember;
  /** The request that records it (requestOrigin), for the audit row. */
  origin: RequestOrigin;
}

/** The driver's line as the app shows it; instants are timestamptz text. */
export interface DriverCashLine {
  id: string;
  booking_id: string;
  booking_code: string;
  source: 'driver';
  status: PaymentStatus;
  amount: number;
  currency: string;
  collected_by: string | null;
  created_at: string;
}

interface OnTripBooking {
  id: string;
  owner_user_id: string | null;
  status: string;
  payment_status: 'UNPAID' | 'PAID' | 'REFUNDED';
  amount_due: number;
  currency: string;
}

type Queryable = Pick<PoolClient, 'query'>;

export async function recordDriverCollection(
  db: Database,
  input: DriverCollectionInput,
): Promise<{ line: DriverCashLine; created: boolean }> {
  const company = { companyId: input.companyId, actor: input.actor };
  return withDeadlockRetry(() =>
    companyTransaction(db, company, 'share', async (client) => {
      const tripStatus = await lockDriversTrip(client, input);
      const booking = await lockBookingOnTrip(client, input);
      const live = await liveDriverLine(client, booking.id);
      if (live) return { line: (await lineOf(client, live))!, created: false };
      const refusal = driverCollectionRefusal(
        { status: booking.status, paymentStatus: booking.payment_status, amountDue: booking.amount_due },
        tripStatus,
      );
      if (refusal) throw new Refusal(409, refusal.code, refusal.message, refusal.details);
      const announced = await takeOverAnnouncement(client, booking, input.actor.staffUserId);
      const paymentId = announced ?? (await insertDriverLine(client, input, booking));
      await recordDriverAudit(
        client,
        { companyId: input.companyId, staffUserId: input.actor.staffUserId, ...input.origin },
        'payments.driver_collection',
        { kind: 'payment', id: paymentId },
        {
          bookingId: booking.id,
          tripId: input.tripId,
          amount: booking.amount_due,
          tookOver: announced !== null,
        },
      );
      return { line: (await lineOf(client, paymentId))!, created: true };
    }),
  );
}

/**
 * The company's trip, held FOR SHARE; only its driver records cash on it, whatever their role (an
 * office user who takes cash records it at POST /dashboard/api/payments): 403 TRIP_NOT_ASSIGNED.
 */
async function lockDriversTrip(client: Queryable, input: DriverCollectionInput): Promise<TripStatus> {
  const { rows } = await client.query<{ status: TripStatus; driver_id: string | null }>(
    `select status, driver_id from trips where id = $1 and company_id = $2 for share`,
    [input.tripId, input.companyId],
  );
  if (!rows[0]) throw tripNotFound();
  if (rows[0].driver_id !== input.actor.staffUserId) {
    throw new DispatchRefusal(403, 'TRIP_NOT_ASSIGNED', 'Only the trip’s driver records the cash they took');
  }
  return rows[0].status;
}

/** The booking, FOR UPDATE, when it is on this trip (a booking moved to another trip meanwhile is not). */
async function lockBookingOnTrip(client: Queryable, input: DriverCollectionInput): Promise<OnTripBooking> {
  const { rows } = await client.query<OnTripBooking>(
    `select id, owner_user_id, status, payment_status, total_price::float8 as amount_due, currency
       from bookings where id = $1 and trip_id = $2 and company_id = $3 for update`,
    [input.bookingId, input.tripId, input.companyId],
  );
  if (!rows[0]) throw new Refusal(404, 'BOOKING_NOT_FOUND', 'No such booking on this trip');
  return rows[0];
}

/** The booking's live (PENDING or COMPLETED) driver line, locked. */
async function liveDriverLine(client: Queryable, bookingId: string): Promise<string | undefined> {
  const { rows } = await client.query<{ id: string }>(
    `select id from payment_operations
      where booking_id = $1 and source = 'driver' and status in ('PENDING', 'COMPLETED') for update`,
    [bookingId],
  );
  return rows[0]?.id;
}

/**
 * The traveller's announced cash line, when the booking has one, becomes the driver's: the same
 * money, now in the driver's hands (its amount the booking's total as it stands).
 */
async function takeOverAnnouncement(
  client: Queryable,
  booking: OnTripBooking,
  driverId: string,
): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>(
    `update payment_operations set source = 'driver', collected_by = $2, amount = $3, updated_at = now()
      where id = (select id from payment_operations where booking_id = $1 and source = 'transaction'
                    and status = 'PENDING' order by created_at limit 1 for update)
      returning id`,
    [booking.id, driverId, booking.amount_due],
  );
  return rows[0]?.id ?? null;
}

async function insertDriverLine(
  client: Queryable,
  input: DriverCollectionInput,
  booking: OnTripBooking,
): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `insert into payment_operations (company_id, booking_id, user_id, method, provider, source, amount, currency,
                                     collected_by)
     values ($1, $2, $3, 'CASH', 'cash', 'driver', $4, $5, $6) returning id`,
    [
      input.companyId,
      booking.id,
      booking.owner_user_id,
      booking.amount_due,
      booking.currency,
      input.actor.staffUserId,
    ],
  );
  return rows[0]!.id;
}

async function lineOf(client: Queryable, paymentId: string): Promise<DriverCashLine | undefined> {
  const { rows } = await client.query<DriverCashLine>(
    `select p.id, p.booking_id, b.booking_code, p.source, p.status, p.amount::float8 as amount, p.currency,
            p.collected_by, p.created_at
       from payment_operations p join bookings b on b.id = p.booking_id where p.id = $1`,
    [paymentId],
  );
  return rows[0];
}
