import type { PoolClient } from 'pg';
import type { ReceiptKind } from '../../domain/documents.js';
import { damascusDate } from '../../domain/time.js';
import type { Database } from '../orm.js';
import { writeTime } from './write-time.js';

/**
 * Fixed receipt and refund numbers. A collection record gets at most one number per kind, ever:
 * the first request assigns it, every later one (the customer's receipt route, a share of the
 * receipt, the dashboard's receipts route) reads the same row.
 */
/** The printed prefix of each kind's number series. */
export const RECEIPT_SERIES: Record<ReceiptKind, 'RCP' | 'RFD'> = {
  PAYMENT_RECEIPT: 'RCP',
  REFUND_NOTICE: 'RFD',
};

export interface IssuedReceipt {
  id: string;
  number: string;
  /** ISO-8601 instant the number was assigned; printed as the receipt's issue time. */
  issuedAt: string;
}

/** RCP-2026-000042: series, Damascus year, the company's counter for that series and year (at least 6 digits). */
export function receiptNumber(series: 'RCP' | 'RFD', year: number, value: number): string {
  return `${series}-${year}-${String(value).padStart(6, '0')}`;
}

interface ReceiptRow {
  id: string;
  number: string;
  /** timestamptz, as the pool hands it over (text). */
  issued_at: string;
}

const toIssuedReceipt = (row: ReceiptRow): IssuedReceipt => ({
  id: row.id,
  number: row.number,
  issuedAt: new Date(row.issued_at).toISOString(),
});

const RECEIPT_OF_PAYMENT = `select id, number, issued_at from receipts where payment_id = $1 and kind = $2`;

interface CounterRow {
  last_value: number;
}

/**
 * Takes the next value of the company's counter for the series and year. The counter row is
 * created on first use, and the update keeps it locked until the caller's transaction ends, so
 * concurrent first downloads of two receipts of one company get consecutive numbers, never the same one.
 */
async function nextCounterValue(
  client: PoolClient,
  companyId: string,
  series: 'RCP' | 'RFD',
  year: number,
): Promise<number> {
  const { rows } = await client.query<CounterRow>(
    `insert into receipt_counters (company_id, series, year, last_value) values ($1, $2, $3, 1)
     on conflict (company_id, series, year) do update set last_value = receipt_counters.last_value + 1
     returning last_value`,
    [companyId, series, year],
  );
  return rows[0]!.last_value;
}

/**
 * The receipt (or refund notice) number of a collection record, assigned on first call. A number
 * never changes, so one already assigned is read without a transaction. To assign one, the payment
 * row is locked first so two first requests for the same record serialise: the second finds the
 * first one's number instead of burning a counter value.
 */
export async function issueReceiptNumber(
  db: Database,
  input: { paymentId: string; kind: ReceiptKind; companyId: string; bookingId: string },
): Promise<IssuedReceipt> {
  const [issued] = await db.query<ReceiptRow>(RECEIPT_OF_PAYMENT, [input.paymentId, input.kind]);
  if (issued) return toIssuedReceipt(issued);
  return db.transaction(async (client) => {
    await client.query(`select id from payment_operations where id = $1 for update`, [input.paymentId]);
    const {
      rows: [existing],
    } = await client.query<ReceiptRow>(RECEIPT_OF_PAYMENT, [input.paymentId, input.kind]);
    if (existing) return toIssuedReceipt(existing);
    const series = RECEIPT_SERIES[input.kind];
    // The database instant once the payment is held (not this host's clock): a receipt is never
    // dated, nor numbered in a year, before the collection it acknowledges.
    const now = new Date(await writeTime(client));
    const year = Number(damascusDate(now).slice(0, 4));
    const value = await nextCounterValue(client, input.companyId, series, year);
    const { rows } = await client.query<ReceiptRow>(
      `insert into receipts (payment_id, kind, company_id, booking_id, number, issued_at)
       values ($1, $2, $3, $4, $5, $6) returning id, number, issued_at`,
      [
        input.paymentId,
        input.kind,
        input.companyId,
        input.bookingId,
        receiptNumber(series, year, value),
        now,
      ],
    );
    return toIssuedReceipt(rows[0]!);
  });
}
