import { p } from '@mikro-orm/core';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.js';
import { idEntity } from './base.js';

/**
 * Booking and trip events recorded in the transaction that caused them (db/writes/outbox.ts);
 * webhook delivery reads them.
 */
export const OutboxEvent = idEntity('OutboxEvent', 'outbox_events', {
  companyId: p.uuid(),
  event: p.enum(WEBHOOK_EVENTS),
  bookingId: p.uuid(),
  tripId: p.uuid(),
  data: p.json<Record<string, unknown>>(),
  /** clock_timestamp(): when the row was written, just before its change committed (not the transaction's start). */
  occurredAt: p.datetime().defaultRaw('clock_timestamp()'),
  /** When the webhook relay turned the event into deliveries (null: not yet). */
  dispatchedAt: p.datetime().nullable(),
});
