import { listTravellerPayments, type TravellerPaymentRow } from '../../db/queries/payments.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { announcePayment } from '../use-cases/payments.js';
import { CreatePaymentBody, docs, ListPaymentsQuery } from './payments.openapi.js';
import { createdOrOk, page } from '../http/respond.js';
import { iso, isoOrNull } from '../../db/row-fields.js';

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
  collected_at: isoOrNull(row.collected_at),
  created_at: iso(row.created_at),
});

export function registerPaymentRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.createPayment,
    method: 'post',
    path: '/payments/create',
    security: 'traveller',
    body: CreatePaymentBody,
    handler: async (ctx, { body }) => {
      const { payment, created } = await announcePayment(db, {
        bookingId: body.booking_id,
        userId: ctx.state.traveller!.userId,
        method: body.method,
      });
      createdOrOk(ctx, created, { payment });
    },
  });

  surface.route({
    ...docs.listPayments,
    method: 'get',
    path: '/payments',
    security: 'traveller',
    query: ListPaymentsQuery,
    handler: async (ctx, { query }) => {
      const { payments, total } = await listTravellerPayments(db, ctx.state.traveller!.userId, query);
      page(ctx, payments.map(listedPayment), query, total);
    },
  });
}
