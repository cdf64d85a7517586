import { p } from '@mikro-orm/core';
import { entity } from './base.js';

/**
 * The ledger's statistics per company, Damascus day, status, source and provider, kept by a
 * trigger on payment_operations (see the finance migration). Read by the ledger; never written by
 * the application.
 */
export const PaymentLedgerDay = entity('PaymentLedgerDay', 'payment_ledger_daily', {
  companyId: p.uuid().primary(),
  day: p.date().primary(),
  status: p.text().primary(),
  source: p.text().primary(),
  provider: p.text().primary(),
  count: p.integer().default(0),
  amount: p.bigint('number').default(0),
});
