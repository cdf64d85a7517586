import type { Database } from '../orm.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import {
  composeJourneys,
  journeyKey,
  minutesBetween,
  searchWindow,
  transferBetween,
  type Transfer,
  type TransferSettings,
} from '../../domain/journey-search.js';
import { legFare } from '../../domain/pricing.js';
import { companyScopeSql } from './scope.js';
import { searchStatement, type PlaceKind } from './search-sql.js';
import { toStopIdentity, type StopIdentity, type StopIdentityRow } from './stop-identity.js';

/** A search end: a whole city (any public stop of it) or one stop. */
export interface SearchPlace {
  kind: PlaceKind;
  id: string;
}

export interface JourneySearchInput {
  scope: InventoryScope;
  origin: SearchPlace;
  destination: SearchPlace;
  /** Damascus operating date, YYYY-MM-DD. */
  departure_date: string;
  passengers: number;
  transfer: TransferSettings;
  /** The instant boarding must be after; defaults to the time the statement is built. */
  now?: Date;
}

export interface JourneyLeg {
  sequence: number;
  trip_id: string;
  company_id: string;
  company: { id: string; name_ar: string; name_en: string };
  departure_at: string;
  arrival_at: string;
  duration_minutes: number;
  price: number;
  price_vip: number | null;
  currency: string;
  free_seats: number;
  board: StopIdentity;
  alight: StopIdentity;
}

export interface Journey {
  journey_key: string;
  departure_at: string;
  arrival_at: string;
  duration_minutes: number;
  transfers: 0 | 1;
  total_price: number;
  currency: string;
  free_seats: number;
  legs: JourneyLeg[];
  transfer: Transfer | null;
}

export interface JourneySearchResult {
  /** City of the origin, or null when the origin is unknown, disabled or a depot. */
  originCityId: string | null;
  destinationCityId: string | null;
  journeys: Journey[];
}

/** The whole search as one statement (one round trip), for the API and the benchmark alike (./search-sql.ts). */
export function buildSearchSql(input: JourneySearchInput): { text: string; values: unknown[] } {
  const { text, values } = prepareSearch(input);
  return { text, values };
}

/**
 * The statement as searchJourneys sends it: named, so each connection plans it once per shape.
 * The benchmark's raw-SQL baseline runs exactly this through pg.
 */
export function prepareSearch(input: JourneySearchInput): { text: string; name: string; values: unknown[] } {
  const window = searchWindow(input.departure_date, input.now ?? new Date());
  const values: unknown[] = [
    input.origin.id,
    input.destination.id,
    window.from,
    window.to,
    input.passengers,
    input.transfer.minSameStopMinutes,
    input.transfer.minSameCityMinutes,
    input.transfer.maxWaitMinutes,
  ];
  const scope = companyScopeSql(input.scope, values, 'c');
  return { ...searchStatement(input.origin.kind, input.destination.kind, scope), values };
}

type LegText = 'trip_id' | 'board_call_id' | 'alight_call_id' | 'price_base' | 'currency' | 'company_id';
type LegNames = 'company_name_ar' | 'company_name_en';
type LegNumber = 'board_bp' | 'alight_bp' | 'free_seats';

/** One leg's columns of a result row under its prefix (bigint prices as text). */
type LegColumns<P extends 'l1' | 'l2'> = Record<`${P}_${LegText | LegNames}`, string> &
  Record<`${P}_${LegNumber}`, number> &
  Record<`${P}_price_vip`, string | null>;

/** The same columns when the row has no such leg (a direct journey's second, or no journey at all). */
type NoLeg<P extends 'l1' | 'l2'> = Record<`${P}_${LegText | LegNames | LegNumber | 'price_vip'}`, null>;

/** One result row of buildSearchSql. */
type SearchRow = {
  origin_city_id: string | null;
  destination_city_id: string | null;
  /** json on the first row: the stop identity rows of every stop call named, by stop call id. */
  identities: Record<string, StopIdentityRow<'call'>> | null;
} & (LegColumns<'l1'> | NoLeg<'l1'>) &
  (LegColumns<'l2'> | NoLeg<'l2'>);

function hasLeg<P extends 'l1' | 'l2'>(row: LegColumns<P> | NoLeg<P>, prefix: P): row is LegColumns<P> {
  const trips: Record<`${P}_trip_id`, string | null> = row;
  return trips[`${prefix}_trip_id`] !== null;
}

/** Stop identities by stop call id, each built once however many journeys share the call. */
type Identities = (callId: string) => StopIdentity;

function identitiesOf(rows: Record<string, StopIdentityRow<'call'>>): Identities {
  const built = new Map<string, StopIdentity>();
  return (callId) => {
    let identity = built.get(callId);
    if (!identity) {
      identity = toStopIdentity(rows[callId]!, 'call');
      built.set(callId, identity);
    }
    return identity;
  };
}

function toLeg<P extends 'l1' | 'l2'>(
  row: LegColumns<P>,
  identityOf: Identities,
  prefix: P,
  sequence: number,
): JourneyLeg {
  const texts: Record<`${P}_${LegText | LegNames}`, string> = row;
  const numbers: Record<`${P}_${LegNumber}`, number> = row;
  const vip: Record<`${P}_price_vip`, string | null> = row;
  const text = (name: LegText | LegNames) => texts[`${prefix}_${name}`];
  const number = (name: LegNumber) => numbers[`${prefix}_${name}`];
  const board = identityOf(text('board_call_id'));
  const alight = identityOf(text('alight_call_id'));
  const boardBp = number('board_bp');
  const alightBp = number('alight_bp');
  const priceVip = vip[`${prefix}_price_vip`];
  const companyId = text('company_id');
  return {
    sequence,
    trip_id: text('trip_id'),
    company_id: companyId,
    company: { id: companyId, name_ar: text('company_name_ar'), name_en: text('company_name_en') },
    departure_at: board.departure_at,
    arrival_at: alight.arrival_at,
    duration_minutes: minutesBetween(new Date(board.departure_at), new Date(alight.arrival_at)),
    price: legFare(Number(text('price_base')), boardBp, alightBp),
    price_vip: priceVip === null ? null : legFare(Number(priceVip), boardBp, alightBp),
    currency: text('currency'),
    free_seats: number('free_seats'),
    board,
    alight,
  };
}

/** A journey from one result row, or null when its change fails the domain rule. */
function toJourney(
  row: SearchRow & LegColumns<'l1'>,
  identityOf: Identities,
  settings: TransferSettings,
): Journey | null {
  const first = toLeg(row, identityOf, 'l1', 1);
  const second = hasLeg(row, 'l2') ? toLeg(row, identityOf, 'l2', 2) : null;
  const legs = second ? [first, second] : [first];
  const last = legs[legs.length - 1]!;
  let transfer: Transfer | null = null;
  if (second) {
    transfer = transferBetween(
      { stopId: first.alight.stop_id, cityId: first.alight.city_id, arrivalAt: new Date(first.arrival_at) },
      {
        stopId: second.board.stop_id,
        cityId: second.board.city_id,
        departureAt: new Date(second.departure_at),
      },
      settings,
    );
    if (!transfer) return null;
  }
  return {
    journey_key: journeyKey(legs),
    departure_at: first.departure_at,
    arrival_at: last.arrival_at,
    duration_minutes: minutesBetween(new Date(first.departure_at), new Date(last.arrival_at)),
    transfers: second ? 1 : 0,
    total_price: legs.reduce((sum, leg) => sum + leg.price, 0),
    currency: first.currency,
    free_seats: Math.min(...legs.map((leg) => leg.free_seats)),
    legs,
    transfer,
  };
}

/**
 * Runs buildSearchSql as a named prepared statement (one round trip) and shapes the rows with
 * the domain composition rules.
 */
export async function searchJourneys(
  db: Pick<Database, 'pool'>,
  input: JourneySearchInput,
): Promise<JourneySearchResult> {
  const { rows } = await db.pool.query<SearchRow>(prepareSearch(input));
  const first = rows[0];
  const identityOf = identitiesOf(first?.identities ?? {});
  const journeys = rows
    .filter((row): row is SearchRow & LegColumns<'l1'> => hasLeg(row, 'l1'))
    .map((row) => toJourney(row, identityOf, input.transfer))
    .filter((journey): journey is Journey => journey !== null);
  return {
    originCityId: first?.origin_city_id ?? null,
    destinationCityId: first?.destination_city_id ?? null,
    journeys: composeJourneys(journeys),
  };
}
