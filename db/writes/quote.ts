import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../orm.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import {
  refuseLegResources,
  priceLeg,
  type LegFares,
  type PricedLeg,
  type Refusal,
  type ResourceRequest,
} from '../../domain/journey-quote.js';
import { transferBetween, type TransferSettings } from '../../domain/journey-search.js';
import type { SeatClass } from '../../domain/seat-layout.js';
import { isBookableStatus, LIVE_ALLOCATION, takenSeatsSql } from '../queries/inventory.js';
import { companyScopeSql } from '../queries/scope.js';
import { stopIdentityColumns, toStopIdentity, type StopIdentity } from '../queries/stop-identity.js';

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

const refused = (
  status: QuoteRefusal['status'],
  errorCode: string,
  message: string,
  details?: Record<string, unknown>,
): QuoteOutcome => ({
  refusal: { status, errorCode, message, ...(details ? { details } : {}) },
});

/**
 * Prices legs and resources for the caller and stores the offer (journey_quotes) under the
 * client's idempotency key. Writes no inventory. A retry with the same key and body gets the
 * stored answer; the same key with another body is refused; of concurrent identical requests
 * the unique key lets one row in and the others read it.
 */
export async function quoteJourney(
  db: Database,
  caller: QuoteCaller,
  request: QuoteRequest,
  settings: QuoteSettings,
): Promise<QuoteOutcome> {
  const requestHash = createHash('sha256')
    .update(JSON.stringify({ scope: caller.scope, request }))
    .digest('hex');
  const stored = await findQuote(db, caller.ownerUserId, request.idempotency_key);
  if (stored) return replay(stored, requestHash);

  const legs = await loadQuoteLegs(db, caller.scope, request.legs);
  const legRefusal = refuseLegs(legs, settings);
  if (legRefusal) return legRefusal;

  const quotedLegs: QuotedLeg[] = [];
  for (const leg of legs as ResolvedLeg[]) {
    const resources = request.resources.filter((resource) => resource.leg_sequence === leg.sequence);
    const labels = resources.flatMap((resource) => resource.assignments);
    const availability = await loadLegAvailability(db, leg, labels);
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
  const inserted = await db.query(
    `insert into journey_quotes (id, journey_id, owner_user_id, scope, idempotency_key, request_hash, party_size, response, total,
                                 currency, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, to_timestamp($11))
     on conflict do nothing
     returning id`,
    [
      quote.quote_id,
      quote.journey_id,
      caller.ownerUserId,
      JSON.stringify(caller.scope),
      request.idempotency_key,
      requestHash,
      request.party_size,
      JSON.stringify(quote),
      quote.total_price,
      quote.currency,
      quote.expiresAt,
    ],
  );
  if (inserted.length) return { quote };
  // A concurrent request with the same key got there first: answer as a retry would be answered.
  return replay((await findQuote(db, caller.ownerUserId, request.idempotency_key))!, requestHash);
}

interface StoredQuote {
  request_hash: string;
  response: QuoteResponse | string;
}

const NO_OWNER = '00000000-0000-0000-0000-000000000000';

async function findQuote(
  db: Database,
  ownerUserId: string | null,
  idempotencyKey: string,
): Promise<StoredQuote | undefined> {
  const [row] = await db.query<StoredQuote>(
    `select request_hash, response from journey_quotes
     where coalesce(owner_user_id, '${NO_OWNER}'::uuid) = coalesce($1::uuid, '${NO_OWNER}'::uuid) and idempotency_key = $2`,
    [ownerUserId, idempotencyKey],
  );
  return row;
}

function replay(stored: StoredQuote, requestHash: string): QuoteOutcome {
  if (stored.request_hash !== requestHash) {
    return refused(
      409,
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key was already used for a different quote request',
    );
  }
  return {
    quote:
      typeof stored.response === 'string' ? (JSON.parse(stored.response) as QuoteResponse) : stored.response,
  };
}

/** A requested leg as the database knows it; trip fields are null when the trip is unknown or out of scope. */
interface LoadedLeg {
  sequence: number;
  boardIsStop: boolean;
  alightIsStop: boolean;
  tripId: string | null;
  companyId: string;
  status: string;
  priceBase: number;
  priceVip: number | null;
  boardTripId: string | null;
  alightTripId: string | null;
  boardPublic: boolean;
  alightPublic: boolean;
  boardBp: number;
  alightBp: number;
  board: StopIdentity | null;
  alight: StopIdentity | null;
}

/** A leg that passed refuseLegs: its trip is known and both calls are on it. */
type ResolvedLeg = LoadedLeg & { tripId: string; board: StopIdentity; alight: StopIdentity };

/** One statement for all legs: the trip in the caller's scope, both stop calls, and whether an id is a stop. */
async function loadQuoteLegs(
  db: Database,
  scope: InventoryScope,
  legs: QuoteLegRequest[],
): Promise<LoadedLeg[]> {
  const params: unknown[] = [
    legs.map((leg) => leg.trip_id),
    legs.map((leg) => leg.board_stop_call_id),
    legs.map((leg) => leg.alight_stop_call_id),
  ];
  const inScope = companyScopeSql(scope, params, 'c');
  const rows = await db.query<Record<string, unknown>>(
    `select l.sequence::int as sequence,
            exists (select 1 from stops s where s.id = l.board_id) as board_is_stop,
            exists (select 1 from stops s where s.id = l.alight_id) as alight_is_stop,
            t.id as trip_id, t.company_id, t.status, t.price_base, t.price_vip,
            bc.trip_id as board_trip_id, bc.fare_share_bp as board_bp, (bs.enabled and bs.kind <> 'DEPOT') as board_public,
            ac.trip_id as alight_trip_id, ac.fare_share_bp as alight_bp, (als.enabled and als.kind <> 'DEPOT') as alight_public,
            ${stopIdentityColumns('board', 'bc', 'bs', 'bci')}, ${stopIdentityColumns('alight', 'ac', 'als', 'aci')}
     from unnest($1::uuid[], $2::uuid[], $3::uuid[]) with ordinality as l(trip_id, board_id, alight_id, sequence)
     left join lateral (select t.* from trips t join companies c on c.id = t.company_id and ${inScope} where t.id = l.trip_id) t on true
     left join trip_stop_calls bc on bc.id = l.board_id
     left join stops bs on bs.id = bc.stop_id
     left join cities bci on bci.id = bs.city_id
     left join trip_stop_calls ac on ac.id = l.alight_id
     left join stops als on als.id = ac.stop_id
     left join cities aci on aci.id = als.city_id
     order by l.sequence`,
    params,
  );
  return rows.map((row) => ({
    sequence: row.sequence as number,
    boardIsStop: row.board_is_stop as boolean,
    alightIsStop: row.alight_is_stop as boolean,
    tripId: row.trip_id as string | null,
    companyId: row.company_id as string,
    status: row.status as string,
    priceBase: Number(row.price_base),
    priceVip: row.price_vip === null ? null : Number(row.price_vip),
    boardTripId: row.board_trip_id as string | null,
    alightTripId: row.alight_trip_id as string | null,
    boardPublic: row.board_public === true,
    alightPublic: row.alight_public === true,
    boardBp: row.board_bp as number,
    alightBp: row.alight_bp as number,
    board: row.board_trip_id ? toStopIdentity(row, 'board') : null,
    alight: row.alight_trip_id ? toStopIdentity(row, 'alight') : null,
  }));
}

/** The first reason the legs themselves cannot be quoted, checked leg by leg and then their chaining. */
function refuseLegs(legs: LoadedLeg[], settings: QuoteSettings): QuoteOutcome | null {
  for (const leg of legs) {
    const details = { leg_sequence: leg.sequence };
    if ((!leg.boardTripId && leg.boardIsStop) || (!leg.alightTripId && leg.alightIsStop)) {
      return refused(
        400,
        'STOP_ID_NOT_ACCEPTED',
        'Send the stop_call_id from search results, not a stop_id',
        details,
      );
    }
    if (!leg.tripId) return refused(404, 'TRIP_NOT_FOUND', 'No such trip', details);
    if (leg.boardTripId !== leg.tripId || leg.alightTripId !== leg.tripId) {
      return refused(400, 'STOP_CALL_NOT_ON_TRIP', 'A stop call does not belong to this trip', details);
    }
    const { board, alight } = leg as ResolvedLeg;
    if (board.sequence >= alight.sequence) {
      return refused(
        400,
        'INVALID_LEG_DIRECTION',
        'The boarding stop must come before the alighting stop',
        details,
      );
    }
    if (!leg.boardPublic || !leg.alightPublic) {
      return refused(
        400,
        'STOP_CALL_NOT_BOOKABLE',
        'Travellers cannot board or alight at this stop',
        details,
      );
    }
    if (!isBookableStatus(leg.status) || new Date(board.departure_at).getTime() <= settings.now.getTime()) {
      return refused(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked', details);
    }
  }
  const [first, second] = legs as ResolvedLeg[];
  if (second) {
    const transfer =
      first!.tripId === second.tripId
        ? null
        : transferBetween(
            {
              stopId: first!.alight.stop_id,
              cityId: first!.alight.city_id,
              arrivalAt: new Date(first!.alight.arrival_at),
            },
            {
              stopId: second.board.stop_id,
              cityId: second.board.city_id,
              departureAt: new Date(second.board.departure_at),
            },
            settings.transfer,
          );
    if (!transfer) {
      return refused(
        400,
        'LEGS_NOT_CONNECTED',
        'The second leg must board where the first alights (same stop or city) after the change time',
      );
    }
  }
  return null;
}

/** Free seats on the leg's interval, VIP-class counts, and the assigned labels in the active layout. */
async function loadLegAvailability(db: Database, leg: ResolvedLeg, labels: string[]) {
  const taken = (
    seatId: string,
  ) => `exists (select 1 from seat_allocations a where a.trip_id = t.id and a.seat_id = ${seatId}
      and ${LIVE_ALLOCATION} and a.board_sequence < $3 and a.alight_sequence > $2)`;
  const [row] = await db.query<{
    free_seats: number;
    vip_seats: number;
    free_vip_seats: number;
    seats: unknown;
  }>(
    `select t.seats_total - ${takenSeatsSql('t.id', '$2', '$3')} as free_seats,
            (select count(*)::int from layout_seats ls where ls.layout_id = l.id and ls.seat_class = 'VIP') as vip_seats,
            (select count(*)::int from layout_seats ls where ls.layout_id = l.id and ls.seat_class = 'VIP'
               and not ${taken('ls.seat_id')}) as free_vip_seats,
            coalesce((select json_agg(json_build_object('label', ls.seat_number, 'seat_class', ls.seat_class, 'taken', ${taken('ls.seat_id')}))
                      from layout_seats ls where ls.layout_id = l.id and ls.seat_number = any ($4::text[])), '[]') as seats
     from trips t
     left join bus_layouts l on l.bus_id = t.bus_id and l.status = 'active'
     where t.id = $1`,
    [leg.tripId, leg.board.sequence, leg.alight.sequence, labels],
  );
  const seats = (typeof row!.seats === 'string' ? JSON.parse(row!.seats) : row!.seats) as {
    label: string;
    seat_class: SeatClass;
    taken: boolean;
  }[];
  return {
    freeSeats: row!.free_seats,
    vipSeats: row!.vip_seats,
    freeVipSeats: row!.free_vip_seats,
    seats: new Map(seats.map((seat) => [seat.label, { seatClass: seat.seat_class, taken: seat.taken }])),
  };
}
