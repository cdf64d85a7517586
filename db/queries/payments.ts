import type { PaymentMethod, PaymentSource, PaymentStatus } from '../../domain/payment.js';
import type { Database } from '../orm.js';
import { ownBookingSql } from './booking-ownership.js';

/** A payment_operations row (amount cast to a JS number in SQL; instants as timestamptz text). */
export interface PaymentOperation {
  id: string;
  booking_id: string;
  company_id: string;
  user_id: string | null;
  method: PaymentMethod;
  source: PaymentSource;
  amount: number;
  currency: string;
  status: PaymentStatus;
  collected_at: string | null;
  created_at: string;
}

/**
 * SQL boolean: booking `b` has something to pay, its total (the final price, any voucher already
 * taken off) above 0. A booking that costs nothing (a free-trip voucher) stays UNPAID with nothing
 * to collect, on any path (domain/payment.ts unpayableRefusal: NOTHING_TO_COLLECT).
 */
export const amountDueSql = (b: string) => `${b}.total_price > 0`;

export const OPERATION_COLUMNS = `id, booking_id, company_id, user_id, method, source, amount::float8 as amount, currency, status,
  collected_at, created_at`;

/**
 * The traveller's view of the payment ledger: the operations of their own bookings (ownBookingSql:
 * owned, or made for their canonical passenger, as GET /bookings lists them), newest first, with
 * the booking's code and the company's names. Instants arrive as PostgreSQL timestamptz text.
 */
export interface TravellerPaymentRow extends Omit<PaymentOperation, 'user_id'> {
  booking_code: string;
  company_name_en: string;
  company_name_ar: string;
}

export async function listTravellerPayments(
  db: Database,
  userId: string,
  page: { limit: number; offset: number },
): Promise<{ payments: TravellerPaymentRow[]; total: number }> {
  const [payments, counted] = await Promise.all([
    db.query<TravellerPaymentRow>(
      `select p.id, p.booking_id, b.booking_code, p.company_id, c.name_en as company_name_en,
              c.name_ar as company_name_ar, p.method, p.source, p.amount::float8 as amount, p.currency, p.status,
              p.collected_at, p.created_at
         from payment_operations p
         join bookings b on b.id = p.booking_id
         join companies c on c.id = p.company_id
        where ${ownBookingSql('$1')}
        order by p.created_at desc, p.id desc
        limit $2 offset $3`,
      [userId, page.limit, page.offset],
    ),
    db.query<{ total: number }>(
      `select count(*)::int as total from payment_operations p join bookings b on b.id = p.booking_id
        where ${ownBookingSql('$1')}`,
      [userId],
    ),
  ]);
  return { payments, total: counted[0]?.total ?? 0 };
}

/** The company's name and office phone, for telling a traveller where to pay. */
export async function paymentCompany(
  db: Database,
  companyId: string,
): Promise<{ id: string; name_en: string; name_ar: string; phone: string | null }> {
  const [company] = await db.query<{ id: string; name_en: string; name_ar: string; phone: string | null }>(
    `select id, name_en, name_ar, phone from companies where id = $1`,
    [companyId],
  );
  return company!;
}
