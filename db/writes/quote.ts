import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Database } from '../orm.js';
import { journeyTransaction } from './journeys/scope.js';
import { keyReused, keyVerdict, requestHash } from '../../domain/idempotency.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import {
  refuseLegResources,
  priceLeg,
  type LegFares,
  type PricedLeg,
  type Refusal,
  type ResourceRequest,
} from '../../domain/journey-quote.js';
import type { TransferSettings } from '../../domain/journey-search.js';
import type { StopIdentity } from '../queries/stop-identity.js';
import { loadLegAvailability, loadQuoteLegs, refused, resolveLegs } from './quote-legs.js';

export interface QuoteLegRequest {
  trip_id: string;
  board_stop_call_id: string;
  alight_stop_call_id: string;
}

export interface QuoteRequest {
  party_size: number;
  locale: string;
  currency: string;
  legs: QuoteLegRequest[];
  resources: (ResourceRequest & { leg_sequence: number })[];
  idempotency_key: string;
}

export interface QuoteCaller {
  scope: InventoryScope;
  /** The signed-in traveller's user id; null for a guest. */
  ownerUserId: string | null;
}

export interface QuoteSettings {
  transfer: TransferSettings;
  ttlMinutes: number;
  now: Date;
}

export interface QuotedLeg extends Omit<PricedLeg, 'quantity'> {
  sequence: number;
  trip_id: string;
  company_id: string;
  board: StopIdentity;
  alight: StopIdentity;
  quantity: number;
}

/** The answer of POST /journeys/quote (data), stored with the quote for same-key retries. */
export interface QuoteResponse {
  quote_id: string;
  journey_id: string;
  expiresAt: number;
  party_size: number;
  currency: string;
  total_price: number;
  legs: QuotedLeg[];
}

export type QuoteRefusal = Omit<Refusal, 'status'> & { status: 400 | 404 | 409 };

export type QuoteOutcome =
  { quote: QuoteResponse; refusal?: never } | { refusal: QuoteRefusal; quote?: never };

/**
 * Prices legs and resources for the caller and stores the offer (journey_quotes) under the
 * client's idempotency key. Writes no inventory. For a signed-in traveller, a retry with the same
 * key and body gets the stored answer; the same key with another body is refused; of concurrent
 * identical requests the unique key lets one row in and the others read it. A guest has no
 * identity to scope a key by, so a guest's request is never replayed: it always quotes anew (a
 * guest quote goes to the first traveller who holds it, so no other guest may be handed it).
 *
 * One transaction, like the journey writes that follow it: its statements run prepared on generic
 * plans (journeyTransaction), since planning the legs' join (arrays of ids) cost PostgreSQL more
 * than running it, at every quote.
 */
export function quoteJourney(
  db: Database,
  caller: QuoteCaller,
  request: QuoteRequest,
  settings: QuoteSettings,
): Promise<QuoteOutcome> {
  return journeyTransaction(db, (client) => quoteOn(client, caller, request, settings));
}

async function quoteOn(
  client: PoolClient,
  caller: QuoteCaller,
  request: QuoteRequest,
  settings: QuoteSettings,
): Promise<QuoteOutcome> {
  const hash = requestHash({ scope: caller.scope, request });
  const stored = caller.ownerUserId
    ? await findQuote(client, caller.ownerUserId, request.idempotency_key)
    : undefined;
  if (stored) return replay(stored, hash);

  const resolved = resolveLegs(await loadQuoteLegs(client, caller.scope, request.legs), settings);
  if (!('legs' in resolved)) return resolved;

  const quotedLegs: QuotedLeg[] = [];
  for (const leg of resolved.legs) {
    const resources = request.resources.filter((resource) => resource.leg_sequence === leg.sequence);
    const labels = resources.flatMap((resource) => resource.assignments);
    const availability = await loadLegAvailability(client, leg, labels);
    const fares: LegFares = {
      priceBase: leg.priceBase,
      priceVip: leg.priceVip,
      boardBp: leg.boardBp,
      alightBp: leg.alightBp,
    };
    const refusal = refuseLegResources(request.party_size, fares, resources, availability);
    if (refusal)
      return { refusal: { ...refusal, details: { leg_sequence: leg.sequence, ...refusal.details } } };
    const priced = priceLeg(fares, resources, (label) => availability.seats.get(label)!.seatClass);
    quotedLegs.push({
      sequence: leg.sequence,
      trip_id: leg.tripId,
      company_id: leg.companyId,
      board: leg.board,
      alight: leg.alight,
      ...priced,
    });
  }

  const quote: QuoteResponse = {
    quote_id: randomUUID(),
    journey_id: randomUUID(),
    expiresAt: Math.floor(settings.now.getTime() / 1000) + settings.ttlMinutes * 60,
    party_size: request.party_size,
    currency: request.currency,
    total_price: quotedLegs.reduce((sum, leg) => sum + leg.subtotal, 0),
    legs: quotedLegs,
  };
  const { rows: inserted } = await client.query(
    `insert into journey_quotes (id, journey_id, owner_user_id, scope, idempotency_key, request_hash, party_size, response, total,
                                 currency, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, to_timestamp($11))
     on conflict (owner_user_id, idempotency_key) where owner_user_id is not null do nothing
     returning id`,
    [
      quote.quote_id,
      quote.journey_id,
      caller.ownerUserId,
      JSON.stringify(caller.scope),
      request.idempotency_key,
      hash,
      request.party_size,
      JSON.stringify(quote),
      quote.total_price,
      quote.currency,
      quote.expiresAt,
    ],
  );
  if (inserted.length || !caller.ownerUserId) return { quote };
  // A concurrent request of this traveller with the same key got there first: answer as a retry would be answered.
  return replay((await findQuote(client, caller.ownerUserId, request.idempotency_key))!, hash);
}

interface StoredQuote {
  request_hash: string;
  response: QuoteResponse;
}

/** The quote a signed-in traveller stored under a key (guest quotes are never looked up). */
async function findQuote(
  client: PoolClient,
  ownerUserId: string,
  idempotencyKey: string,
): Promise<StoredQuote | undefined> {
  const {
    rows: [row],
  } = await client.query<StoredQuote>(
    `select request_hash, response from journey_quotes where owner_user_id = $1 and idempotency_key = $2`,
    [ownerUserId, idempotencyKey],
  );
  return row;
}

function replay(stored: StoredQuote, hash: string): QuoteOutcome {
  const verdict = keyVerdict({ requestHash: stored.request_hash, answer: stored.response }, hash);
  if (verdict.kind === 'REPLAY') return { quote: verdict.answer };
  const reused = keyReused('quote');
  return refused(reused.status, reused.code, reused.message);
}
