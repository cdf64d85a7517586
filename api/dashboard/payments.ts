import type { Context } from 'koa';
import type { StaffPrincipal } from '../auth/staff-session.js';
import type { AppContext } from '../app.js';
import { FILE_TYPE, sendPdf } from '../documents/send.js';
import { requestOrigin } from '../http/request-origin.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import {
  changeCompanyPaymentNote,
  companyPayment,
  companyPaymentReceipt,
  decideCompanyPayment,
  ledgerPage,
  recordCompanyPayment,
} from '../use-cases/company-payments.js';
import { actingMember, allow, requireActiveCompany, requireRole, SENSITIVE_ROLES } from './guards.js';
import { companyRecordRoute, referenceReadRoute, staffRoute } from './staff-route.js';
import {
  docs,
  LedgerQuery,
  NoteBody,
  ReceiptParams,
  ReceiptQuery,
  RecordPaymentBody,
  RefundBody,
  refundErrorCode,
  RefundQuery,
} from './payments.openapi.js';

/**
 * The company's payment ledger (SPEC "Company dashboard API": payments, receipts, payment-settings).
 * Reads: every dashboard role, statistics for the financial roles only; money decisions and
 * receipts: OWNER, ADMIN, ACCOUNTANT. Register after the cash-shift routes: /payments/{id} would
 * otherwise answer /payments/cash-shifts.
 */
const READING_ROLES = ['OWNER', 'ADMIN', 'ACCOUNTANT', 'DISPATCHER', 'STAFF'] as const;

/**
 * A money decision's guard: OWNER, ADMIN or ACCOUNTANT of an active company. It runs before the
 * input is read (staffRoute), so another role gets its 403 whatever it sends.
 */
const decider = allow(requireRole(...SENSITIVE_ROLES), requireActiveCompany);

/** The company user the guard let through, as the one deciding, and the request they decide from. */
const deciding = (ctx: Context, staff: StaffPrincipal) => ({
  companyId: staff.companyId,
  staffUserId: staff.staffUserId,
  ...requestOrigin(ctx),
  actor: actingMember(staff, SENSITIVE_ROLES),
});

/** Reading the ledger and one line of it: READING_ROLES. */
const ledgerReader = allow(requireRole(...READING_ROLES));

const isFinancial = (staff: StaffPrincipal) => (SENSITIVE_ROLES as readonly string[]).includes(staff.role);

export function registerPaymentRoutes(surface: Surface, context: AppContext): void {
  registerLedgerReads(surface, context);
  registerLedgerDecisions(surface, context);
}

/** payment-settings, receipts, the ledger and one line. */
function registerLedgerReads(surface: Surface, context: AppContext): void {
  const { db } = context;

  const settings = { ...docs.getPaymentSettings, path: '/payment-settings' };
  referenceReadRoute(surface, settings, () => paymentSettings(context.config.CASH_SHIFT_MAX_HOURS));

  staffRoute(surface, allow(requireRole(...SENSITIVE_ROLES)), {
    ...docs.getPaymentReceipt,
    method: 'get',
    head: false,
    path: '/payments/receipts/{source}/{id}',
    params: ReceiptParams,
    query: ReceiptQuery,
    handler: async (ctx, staff, { params, query }) => {
      const { document, rendered } = await companyPaymentReceipt(context, {
        companyId: staff.companyId,
        source: params.source,
        id: params.id,
        locale: query.locale,
        staffUserId: staff.staffUserId,
        requestId: ctx.state.requestId,
      });
      sendPdf(ctx, rendered, {
        filename: `booking-${document.bookingCode}-${FILE_TYPE[document.kind]}-${document.number}-${document.locale}.pdf`,
        disposition: 'attachment',
      });
    },
  });

  staffRoute(surface, ledgerReader, {
    ...docs.listCompanyPayments,
    method: 'get',
    path: '/payments',
    query: LedgerQuery,
    handler: async (ctx, staff, { query }) => {
      const { lines, statistics } = await ledgerPage(db, staff.companyId, query);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = {
        success: true,
        data: lines,
        statistics: isFinancial(staff) ? statistics : null,
        pagination: { limit: query.limit, offset: query.offset, total: statistics.count },
      };
    },
  });
}

/** The money decisions: office payment, note, verify, cancel, refund. */
function registerLedgerDecisions(surface: Surface, { db }: AppContext): void {
  staffRoute(surface, decider, {
    ...docs.recordOfficePayment,
    method: 'post',
    path: '/payments',
    body: RecordPaymentBody,
    handler: async (ctx, staff, { body }) => {
      const line = await recordCompanyPayment(db, deciding(ctx, staff), {
        bookingId: body.booking_id,
        note: body.note,
      });
      created(ctx, line);
    },
  });

  const paymentRead = { ...docs.getCompanyPayment, path: '/payments/{id}' };
  companyRecordRoute(surface, ledgerReader, paymentRead, (companyId, paymentId) =>
    companyPayment(db, companyId, paymentId),
  );

  staffRoute(surface, decider, {
    ...docs.changePaymentNote,
    method: 'patch',
    path: '/payments/{id}',
    params: IdParams,
    body: NoteBody,
    handler: async (ctx, staff, { params, body }) => {
      ok(ctx, await changeCompanyPaymentNote(db, deciding(ctx, staff), params.id, body.note));
    },
  });

  for (const action of ['verify', 'cancel'] as const) {
    staffRoute(surface, decider, {
      ...(action === 'verify' ? docs.verifyPayment : docs.cancelPayment),
      method: 'post',
      path: `/payments/{id}/${action}`,
      params: IdParams,
      handler: async (ctx, staff, { params }) => {
        ok(ctx, await decideCompanyPayment(db, deciding(ctx, staff), params.id, action));
      },
    });
  }

  staffRoute(surface, decider, {
    ...docs.refundPayment,
    method: 'post',
    path: '/payments/{id}/refund',
    params: IdParams,
    query: RefundQuery,
    body: RefundBody,
    errorCode: refundErrorCode,
    handler: async (ctx, staff, { params }) => {
      ok(ctx, await decideCompanyPayment(db, deciding(ctx, staff), params.id, 'refund'));
    },
  });
}

/** SPEC "payment-settings": cash only, at the office or to the driver; online methods unavailable. */
function paymentSettings(cashShiftMaxHours: number) {
  const online = (method: 'SHAMCASH' | 'CARD') => ({
    method,
    available: false,
    collection_points: [],
    unavailable_reason: 'ONLINE_PAYMENTS_DEVELOPMENT_ONLY',
  });
  return {
    currency: 'SYP',
    methods: [
      { method: 'CASH', available: true, collection_points: ['office', 'driver'], unavailable_reason: null },
      online('SHAMCASH'),
      online('CARD'),
    ],
    online_payments_available: false,
    refunds: 'FULL_ONLY',
    cash_shift_max_hours: cashShiftMaxHours,
  };
}
