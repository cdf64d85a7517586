import type { Database } from '../orm.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import {
  composeJourneys,
  connectionChange,
  journeyKey,
  minutesBetween,
  searchWindow,
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
type LegNumber = 'board_bp' | 'alight_bp' | 'free_seats' | 'delay_minutes';

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
  return trips[LEG_KEYS[prefix].trip_id as `${P}_trip_id`] !== null;
}

/** Each leg column's name in a result row (l1_trip_id...), built once: rows are read by these keys. */
type LegKeys<P extends 'l1' | 'l2'> = { [F in LegText | LegNames | LegNumber | 'price_vip']: `${P}_${F}` };

function legKeys<P extends 'l1' | 'l2'>(prefix: P): LegKeys<P> {
  const fields = [
    ...(['trip_id', 'board_call_id', 'alight_call_id', 'price_base', 'currency', 'company_id'] as const),
    ...(['company_name_ar', 'company_name_en', 'board_bp', 'alight_bp', 'free_seats', 'price_vip'] as const),
    'delay_minutes' as const,
  ];
  return Object.fromEntries(fields.map((field) => [field, `${prefix}_${field}`])) as LegKeys<P>;
}

const LEG_KEYS = { l1: legKeys('l1'), l2: legKeys('l2') };

/** A stop call the answer names: its identity and its times in epoch milliseconds, each read once. */
interface CallPoint {
  identity: StopIdentity;
  departureMs: number;
  arrivalMs: number;
}

/** Stop calls by id, each built once however many journeys share the call. */
type CallPoints = (callId: string) => CallPoint;

function callPointsOf(rows: Record<string, StopIdentityRow<'call'>>): CallPoints {
  const built = new Map<string, CallPoint>();
  return (callId) => {
    let point = built.get(callId);
    if (!point) {
      const identity = toStopIdentity(rows[callId]!, 'call');
      point = {
        identity,
        departureMs: Date.parse(identity.departure_at),
        arrivalMs: Date.parse(identity.arrival_at),
      };
      built.set(callId, point);
    }
    return point;
  };
}

const minutesFrom = (fromMs: number, toMs: number) => minutesBetween(new Date(fromMs), new Date(toMs));

/** A leg of a result row, with its board and alight calls (for the journey's times and change). */
interface ReadLeg {
  leg: JourneyLeg;
  board: CallPoint;
  alight: CallPoint;
  /** The trip's announced delay (trips.delay_minutes). */
  delayMinutes: number;
}

function toLeg<P extends 'l1' | 'l2'>(
  row: LegColumns<P>,
  pointOf: CallPoints,
  prefix: P,
  sequence: number,
): ReadLeg {
  const keys: LegKeys<P> = LEG_KEYS[prefix] as LegKeys<P>;
  const texts: Record<`${P}_${LegText | LegNames}`, string> = row;
  const numbers: Record<`${P}_${LegNumber}`, number> = row;
  const vip: Record<`${P}_price_vip`, string | null> = row;
  const board = pointOf(texts[keys.board_call_id]);
  const alight = pointOf(texts[keys.alight_call_id]);
  const boardBp = numbers[keys.board_bp];
  const alightBp = numbers[keys.alight_bp];
  const priceVip = vip[keys.price_vip];
  const companyId = texts[keys.company_id];
  const leg: JourneyLeg = {
    sequence,
    trip_id: texts[keys.trip_id],
    company_id: companyId,
    company: { id: companyId, name_ar: texts[keys.company_name_ar], name_en: texts[keys.company_name_en] },
    departure_at: board.identity.departure_at,
    arrival_at: alight.identity.arrival_at,
    duration_minutes: minutesFrom(board.departureMs, alight.arrivalMs),
    price: legFare(Number(texts[keys.price_base]), boardBp, alightBp),
    price_vip: priceVip === null ? null : legFare(Number(priceVip), boardBp, alightBp),
    currency: texts[keys.currency],
    free_seats: numbers[keys.free_seats],
    board: board.identity,
    alight: alight.identity,
  };
  return { leg, board, alight, delayMinutes: numbers[keys.delay_minutes] };
}

/** A journey from one result row, or null when its change (from the expected arrival) fails the domain rule. */
function toJourney(
  row: SearchRow & LegColumns<'l1'>,
  pointOf: CallPoints,
  settings: TransferSettings,
): Journey | null {
  const first = toLeg(row, pointOf, 'l1', 1);
  const second = hasLeg(row, 'l2') ? toLeg(row, pointOf, 'l2', 2) : null;
  let transfer: Transfer | null = null;
  if (second) {
    transfer = connectionChange(
      {
        tripId: first.leg.trip_id,
        stopId: first.alight.identity.stop_id,
        cityId: first.alight.identity.city_id,
        plannedArrivalMs: first.alight.arrivalMs,
        delayMinutes: first.delayMinutes,
      },
      {
        tripId: second.leg.trip_id,
        stopId: second.board.identity.stop_id,
        cityId: second.board.identity.city_id,
        departureAt: new Date(second.board.departureMs),
      },
      settings,
    );
    if (!transfer) return null;
  }
  const last = second ?? first;
  const legs = second ? [first.leg, second.leg] : [first.leg];
  return {
    journey_key: journeyKey(legs),
    departure_at: first.leg.departure_at,
    arrival_at: last.leg.arrival_at,
    duration_minutes: minutesFrom(first.board.departureMs, last.alight.arrivalMs),
    transfers: second ? 1 : 0,
    total_price: second ? first.leg.price + second.leg.price : first.leg.price,
    currency: first.leg.currency,
    free_seats: second ? Math.min(first.leg.free_seats, second.leg.free_seats) : first.leg.free_seats,
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
  const pointOf = callPointsOf(first?.identities ?? {});
  const journeys: Journey[] = [];
  for (const row of rows) {
    if (!hasLeg(row, 'l1')) continue;
    const journey = toJourney(row, pointOf, input.transfer);
    if (journey) journeys.push(journey);
  }
  return {
    originCityId: first?.origin_city_id ?? null,
    destinationCityId: first?.destination_city_id ?? null,
    journeys: composeJourneys(journeys),
  };
}
