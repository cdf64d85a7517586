import { z } from 'zod';
import { PAYMENT_STATUSES } from '../../domain/payment.js';
import { errorResponses, Instant as DateTime, Pagination, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText, pageWith, successWith } from '../http/answer-schemas.js';

/** OpenAPI of the customer payment routes (payments.ts): schemas and the rules they document. */

const TAGS = ['Payments'];

const PaymentMethod = z
  .enum(['CASH', 'SHAMCASH', 'CARD'])
  .meta({ description: 'only CASH is taken; SHAMCASH and CARD answer 409 ONLINE_PAYMENTS_DEVELOPMENT_ONLY' });
const PaymentStatus = z.enum(PAYMENT_STATUSES).meta({
  description:
    'PENDING until staff or the driver take the cash (then COMPLETED, the booking PAID); REFUND_DUE when the cash was ' +
    'taken and the company cancelled the trip (the company owes the refund); REFUNDED after a full refund; ' +
    'CANCELLED or FAILED when the attempt ended without payment',
});
const PaymentSource = z.enum(['transaction', 'driver', 'office', 'booking']).meta({
  description:
    'transaction: a payment the traveller announced (POST /payments/create) or staff entered; driver: taken by the ' +
    "driver; office: taken at the company office; booking: the booking's payment fact",
});

export const CreatePaymentBody = z
  .object({
    booking_id: Uuid.meta({ description: "one of the caller's bookings" }),
    method: PaymentMethod,
  })
  .strict()
  .meta({ id: 'CreatePaymentRequest' });

const CreatedPayment = z
  .object({
    id: IdText,
    booking_id: IdText,
    method: z.literal('CASH'),
    status: PaymentStatus,
    amount: z.number().meta({ description: 'the booking total in the smallest unit of the currency' }),
    currency: z.string(),
    instructions: z
      .object({ en: z.string(), ar: z.string() })
      .meta({ description: 'where and when to pay, in English and Arabic' }),
    company: z
      .object({
        id: IdText,
        name_en: z.string(),
        name_ar: z.string(),
        phone: z.string().nullable().meta({ description: 'the company office to pay at' }),
      })
      .meta({ description: 'the company that takes the cash' }),
    created_at: DateTime,
  })
  .meta({ id: 'CashPayment' });
const CreatePaymentResponse = successWith(z.object({ payment: CreatedPayment }));

const ListedPayment = z
  .object({
    id: IdText,
    booking_id: IdText,
    booking_code: z.string(),
    company: z.object({ id: IdText, name_en: z.string(), name_ar: z.string() }),
    method: PaymentMethod,
    source: PaymentSource,
    amount: z.number(),
    currency: z.string(),
    status: PaymentStatus,
    collected_at: DateTime.nullable().meta({ description: 'when the cash was received; null until then' }),
    created_at: DateTime,
  })
  .meta({ id: 'TravellerPayment' });
const ListPaymentsResponse = pageWith(ListedPayment);
export const ListPaymentsQuery = z.object(Pagination).strict();

const PaymentRefused = z
  .object({
    success: z.literal(false),
    errorCode: z.enum([
      'ONLINE_PAYMENTS_DEVELOPMENT_ONLY',
      'BOOKING_NOT_PAYABLE',
      'BOOKING_ALREADY_PAID',
      'NOTHING_TO_COLLECT',
    ]),
    message: z.string(),
    details: z.object({ available_methods: z.array(z.string()) }).optional(),
    available_methods: z
      .array(z.string())
      .optional()
      .meta({ description: 'with ONLINE_PAYMENTS_DEVELOPMENT_ONLY: the methods that work, ["CASH"]' }),
    requestId: z.string(),
  })
  .meta({ id: 'PaymentRefused' });

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  createPayment: {
    summary: 'Announce how a booking will be paid (cash only)',
    description:
      'Body {booking_id, method}. Only method CASH is taken: it opens a PENDING cash payment of the booking total, paid ' +
      'at the company office or to the driver before boarding; staff mark it COMPLETED when they receive the cash, and ' +
      'the booking becomes PAID. A booking has at most one pending cash payment: asking again (even concurrently) returns ' +
      "the same one with 200 instead of 201, as does asking after the trip's driver recorded taking the cash (that " +
      'line, source driver); an announced payment the driver then records becomes that line. SHAMCASH or CARD → 409 ONLINE_PAYMENTS_DEVELOPMENT_ONLY with ' +
      'available_methods ["CASH"] at the top level of the error body (and in details); any other method or field → 400 ' +
      "VALIDATION_FAILED. The booking must be the caller's (one they made or one made for their passenger profile, " +
      'as GET /bookings shows it; else 404 BOOKING_NOT_FOUND), CONFIRMED or CHECKED_IN (409 ' +
      "BOOKING_NOT_PAYABLE: cancelled, expired, awaiting the company's decision or refunded), unpaid (409 " +
      'BOOKING_ALREADY_PAID) and cost something: a booking of total 0 (a free-trip voucher took the fare) stays UNPAID ' +
      'with no cash to pay, 409 NOTHING_TO_COLLECT. Needs a traveller session; web calls send X-CSRF-Token. Nothing is ' +
      'written on a refusal.',
    responses: {
      201: {
        description: 'A pending cash payment was opened',
        schema: CreatePaymentResponse,
      },
      200: {
        description: "The booking's existing pending cash payment",
        schema: CreatePaymentResponse,
      },
      ...errorResponses(400, 401, 403, 404),
      409: {
        description: 'Online method asked for, booking not payable, already paid or of total 0',
        schema: PaymentRefused,
      },
    },
  },
  listPayments: {
    summary: "The caller's payments",
    description:
      "Payments of the caller's bookings (those GET /bookings shows: made by them or for their passenger profile), " +
      'newest first: booking code, company, amount, method, source, status and when ' +
      'the cash was received. limit (default 20, at most 100) and offset; pagination.total counts them all. Needs a ' +
      'traveller session.',
    responses: answers(200, 'A page of payments', ListPaymentsResponse, [400, 401]),
  },
});
