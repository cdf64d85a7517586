import {
  findLedgerLine,
  readLedger,
  type LedgerFilters,
  type LedgerRow,
} from '../../db/queries/payment-ledger.js';
import {
  cancelPayment,
  changePaymentNote,
  recordOfficePayment,
  refundPayment,
  verifyPayment,
  type Decider,
} from '../../db/writes/payment-decisions.js';
import { recordAccess, saveSnapshot, type BookingDocument } from '../../db/writes/documents.js';
import { buildPaymentReceipt, type PaymentReceiptInput } from '../../db/writes/payment-receipts.js';
import type { DocumentLocale } from '../../domain/documents.js';
import {
  COLLECTED_STATUSES,
  PAYMENT_TRANSITIONS,
  PaymentDecisionRefusal,
  type LedgerStatistics,
} from '../../domain/payment-ledger.js';
import { unpayableRefusal } from '../../domain/payment.js';
import {
  renderedDocument,
  type RenderContext,
  type RenderedDocument,
} from '../temporal/document-render-client.js';
import type { Database } from '../../db/orm.js';
import { iso, isoOrNull } from '../../db/row-fields.js';

/**
 * The company's payment ledger as the dashboard uses it: a page with statistics, one line, the
 * money decisions (each one write, then the line as it now stands), and receipts by source.
 */

type FinanceAction = 'verify' | 'refund' | 'cancel';

/**
 * The finance actions the transition table allows from the line's status; `verify` only while its
 * booking can be collected, by the rule the verify write applies (domain/payment.ts): a NO_SHOW
 * booking's line (marked during boarding, until restored), a dead or already paid one's, or a line of
 * nothing to collect is not offered what the server would refuse. A pending line's amount is its
 * booking's total (a modification moves it along), so it stands for the amount due here.
 */
function allowedActions(row: LedgerRow): FinanceAction[] {
  const collectable =
    unpayableRefusal(
      { status: row.booking_status, paymentStatus: row.booking_payment_status, amountDue: row.amount },
      'collect',
    ) === null;
  return PAYMENT_TRANSITIONS.filter(
    (move) => move.from === row.status && move.by === 'finance' && (move.action !== 'verify' || collectable),
  ).map((move) => move.action as FinanceAction);
}

export function ledgerLine(row: LedgerRow) {
  const collected = (COLLECTED_STATUSES as readonly string[]).includes(row.status);
  return {
    id: row.id,
    source: row.source,
    status: row.status,
    method: row.method,
    provider: row.provider,
    amount: row.amount,
    currency: row.currency,
    note: row.note,
    refund_due_reason: row.refund_due_reason,
    booking: {
      id: row.booking_id,
      booking_code: row.booking_code,
      status: row.booking_status,
      payment_status: row.booking_payment_status,
      passenger_name: row.passenger_name,
      passenger_phone: row.passenger_phone,
    },
    created_at: iso(row.created_at),
    collected_at: isoOrNull(row.collected_at),
    refunded_at: isoOrNull(row.refunded_at),
    cancelled_at: isoOrNull(row.cancelled_at),
    verified_by: collected ? row.decided_by : null,
    verified_at: collected ? isoOrNull(row.decided_at) : null,
    refunded_by: row.refunded_by,
    cancelled_by: row.cancelled_by,
    collected_by: row.collected_by,
    cash_shift_id: row.cash_shift_id,
    allowed_actions: allowedActions(row),
    receipt: collected
      ? { source: row.source, id: row.source === 'booking' ? row.booking_id : row.id }
      : null,
  };
}

export interface LedgerQueryInput {
  status?: LedgerFilters['status'];
  provider?: LedgerFilters['provider'];
  source?: LedgerFilters['source'];
  /** One Damascus day: from and to that day (the schema refuses it beside them). */
  date?: string;
  from?: string;
  to?: string;
  search?: string;
  limit: number;
  offset: number;
}

/** The query's filters as the ledger reads them (from/to are Damascus days). */
export function ledgerFilters(query: LedgerQueryInput): LedgerFilters {
  return {
    status: query.status,
    provider: query.provider,
    source: query.source,
    // SPEC's `date` is a period of one day.
    fromDay: query.date ?? query.from,
    toDay: query.date ?? query.to,
    search: query.search,
  };
}

export async function ledgerPage(
  db: Database,
  companyId: string,
  query: LedgerQueryInput,
): Promise<{ lines: ReturnType<typeof ledgerLine>[]; statistics: LedgerStatistics }> {
  const { lines, statistics } = await readLedger(db, companyId, ledgerFilters(query), query);
  return { lines: lines.map(ledgerLine), statistics };
}

export async function companyPayment(db: Database, companyId: string, paymentId: string) {
  const row = await findLedgerLine(db, companyId, paymentId);
  if (!row) throw new PaymentDecisionRefusal(404, 'PAYMENT_NOT_FOUND', 'No such payment');
  return ledgerLine(row);
}

const DECISIONS: Record<FinanceAction, (db: Database, decider: Decider, paymentId: string) => Promise<void>> =
  {
    verify: verifyPayment,
    refund: refundPayment,
    cancel: cancelPayment,
  };

/** verify, refund or cancel, then the line as it now stands. */
export async function decideCompanyPayment(
  db: Database,
  decider: Decider,
  paymentId: string,
  action: FinanceAction,
) {
  await DECISIONS[action](db, decider, paymentId);
  return companyPayment(db, decider.companyId, paymentId);
}

export async function changeCompanyPaymentNote(
  db: Database,
  decider: Decider,
  paymentId: string,
  note: string | null,
) {
  await changePaymentNote(db, decider, paymentId, note === '' ? null : note);
  return companyPayment(db, decider.companyId, paymentId);
}

export async function recordCompanyPayment(
  db: Database,
  decider: Decider,
  input: { bookingId: string; note?: string | null },
) {
  const { paymentId } = await recordOfficePayment(db, decider, input);
  return companyPayment(db, decider.companyId, paymentId);
}

/**
 * The receipt of a record for a financial role: built by the customer machinery (fixed number,
 * immutable snapshot), rendered and stored with its checksum, and the download logged, before the
 * route sends the stored bytes.
 */
export async function companyPaymentReceipt(
  context: RenderContext,
  input: PaymentReceiptInput & { staffUserId: string; requestId: string; locale: DocumentLocale },
): Promise<{ document: BookingDocument; rendered: RenderedDocument }> {
  const document = await buildPaymentReceipt(context.db, input);
  const { snapshotId } = await saveSnapshot(context.db, document);
  const rendered = await renderedDocument(context, snapshotId);
  await recordAccess(context.db, {
    snapshotId,
    actorKind: 'STAFF',
    actorId: input.staffUserId,
    action: 'DOWNLOAD',
    sha256: rendered.sha256,
    size: rendered.size,
    requestId: input.requestId,
  });
  return { document, rendered };
}
