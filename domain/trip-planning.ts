import { LEGACY_LAYOUT_MAX_SEATS } from './layout-templates.js';
import { Refusal } from './refusal.js';
import { damascusDayStart } from './time.js';

/**
 * Rules of the company's planning (fleet, network, trips and schedules) that the API, the
 * transactions and the schedule workflow's activities share. Every refusal is a PlanningRefusal:
 * a transaction throws it, an activity returns it as data, the API answers it.
 */
export class PlanningRefusal extends Refusal {
  declare readonly status: 400 | 403 | 404 | 409 | 422;
  constructor(
    status: 400 | 403 | 404 | 409 | 422,
    code: string,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(status, code, message, details);
  }
}

/** The dashboard roles that plan (fleet, network, trips, schedules); STAFF and ACCOUNTANT do not. */
export const PLANNING_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER'] as const;
/** Creating driver accounts (they sign in to the driver app) is for the company's managers. */
export const DRIVER_ADMIN_ROLES = ['OWNER', 'ADMIN'] as const;

/** The longest trip the planner accepts, in minutes: a day. */
export const MAX_TRIP_MINUTES = 24 * 60;

/**
 * The latest instant a trip may arrive: the end of 9999-12-31 in Damascus, the last operating date
 * the API reads and writes (ISO 8601 with four-digit years). A later trip could not be stored: its
 * times would be written +010000-…, which PostgreSQL refuses.
 */
export const LATEST_TRIP_ARRIVAL = damascusDayStart('9999-12-31').getTime() + 24 * 60 * 60_000;

/**
 * New trips (POST /trips, every trip of a schedule, preview and commit alike) end by
 * LATEST_TRIP_ARRIVAL; one arriving later refuses them all.
 */
export function lastDateRefusal(trips: readonly { arrivalAt: number }[]): PlanningRefusal | null {
  if (trips.every((trip) => trip.arrivalAt <= LATEST_TRIP_ARRIVAL)) return null;
  return new PlanningRefusal(
    400,
    'TRIP_AFTER_LAST_DATE',
    'A trip must arrive by the end of 9999-12-31 in Damascus, the last date trips are planned on',
    { latestArrivalAt: new Date(LATEST_TRIP_ARRIVAL).toISOString() },
  );
}

/** Stop kinds a trip may call at or pick travellers up from; depots are operational only. */
export const TRAVELLER_STOP_KINDS = ['BUS_STATION', 'PARKING_POINT', 'AIRPORT', 'BOARDING_POINT'] as const;

/** What a planning rule needs to know of a stop. */
export interface PlanningStop {
  id: string;
  city_id: string;
  company_id: string | null;
  kind: string;
  enabled: boolean;
}

/** A stop the company may use: public or its own, enabled, and not a depot. */
export function usableStop(stop: PlanningStop | undefined, companyId: string): stop is PlanningStop {
  return (
    stop !== undefined &&
    stop.enabled &&
    (TRAVELLER_STOP_KINDS as readonly string[]).includes(stop.kind) &&
    (stop.company_id === null || stop.company_id === companyId)
  );
}

/**
 * SPEC "POST /trips": the pickup stop is a public stop or one of the company's own, in the
 * route's origin city. Another company's stop is refused like one that does not exist.
 */
export function pickupStopRefusal(
  stop: PlanningStop | undefined,
  rule: { companyId: string; originCityId: string },
): PlanningRefusal | null {
  if (!usableStop(stop, rule.companyId)) {
    return new PlanningRefusal(
      400,
      'PICKUP_STOP_NOT_ALLOWED',
      "pickup_stop_id must be an enabled public stop or one of the company's own pickup points",
    );
  }
  if (stop.city_id !== rule.originCityId) {
    return new PlanningRefusal(
      400,
      'PICKUP_STOP_WRONG_CITY',
      "pickup_stop_id must be a stop in the route's origin city",
      { stopCityId: stop.city_id, originCityId: rule.originCityId },
    );
  }
  return null;
}

/** A bus as the seat rule sees it. */
export interface PlanningBus {
  status: string;
  /** Imported before canonical layouts existed: its seats are a count, not a layout document. */
  legacy_seat_map: boolean;
  capacity: number;
  /** Seats of its active (hence valid) layout; null when it has none. */
  active_seat_count: number | null;
}

/**
 * Whether planning a trip on this bus first gives it legacyLayout(capacity) as its active layout:
 * it was imported before canonical layouts, has no active layout yet, and its recorded capacity
 * fits a generated one. (After a layout of its own is archived its capacity is 0: it needs a new one.)
 */
export function legacyLayoutDue(bus: PlanningBus): boolean {
  return (
    bus.legacy_seat_map &&
    bus.active_seat_count === null &&
    bus.capacity >= 1 &&
    bus.capacity <= LEGACY_LAYOUT_MAX_SEATS
  );
}

/**
 * The seats a new trip on this bus sells. SPEC: a bus needs a valid active layout; the legacy
 * fallback (the bus's recorded capacity) is only for buses imported before canonical layouts
 * that have none yet, and the planning write gives such a bus that many seats as its layout
 * (legacyLayoutDue) before the trip is written. A bus out of service takes no new trips.
 */
export function tripSeats(bus: PlanningBus): number {
  if (bus.status !== 'ACTIVE') {
    throw new PlanningRefusal(409, 'BUS_NOT_IN_SERVICE', 'The bus is not in service', {
      busStatus: bus.status,
    });
  }
  if (bus.active_seat_count !== null) return bus.active_seat_count;
  if (legacyLayoutDue(bus)) return bus.capacity;
  throw new PlanningRefusal(
    409,
    'BUS_LAYOUT_REQUIRED',
    'The bus needs an active, validated seat layout (PUT /buses/{id}/layout with saveMode active) before it can run trips',
  );
}

/** The not-found answer for a planning record of another company or none at all. */
export function notFound(what: 'BUS' | 'ROUTE' | 'TRIP' | 'DRIVER' | 'SCHEDULE' | 'CITY'): PlanningRefusal {
  const text = what.charAt(0) + what.slice(1).toLowerCase();
  return new PlanningRefusal(404, `${what}_NOT_FOUND`, `${text} not found`);
}

/** The planning fields of a trip that a POST with trip_id may change, and which need a trip without bookings. */
export interface TripPlanFields {
  routeId: string;
  departureAt: number;
  arrivalAt: number;
  busId: string;
  pickupStopId: string;
  driverId: string | null;
  priceBase: number;
  priceVip: number | null;
}

/**
 * Statuses in which a re-plan changes the trip's driver and nothing else: the trip is boarding or
 * held back by a delay, so its route, times, bus, pickup stop and fares stay, but a driver who was
 * deactivated (DRIVER_INACTIVE), never assigned (DRIVER_NOT_ASSIGNED) or is out on another trip
 * (DRIVER_ON_ANOTHER_TRIP) can be replaced, else the trip could never leave.
 */
export const DRIVER_ONLY_REPLAN_STATUSES = ['BOARDING', 'DELAYED'] as const;

/** Whether a trip in `status` is re-planned for its driver alone (DRIVER_ONLY_REPLAN_STATUSES). */
export const driverOnlyReplan = (status: string): boolean =>
  (DRIVER_ONLY_REPLAN_STATUSES as readonly string[]).includes(status);

/** The body fields a BOARDING or DELAYED trip keeps, each with whether a re-plan changes it. */
const fixedOnceBoarding = (trip: TripPlanFields, next: TripPlanFields): [string, boolean][] => [
  ['route_id', trip.routeId !== next.routeId],
  ['departure_at', trip.departureAt !== next.departureAt],
  ['duration_minutes', trip.arrivalAt - trip.departureAt !== next.arrivalAt - next.departureAt],
  ['bus_id', trip.busId !== next.busId],
  ['pickup_stop_id', trip.pickupStopId !== next.pickupStopId],
  ['price_base', trip.priceBase !== next.priceBase],
  ['price_vip', trip.priceVip !== next.priceVip],
];

/**
 * Re-planning an existing trip (POST /trips with trip_id). A SCHEDULED trip: its route and times
 * are fixed (a different timetable is a different trip: cancel it and plan another); once
 * travellers hold or booked seats its bus and its pickup stop are fixed too (SPEC), while driver
 * and fares may still change (a fare change applies to later bookings). A BOARDING or DELAYED
 * trip changes only its driver (DRIVER_ONLY_REPLAN_STATUSES): any other field that differs is
 * 409 TRIP_NOT_EDITABLE naming the fields. A trip that has left or is over changes nothing.
 */
export function replanRefusal(
  trip: TripPlanFields & { status: string; hasBookings: boolean },
  next: TripPlanFields,
): PlanningRefusal | null {
  if (driverOnlyReplan(trip.status)) {
    const fields = fixedOnceBoarding(trip, next).flatMap(([name, changed]) => (changed ? [name] : []));
    if (fields.length === 0) return null;
    return new PlanningRefusal(
      409,
      'TRIP_NOT_EDITABLE',
      'Once a trip is boarding or delayed only its driver can change',
      { status: trip.status, fields },
    );
  }
  if (trip.status !== 'SCHEDULED') {
    return new PlanningRefusal(
      409,
      'TRIP_NOT_EDITABLE',
      'Only a scheduled trip can be re-planned (a boarding or delayed one only gets another driver)',
      { status: trip.status },
    );
  }
  const changed = <Field extends keyof TripPlanFields>(fields: readonly Field[]) =>
    fields.filter((field) => trip[field] !== next[field]);
  if (changed(['routeId', 'departureAt', 'arrivalAt']).length > 0) {
    return new PlanningRefusal(
      409,
      'TRIP_TIMETABLE_FIXED',
      "A trip's route and times cannot change; cancel it and plan a new trip",
    );
  }
  const fixed = changed(['busId', 'pickupStopId']);
  if (trip.hasBookings && fixed.length > 0) {
    return new PlanningRefusal(
      409,
      'TRIP_HAS_BOOKINGS',
      'The trip has bookings: its bus and pickup stop can no longer change',
      { fields: fixed.map((field) => (field === 'busId' ? 'bus_id' : 'pickup_stop_id')) },
    );
  }
  return null;
}

/** Great-circle distance in kilometres between two points. */
export function distanceKm(a: { latitude: number; longitude: number }, b: typeof a): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const dLat = radians(b.latitude - a.latitude);
  const dLon = radians(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A company pickup point lies within this distance of its city's centre. */
export const PICKUP_MAX_KM_FROM_CITY = 40;

/** What name matching ignores besides case: Latin accents, Arabic vowel and Quranic marks, tatweel. */
const IGNORED_IN_NAMES = '\\u0300-\\u036f\\u0610-\\u061a\\u064b-\\u065f\\u0670\\u06d6-\\u06ed\\u0640';
const IGNORED_IN_NAME = new RegExp(`[${IGNORED_IN_NAMES}]`, 'g');

/** Invisible format characters (zero-width space, direction marks, soft hyphen...): they print nothing. */
const FORMAT_CHARACTER = /\p{Cf}/gu;

/**
 * Letters names write one for the other, matched as one: the Persian yeh and keheh (printed as the
 * Arabic yeh and kaf), the alef maksura for a final yeh, the heh for a teh marbuta (حماة, حماه)
 * and the alef wasla.
 */
const FOLDED_LETTERS: Readonly<Record<string, string>> = {
  '\u06cc': '\u064a',
  '\u06a9': '\u0643',
  '\u0649': '\u064a',
  '\u0629': '\u0647',
  '\u0671': '\u0627',
};
const FOLDED_LETTER = new RegExp(`[${Object.keys(FOLDED_LETTERS).join('')}]`, 'g');

/**
 * Names match ignoring case, diacritics (Latin accents, Arabic vowel marks, hamza seats), tatweel,
 * invisible format characters and the letter variants of FOLDED_LETTERS.
 */
export function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(FORMAT_CHARACTER, '')
    .replace(IGNORED_IN_NAME, '')
    .replace(FOLDED_LETTER, (letter) => FOLDED_LETTERS[letter]!)
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A letter name matching keeps (tatweel is a letter to Unicode, and nameKey drops it). A name needs
 * one: a name of tatweels or marks alone shows nothing and would match every other such name.
 */
export const NAME_LETTER = new RegExp(`(?![${IGNORED_IN_NAMES}])\\p{L}`, 'u');

/**
 * Whether a letter is left of the name once nameKey has reduced it. NAME_LETTER on the text as typed
 * is not enough: a compatibility letter (the isolated fathatan, U+FE70) decomposes to marks nameKey drops.
 */
export const nameHasLetter = (name: string): boolean => NAME_LETTER.test(nameKey(name));

/** Arabic-Indic (U+0660-0669) and Eastern Arabic-Indic (U+06F0-06F9) digits, as Arabic and Persian keyboards type them. */
const ARABIC_DIGIT = /[\u0660-\u0669\u06f0-\u06f9]/g;

/**
 * A bus plate as it is stored and compared: one plate is one bus whatever digits it is typed with
 * (Syrian plates print the number in both: ١٢٣ is 123) and with or without tatweel (دمـشق is
 * دمشق); runs of white space become one space, trimmed. Both digit blocks start at a multiple of 16,
 * so a digit's value is its code point modulo 16.
 */
export function plateForm(plate: string): string {
  return plate
    .replace(ARABIC_DIGIT, (digit) => String(digit.charCodeAt(0) % 16))
    .replace(/\u0640/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Amenities a bus may list (the demo fleet uses the same words). */
export const BUS_AMENITIES = [
  'AC',
  'WIFI',
  'USB',
  'POWER_OUTLET',
  'TOILET',
  'RECLINING_SEATS',
  'TV',
  'SNACKS',
  'LUGGAGE_HOLD',
] as const;
