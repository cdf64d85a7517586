import { listTravellerPayments, type TravellerPaymentRow } from '../../db/queries/payments.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { announcePayment } from '../use-cases/payments.js';
import {
  CREATE_PAYMENT_RULES,
  CreatePaymentBody,
  CreatePaymentResponse,
  LIST_PAYMENTS_RULES,
  ListPaymentsQuery,
  ListPaymentsResponse,
  PaymentRefused,
} from './payments.openapi.js';

const TAGS = ['Payments'];

const iso = (instant: string) => new Date(instant).toISOString();

const listedPayment = (row: TravellerPaymentRow) => ({
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
});

export function registerPaymentRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'post',
    path: '/payments/create',
    operationId: 'createPayment',
    summary: 'Announce how a booking will be paid (cash only)',
    description: CREATE_PAYMENT_RULES,
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
      const { payment, created } = await announcePayment(db, {
        bookingId: body.booking_id,
        userId: ctx.state.traveller!.userId,
        method: body.method,
      });
      ctx.status = created ? 201 : 200;
      ctx.body = { success: true, data: { payment } };
    },
  });

  surface.route({
    method: 'get',
    path: '/payments',
    operationId: 'listPayments',
    summary: "The caller's payments",
    description: LIST_PAYMENTS_RULES,
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
        data: payments.map(listedPayment),
        pagination: { limit: query.limit, offset: query.offset, total },
      };
    },
  });
}
