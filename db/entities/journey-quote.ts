import { p } from '@mikro-orm/core';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import { baseEntity } from './base.js';

/**
 * A priced journey offer (POST /journeys/quote). It holds no inventory; journeyId is the draft
 * journey id that hold and confirm use, and response is the answer a same-key retry gets again.
 */
export const JourneyQuote = baseEntity('JourneyQuote', 'journey_quotes', {
  journeyId: p.uuid().unique(),
  ownerUserId: p.uuid().nullable(),
  scope: p.json<InventoryScope>(),
  idempotencyKey: p.text(),
  requestHash: p.text(),
  partySize: p.integer(),
  response: p.json<Record<string, unknown>>(),
  total: p.bigint('number'),
  currency: p.text(),
  expiresAt: p.datetime(),
});
