import type { PoolClient } from 'pg';
import {
  unpayableRefusal,
  type PaymentMethod,
  type PaymentSource,
  type PaymentStatus,
} from '../../domain/payment.js';
import { Refusal } from '../../domain/refusal.js';
import type { Database } from '../orm.js';
import { withDeadlockRetry } from '../pg-errors.js';
import { ownBookingSql } from '../queries/booking-ownership.js';
import { OPERATION_COLUMNS, type PaymentOperation } from '../queries/payments.js';

/**
 * Writes of the payment ledger (payment_operations). Every write locks the booking row first and
 * then the operation, in that order everywhere, so two writers of one booking queue instead of
 * deadlocking, and the booking's payment fact (bookings.payment_status) changes in the same
 * transaction as the operation that proves it.
 */
export type { PaymentMethod, PaymentSource, PaymentStatus };
export type { PaymentOperation };

/** A refusal the API turns into its status and errorCode; nothing was written. */
export class PaymentRefusal extends Refusal {
  declare readonly status: 404 | 409;
  constructor(status: 404 | 409, code: string, message: string) {
    super(status, code, message);
  }
}

type Queryable = Pick<PoolClient, 'query'>;

interface LockedBooking {
  id: string;
  company_id: string;
  owner_user_id: string | null;
  status: string;
  payment_status: 'UNPAID' | 'PAID' | 'REFUNDED';
  amount_due: number;
  currency: string;
  /** The booking is the traveller's that lockBooking was given (ownBookingSql); null without one. */
  owned: boolean | null;
}

/** The booking locked FOR UPDATE, and whether it is `travellerId`'s own (when one is given). */
async function lockBooking(
  client: Queryable,
  bookingId: string,
  travellerId: string | null = null,
): Promise<LockedBooking | undefined> {
  // total_price is the final price of the booking (any voucher discount already taken off).
  const { rows } = await client.query<LockedBooking>(
    `select b.id, b.company_id, b.owner_user_id, b.status, b.payment_status, b.total_price::float8 as amount_due,
            b.currency, ${ownBookingSql('$2')} as owned
       from bookings b where b.id = $1 for update`,
    [bookingId, travellerId],
  );
  return rows[0];
}

function refuseUnpayable(booking: LockedBooking, by: 'open' | 'collect'): void {
  const refusal = unpayableRefusal(
    { status: booking.status, paymentStatus: booking.payment_status, amountDue: booking.amount_due },
    by,
  );
  if (refusal) throw new PaymentRefusal(409, refusal.code, refusal.message);
}

async function pendingOperationOf(
  client: Queryable,
  bookingId: string,
  sources: PaymentSource[],
): Promise<PaymentOperation | undefined> {
  const { rows } = await client.query<PaymentOperation>(
    `select ${OPERATION_COLUMNS} from payment_operations
      where booking_id = $1 and status = 'PENDING' and source = any($2::text[])
      order by created_at limit 1 for update`,
    [bookingId, sources],
  );
  return rows[0];
}

export interface OpenedCashPayment {
  payment: PaymentOperation;
  /** false when the booking already had a pending cash payment, which is returned instead. */
  created: boolean;
}

/**
 * A traveller announces they will pay a booking of theirs (ownBookingSql: owned, or made for their
 * canonical passenger; anyone else's is 404) in cash (at the company office or to the driver before
 * boarding): one PENDING 'transaction' operation for the booking's amount (a booking that costs
 * nothing is refused NOTHING_TO_COLLECT).
 * Asking again returns the same pending operation, as does asking after the trip's driver recorded
 * taking the cash (its PENDING `driver` line, db/writes/driver-collections.ts); the booking lock
 * makes concurrent asks queue, and the partial unique index payment_operations_one_open_transaction
 * is the backstop. Its new line moves the company's ledger statistics row (a trigger), which other
 * trips' writes hold too: an ask PostgreSQL aborts as a deadlock's victim, having written nothing,
 * runs again (withDeadlockRetry), and so finds no line of its own.
 */
export async function openCashPayment(
  db: Database,
  input: { bookingId: string; userId: string },
): Promise<OpenedCashPayment> {
  return withDeadlockRetry(() =>
    db.transaction(async (client) => {
      const booking = await lockBooking(client, input.bookingId, input.userId);
      if (!booking?.owned) {
        throw new PaymentRefusal(404, 'BOOKING_NOT_FOUND', 'No such booking');
      }
      refuseUnpayable(booking, 'open');
      // The driver's recorded collection is the booking's pending cash too: its cash is taken once.
      const pending = await pendingOperationOf(client, booking.id, ['transaction', 'driver']);
      if (pending) return { payment: pending, created: false };
      return { payment: await insertPendingOperation(client, booking, 'transaction'), created: true };
    }),
  );
}

export type CashCollectionInput = {
  /** The staff user (company member or driver) who took or verified the cash; null for imports. */
  staffUserId?: string | null;
  /** When the cash changed hands; now when not given. */
  collectedAt?: Date;
} & (
  | {
      /** Completes this PENDING operation; it keeps its own source. */
      paymentId: string;
      bookingId?: undefined;
      source?: undefined;
    }
  | {
      /**
       * Completes the booking's PENDING operation when it has one (the traveller's announced cash
       * payment keeps its source); otherwise records a new COMPLETED operation with `source`.
       */
      bookingId: string;
      source: PaymentSource;
      paymentId?: undefined;
    }
);

export interface CashCollection {
  paymentId: string;
  bookingId: string;
  companyId: string;
  source: PaymentSource;
  amount: number;
  currency: string;
  collectedAt: Date;
}

/**
 * Proves that a booking's cash was collected, inside the caller's transaction: locks the booking
 * and the operation, marks the operation COMPLETED with collected_at and the deciding staff user,
 * and sets the booking's payment fact to PAID. Refuses (PaymentRefusal) an unknown payment or
 * booking, an operation that is not PENDING, a booking already paid, refunded, cancelled or
 * otherwise not payable, and one that costs nothing (NOTHING_TO_COLLECT: it stays UNPAID). The dashboard's verify action and tests of receipts build on this.
 */
export async function recordCashCollection(
  client: Queryable,
  input: CashCollectionInput,
): Promise<CashCollection> {
  const bookingId =
    input.bookingId === undefined ? await bookingOfOperation(client, input.paymentId) : input.bookingId;
  const booking = await lockBooking(client, bookingId);
  if (!booking) throw new PaymentRefusal(404, 'BOOKING_NOT_FOUND', 'No such booking');
  refuseUnpayable(booking, 'collect');

  let operation: PaymentOperation | undefined;
  if (input.bookingId === undefined) {
    const { rows } = await client.query<PaymentOperation>(
      `select ${OPERATION_COLUMNS} from payment_operations where id = $1 for update`,
      [input.paymentId],
    );
    operation = rows[0];
    if (operation?.status !== 'PENDING') {
      throw new PaymentRefusal(409, 'PAYMENT_NOT_PENDING', 'Only a pending payment can be collected');
    }
  } else {
    operation =
      (await pendingOperationOf(client, booking.id, ['transaction', 'driver', 'office', 'booking'])) ??
      (await insertPendingOperation(client, booking, input.source));
  }

  // The clock as the collection is written (clock_timestamp()), after the booking's and the caller's
  // locks (the open shift's), not this transaction's start: a collection that waited while its shift
  // was opened is counted in that shift, so it is never dated before the shift opened.
  const { rows } = await client.query<{ collected_at: string }>(
    `update payment_operations p
        set status = 'COMPLETED', collected_at = coalesce($2::timestamptz, w.at), decided_by = $3, decided_at = w.at,
            updated_at = w.at
       from (select clock_timestamp() as at) w
      where p.id = $1 returning p.collected_at`,
    [operation.id, input.collectedAt ?? null, input.staffUserId ?? null],
  );
  await client.query(
    `update bookings set payment_status = 'PAID', updated_at = clock_timestamp() where id = $1`,
    [booking.id],
  );
  return {
    paymentId: operation.id,
    bookingId: booking.id,
    companyId: booking.company_id,
    source: operation.source,
    amount: operation.amount,
    currency: operation.currency,
    collectedAt: new Date(rows[0]!.collected_at),
  };
}

/** recordCashCollection in a transaction of its own, committed on success. */
export function commitCashCollection(db: Database, input: CashCollectionInput): Promise<CashCollection> {
  return db.transaction((client) => recordCashCollection(client, input));
}

async function bookingOfOperation(client: Queryable, paymentId: string): Promise<string> {
  // booking_id never changes, so reading it before the locks is safe and keeps the lock order.
  const { rows } = await client.query<{ booking_id: string }>(
    `select booking_id from payment_operations where id = $1`,
    [paymentId],
  );
  if (!rows[0]) throw new PaymentRefusal(404, 'PAYMENT_NOT_FOUND', 'No such payment');
  return rows[0].booking_id;
}

/** A PENDING cash operation of the booking's amount, in its owner's name. */
async function insertPendingOperation(
  client: Queryable,
  booking: LockedBooking,
  source: PaymentSource,
): Promise<PaymentOperation> {
  const { rows } = await client.query<PaymentOperation>(
    `insert into payment_operations (company_id, booking_id, user_id, method, provider, source, amount, currency)
     values ($1, $2, $3, 'CASH', 'cash', $4, $5, $6) returning ${OPERATION_COLUMNS}`,
    [booking.company_id, booking.id, booking.owner_user_id, source, booking.amount_due, booking.currency],
  );
  return rows[0]!;
}
