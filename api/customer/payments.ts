import { z } from 'zod';
import { listTravellerPayments, paymentCompany } from '../../db/queries/payments.js';
import {
  AVAILABLE_PAYMENT_METHODS,
  openCashPayment,
  type PaymentOperation,
} from '../../db/writes/payments.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses, Pagination, Uuid } from '../http/schemas.js';

const PaymentMethod = z
  .enum(['CASH', 'SHAMCASH', 'CARD'])
  .meta({ description: 'only CASH is taken; SHAMCASH and CARD answer 409 ONLINE_PAYMENTS_DEVELOPMENT_ONLY' });
const PaymentStatus = z.enum(['PENDING', 'COMPLETED', 'REFUNDED', 'CANCELLED', 'FAILED']).meta({
  description:
    'PENDING until staff or the driver take the cash (then COMPLETED, the booking PAID); REFUNDED after a full refund; ' +
    'CANCELLED or FAILED when the attempt ended without payment',
});
const PaymentSource = z.enum(['transaction', 'driver', 'office', 'booking']).meta({
  description:
    'transaction: a payment the traveller announced (POST /payments/create) or staff entered; driver: taken by the ' +
    "driver; office: taken at the company office; booking: the booking's payment fact",
});
const DateTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC' });

const CreatePaymentBody = z
  .object({
    booking_id: Uuid.meta({ description: "one of the caller's bookings" }),
    method: PaymentMethod,
  })
  .strict()
  .meta({ id: 'CreatePaymentRequest' });

const CASH_INSTRUCTIONS = {
  en: 'Pay in cash at the company office or to the driver before boarding. Your booking is marked paid once the cash is received.',
  ar: 'ادفع نقداً في مكتب الشركة أو للسائق قبل الصعود. يُسجَّل الحجز مدفوعاً عند استلام المبلغ.',
};

const CreatedPayment = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    booking_id: z.string().meta({ format: 'uuid' }),
    method: z.literal('CASH'),
    status: PaymentStatus,
    amount: z.number().meta({ description: 'the booking total in the smallest unit of the currency' }),
    currency: z.string(),
    instructions: z
      .object({ en: z.string(), ar: z.string() })
      .meta({ description: 'where and when to pay, in English and Arabic' }),
    company: z
      .object({
        id: z.string().meta({ format: 'uuid' }),
        name_en: z.string(),
        name_ar: z.string(),
        phone: z.string().nullable().meta({ description: 'the company office to pay at' }),
      })
      .meta({ description: 'the company that takes the cash' }),
    created_at: DateTime,
  })
  .meta({ id: 'CashPayment' });
const CreatePaymentResponse = z.object({
  success: z.literal(true),
  data: z.object({ payment: CreatedPayment }),
});

const ListedPayment = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    booking_id: z.string().meta({ format: 'uuid' }),
    booking_code: z.string(),
    company: z.object({ id: z.string().meta({ format: 'uuid' }), name_en: z.string(), name_ar: z.string() }),
    method: PaymentMethod,
    source: PaymentSource,
    amount: z.number(),
    currency: z.string(),
    status: PaymentStatus,
    collected_at: DateTime.nullable().meta({ description: 'when the cash was received; null until then' }),
    created_at: DateTime,
  })
  .meta({ id: 'TravellerPayment' });
const ListPaymentsResponse = z.object({
  success: z.literal(true),
  data: z.array(ListedPayment),
  pagination: z.object({ limit: z.int(), offset: z.int(), total: z.int() }),
});
const ListPaymentsQuery = z.object(Pagination).strict();

const PaymentRefused = z
  .object({
    success: z.literal(false),
    errorCode: z.enum(['ONLINE_PAYMENTS_DEVELOPMENT_ONLY', 'BOOKING_NOT_PAYABLE', 'BOOKING_ALREADY_PAID']),
    message: z.string(),
    details: z.object({ available_methods: z.array(z.string()) }).optional(),
    available_methods: z
      .array(z.string())
      .optional()
      .meta({ description: 'with ONLINE_PAYMENTS_DEVELOPMENT_ONLY: the methods that work, ["CASH"]' }),
    requestId: z.string(),
  })
  .meta({ id: 'PaymentRefused' });

const TAGS = ['Payments'];

const iso = (instant: string) => new Date(instant).toISOString();

function onlinePaymentsRefused(): Refusal {
  const available_methods = [...AVAILABLE_PAYMENT_METHODS];
  return new Refusal(
    409,
    'ONLINE_PAYMENTS_DEVELOPMENT_ONLY',
    'Online payment is not available yet; pay in cash',
    { available_methods },
    { available_methods },
  );
}

export function registerPaymentRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'post',
    path: '/payments/create',
    operationId: 'createPayment',
    summary: 'Announce how a booking will be paid (cash only)',
    description:
      'Body {booking_id, method}. Only method CASH is taken: it opens a PENDING cash payment of the booking total, paid ' +
      'at the company office or to the driver before boarding; staff mark it COMPLETED when they receive the cash, and ' +
      'the booking becomes PAID. A booking has at most one pending cash payment: asking again (even concurrently) returns ' +
      'the same one with 200 instead of 201. SHAMCASH or CARD → 409 ONLINE_PAYMENTS_DEVELOPMENT_ONLY with ' +
      'available_methods ["CASH"] at the top level of the error body (and in details); any other method or field → 400 ' +
      "VALIDATION_FAILED. The booking must be the caller's (404 BOOKING_NOT_FOUND), CONFIRMED or CHECKED_IN (409 " +
      "BOOKING_NOT_PAYABLE: cancelled, expired, awaiting the company's decision or refunded) and unpaid (409 " +
      'BOOKING_ALREADY_PAID). Needs a traveller session; web calls send X-CSRF-Token. Nothing is written on a refusal.',
    tags: TAGS,
    security: 'traveller',
    body: CreatePaymentBody,
    responses: {
      201: { description: 'A pending cash payment was opened', schema: CreatePaymentResponse },
      200: { description: "The booking's existing pending cash payment", schema: CreatePaymentResponse },
      ...errorResponses(400, 401, 403, 404),
      409: {
        description: 'Online method asked for, booking not payable or already paid',
        schema: PaymentRefused,
      },
    },
    handler: async (ctx, { body }) => {
      if (body.method !== 'CASH') throw onlinePaymentsRefused();
      const { payment, created } = await openCashPayment(db, {
        bookingId: body.booking_id,
        userId: ctx.state.traveller!.userId,
      });
      ctx.status = created ? 201 : 200;
      ctx.body = { success: true, data: { payment: await cashPayment(payment) } };
    },
  });

  async function cashPayment(payment: PaymentOperation): Promise<z.infer<typeof CreatedPayment>> {
    return {
      id: payment.id,
      booking_id: payment.booking_id,
      method: 'CASH',
      status: payment.status,
      amount: payment.amount,
      currency: payment.currency,
      instructions: CASH_INSTRUCTIONS,
      company: await paymentCompany(db, payment.company_id),
      created_at: iso(payment.created_at),
    };
  }

  surface.route({
    method: 'get',
    path: '/payments',
    operationId: 'listPayments',
    summary: "The caller's payments",
    description:
      "Payments of the caller's bookings, newest first: booking code, company, amount, method, source, status and when " +
      'the cash was received. limit (default 20, at most 100) and offset; pagination.total counts them all. Needs a ' +
      'traveller session.',
    tags: TAGS,
    security: 'traveller',
    query: ListPaymentsQuery,
    responses: {
      200: { description: 'A page of payments', schema: ListPaymentsResponse },
      ...errorResponses(400, 401),
    },
    handler: async (ctx, { query }) => {
      const { payments, total } = await listTravellerPayments(db, ctx.state.traveller!.userId, query);
      ctx.body = {
        success: true,
        data: payments.map((row) => ({
          id: row.id,
          booking_id: row.booking_id,
          booking_code: row.booking_code,
          company: { id: row.company_id, name_en: row.company_name_en, name_ar: row.company_name_ar },
          method: row.method,
          source: row.source,
          amount: row.amount,
          currency: row.currency,
          status: row.status,
          collected_at: row.collected_at === null ? null : iso(row.collected_at),
          created_at: iso(row.created_at),
        })),
        pagination: { limit: query.limit, offset: query.offset, total },
      };
    },
  });
}
