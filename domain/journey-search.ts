/**
 * Composition rules of journey search (SPEC "Search and catalogue", POST /journeys/search): when
 * two legs make a valid connection, how journeys are keyed, de-duplicated and ordered. The search
 * SQL applies the same rules set-wise for speed; search, quote, hold and confirm judge a connection
 * with connectionChange, and search shapes its result with composeJourneys.
 */
import { damascusDate, damascusDayEnd, damascusDayStart } from './time.js';

/** At most this many journeys are returned by one search. */
export const MAX_JOURNEYS = 50;

/**
 * The longest single leg a search considers, in hours. Intercity legs in the network take well
 * under a day; the bound lets the search read destination calls from a short time range.
 */
export const MAX_LEG_HOURS = 36;

export interface TransferSettings {
  /** Minimum change time when the second leg boards at the stop where the first leg alights. */
  minSameStopMinutes: number;
  /** Minimum change time when the second leg boards at another stop of the same city. */
  minSameCityMinutes: number;
  /** Longest wait offered between the two legs. */
  maxWaitMinutes: number;
}

export type TransferKind = 'SAME_STOP' | 'SAME_CITY';

export interface Transfer {
  kind: TransferKind;
  city_id: string;
  wait_minutes: number;
}

/** Where and when the first leg ends. */
export interface LegEnd {
  stopId: string;
  cityId: string;
  arrivalAt: Date;
}

/** Where and when the second leg starts. */
export interface LegStart {
  stopId: string;
  cityId: string;
  departureAt: Date;
}

const MINUTE_MS = 60_000;

export function minutesBetween(from: Date, to: Date): number {
  return Math.round((to.getTime() - from.getTime()) / MINUTE_MS);
}

/**
 * The change between two legs, or null when they do not connect: the second leg must board at
 * the same stop or at another stop of the same city, no sooner than the minimum change time for
 * that kind of change and no later than the longest wait.
 */
export function transferBetween(
  first: LegEnd,
  second: LegStart,
  settings: TransferSettings,
): Transfer | null {
  const kind: TransferKind | null =
    first.stopId === second.stopId ? 'SAME_STOP' : first.cityId === second.cityId ? 'SAME_CITY' : null;
  if (!kind) return null;
  const waitMs = second.departureAt.getTime() - first.arrivalAt.getTime();
  const minimum = kind === 'SAME_STOP' ? settings.minSameStopMinutes : settings.minSameCityMinutes;
  if (waitMs < minimum * MINUTE_MS || waitMs > settings.maxWaitMinutes * MINUTE_MS) return null;
  return { kind, city_id: second.cityId, wait_minutes: minutesBetween(first.arrivalAt, second.departureAt) };
}

/** The configuration of the change-time rules (TRANSFER_*), as config/ reads it. */
export interface TransferConfig {
  TRANSFER_MIN_SAME_STOP_MINUTES: number;
  TRANSFER_MIN_SAME_CITY_MINUTES: number;
  TRANSFER_MAX_WAIT_MINUTES: number;
}

/** The change-time rules of connections, as configured (search, quote, hold and confirm use the same). */
export function transferSettings(config: TransferConfig): TransferSettings {
  return {
    minSameStopMinutes: config.TRANSFER_MIN_SAME_STOP_MINUTES,
    minSameCityMinutes: config.TRANSFER_MIN_SAME_CITY_MINUTES,
    maxWaitMinutes: config.TRANSFER_MAX_WAIT_MINUTES,
  };
}

/**
 * When a leg is expected to reach its alighting call: the planned arrival plus the delay its
 * company announced (MARK_DELAYED writes trips.delay_minutes; stop-call times stay the plan). Only
 * a bookable trip is a leg, and a bookable trip has not departed, so no actual departure makes it
 * later (the lateness rule of db/queries/leg-boarding.ts).
 */
export function expectedArrivalAt(plannedArrivalMs: number, delayMinutes: number): Date {
  return new Date(plannedArrivalMs + delayMinutes * MINUTE_MS);
}

/** Where the first leg of a connection ends as planned, on which trip, and that trip's announced delay. */
export interface PlannedLegEnd {
  tripId: string;
  stopId: string;
  cityId: string;
  /** The planned arrival at the alighting call, in epoch milliseconds. */
  plannedArrivalMs: number;
  /** trips.delay_minutes of the leg's trip. */
  delayMinutes: number;
}

/** Where and when the second leg of a connection boards, and on which trip. */
export interface PlannedLegStart extends LegStart {
  tripId: string;
}

/**
 * The change of a connection, or null when its two legs do not chain: two different trips, the
 * second boarding where the first alights (transferBetween) after the change time measured from the
 * first leg's expected arrival (its planned arrival plus its announced delay). One rule for every
 * step that offers or sells a connection: search offers it, the quote prices it, and the hold and
 * the confirm take it only while it holds, so a delay announced after the quote stops the sale
 * there as it stops a new search.
 */
export function connectionChange(
  first: PlannedLegEnd,
  second: PlannedLegStart,
  settings: TransferSettings,
): Transfer | null {
  if (first.tripId === second.tripId) return null;
  return transferBetween(
    {
      stopId: first.stopId,
      cityId: first.cityId,
      arrivalAt: expectedArrivalAt(first.plannedArrivalMs, first.delayMinutes),
    },
    second,
    settings,
  );
}

/** The identity of one leg: a trip ridden from one stop call to a later one. */
export interface LegIdentity {
  trip_id: string;
  board: { stop_call_id: string };
  alight: { stop_call_id: string };
}

/**
 * A stable key for a journey, built only from its legs' trips and stop calls, so the same
 * journey has the same key in every search and on every client.
 */
export function journeyKey(legs: readonly LegIdentity[]): string {
  return legs.map((leg) => `${leg.trip_id}:${leg.board.stop_call_id}:${leg.alight.stop_call_id}`).join('+');
}

/** What ordering and de-duplication look at. */
export interface RankedJourney {
  journey_key: string;
  /** ISO 8601 UTC as Date#toISOString writes it, so text order is time order. */
  departure_at: string;
  duration_minutes: number;
  total_price: number;
  legs: readonly { trip_id: string }[];
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Earliest departure first, then the shortest, then the cheapest; the key breaks exact ties. */
export function compareJourneys(a: RankedJourney, b: RankedJourney): number {
  return (
    compareText(a.departure_at, b.departure_at) ||
    a.duration_minutes - b.duration_minutes ||
    a.total_price - b.total_price ||
    compareText(a.journey_key, b.journey_key)
  );
}

/**
 * A trip that calls at several stops of the origin or destination city would otherwise appear
 * once per stop combination; a journey is offered once per sequence of trips, with its best
 * combination in the search order.
 */
export function tripSequenceKey(journey: RankedJourney): string {
  return journey.legs.map((leg) => leg.trip_id).join('+');
}

/** Orders, keeps the best journey per sequence of trips, and caps the list. */
export function composeJourneys<J extends RankedJourney>(
  candidates: readonly J[],
  limit = MAX_JOURNEYS,
): J[] {
  const seen = new Set<string>();
  const journeys: J[] = [];
  for (const journey of [...candidates].sort(compareJourneys)) {
    const key = tripSequenceKey(journey);
    if (seen.has(key)) continue;
    seen.add(key);
    journeys.push(journey);
    if (journeys.length === limit) break;
  }
  return journeys;
}

/** Boarding times a search for `date` accepts: on that Damascus day and not already past. */
export function searchWindow(date: string, now: Date): { from: Date; to: Date } {
  const start = damascusDayStart(date);
  const to = damascusDayEnd(date);
  return { from: start.getTime() > now.getTime() ? start : now, to };
}

/** A departure date before today's Damascus date is in the past. */
export function isPastOperatingDate(date: string, now: Date): boolean {
  return date < damascusDate(now);
}
