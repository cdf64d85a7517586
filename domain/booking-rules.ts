import type { SeatChoice } from './booking.js';
import { Refusal } from './refusal.js';
import type { TripStatus } from './trip-dispatch.js';

/**
 * What a traveller may still do with a booking on their own (SPEC "Booking modification", and
 * the cancellation rules this service chose): pure rules over the booking's facts and a clock.
 * The transactions in db/writes/booking-changes/ gather the facts under locks and apply them.
 */

/** SPEC: a modification needs the departure more than 6 hours away (strictly). */
export const MODIFICATION_MIN_LEAD_MINUTES = 6 * 60;

/** Status names of a booking row (the bookings table's check constraint lists the same). */
export const BOOKING_STATUSES = [
  'HELD',
  'PENDING_CONFIRMATION',
  'CONFIRMED',
  'CANCELLED',
  'CHECKED_IN',
  'NO_SHOW',
  'COMPLETED',
  'EXPIRED',
] as const;

export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export type PaymentStatus = 'UNPAID' | 'PAID' | 'REFUNDED';

/** A rule the request breaks: a stable errorCode, its HTTP status and safe text. */
export class BookingRefusal extends Refusal {
  declare readonly status: 404 | 409 | 422;
  constructor(status: 404 | 409 | 422, code: string, message: string, details?: Record<string, unknown>) {
    super(status, code, message, details);
  }
}

/** Another traveller's booking answers exactly like one that does not exist. */
export const bookingNotFound = () => new BookingRefusal(404, 'BOOKING_NOT_FOUND', 'No such booking');

export interface BookingFacts {
  status: BookingStatus;
  paymentStatus: PaymentStatus;
  /** When the traveller's bus is expected to leave their boarding stop: the plan plus the announced delay. */
  departureAt: Date;
  /**
   * The status of the booking's trip, read under the trip's lock: once it is no longer SCHEDULED,
   * BOARDING or DELAYED (the company sent DEPART, even early) the departure has happened,
   * whatever `departureAt` says.
   */
  tripStatus: TripStatus;
  /** A ticket of the booking was already used at boarding. */
  checkedIn: boolean;
  /**
   * The booking shares its journey with other bookings, or its journey shares an order with
   * other journeys (a round trip, a connection): a modification of one alone is refused; a cancel
   * ends them all together (db/writes/booking-changes/cancel.ts).
   */
  partOfAggregate: boolean;
  /** An imported row without a journey: only the company handles it. */
  imported: boolean;
}

/** Trip statuses in which the bus has not left yet (the trip's departure is still ahead). */
export const BEFORE_DEPARTURE: readonly TripStatus[] = ['SCHEDULED', 'BOARDING', 'DELAYED'];

/** True when `departureAt` is more than `minutes` after `now` (exactly `minutes` is not enough). */
export function departsMoreThan(departureAt: Date, now: Date, minutes: number): boolean {
  return departureAt.getTime() - now.getTime() > minutes * 60_000;
}

/** Booking statuses of a traveller who boarded or missed the bus: the booking has travelled. */
const TRAVELLED: readonly BookingStatus[] = ['CHECKED_IN', 'NO_SHOW', 'COMPLETED'];

/**
 * A booking of a round trip, connection or order that travel has settled: its traveller boarded or
 * missed the bus (CHECKED_IN, NO_SHOW, COMPLETED), or the bus has left (its trip is no longer
 * SCHEDULED, BOARDING or DELAYED, or its announced departure is behind `now`, as the unpaid-bookings
 * cap reads "left"). Nobody cancels it any more, so a cancel of another booking of the aggregate
 * leaves it as it is, as a cancelled one: all or nothing holds for the legs still ahead.
 */
export function settledByTravel(booking: BookingFacts, now: Date): boolean {
  if (TRAVELLED.includes(booking.status)) return true;
  return !BEFORE_DEPARTURE.includes(booking.tripStatus) || !departsMoreThan(booking.departureAt, now, 0);
}

const aggregateRefusal = () =>
  new BookingRefusal(
    409,
    'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
    'This booking is part of a journey or order with other bookings; they change together',
  );

/**
 * The status checks shared by modification and cancellation; null when the booking is CONFIRMED and
 * live. A booking of an aggregate is refused only for a modification (modificationRefusal): a cancel
 * applies these checks to every booking of the aggregate.
 */
function liveBookingRefusal(booking: BookingFacts, code: string, action: string): BookingRefusal | null {
  if (booking.imported) return new BookingRefusal(409, code, `This booking cannot be ${action} online`);
  if (booking.status === 'PENDING_CONFIRMATION') {
    return new BookingRefusal(
      409,
      'BOOKING_AWAITING_COMPANY',
      'The company has not decided on this booking yet',
    );
  }
  if (booking.status !== 'CONFIRMED' || booking.checkedIn) {
    // A CONFIRMED booking with a ticket used is checked in; any other status is named as it is
    // (a COMPLETED one's ticket was used too), in the text and the details alike.
    const status = booking.status === 'CONFIRMED' ? 'CHECKED_IN' : booking.status;
    return new BookingRefusal(409, code, `A ${status} booking cannot be ${action}`, { status });
  }
  if (booking.paymentStatus !== 'UNPAID') {
    return new BookingRefusal(
      409,
      'BOOKING_ALREADY_PAID',
      'This booking is paid; the company handles changes and refunds',
    );
  }
  return null;
}

/**
 * The window in which a traveller changes a booking on their own, shared by modification and
 * cancellation: the booking passes the status checks (refused with `code`: cannot be `action`),
 * then its trip has not departed and departs more than `minutes` from now (else the `tooLate`
 * refusal).
 */
function changeWindowRefusal(
  booking: BookingFacts,
  now: Date,
  window: { code: string; action: string; minutes: number; tooLate: () => BookingRefusal },
): BookingRefusal | null {
  const refusal = liveBookingRefusal(booking, window.code, window.action);
  if (refusal) return refusal;
  const ahead =
    BEFORE_DEPARTURE.includes(booking.tripStatus) &&
    departsMoreThan(booking.departureAt, now, window.minutes);
  return ahead ? null : window.tooLate();
}

/** Why the booking itself cannot be modified now, or null. */
export function modificationRefusal(booking: BookingFacts, now: Date): BookingRefusal | null {
  if (!booking.imported && booking.partOfAggregate) return aggregateRefusal();
  return changeWindowRefusal(booking, now, {
    code: 'BOOKING_NOT_MODIFIABLE',
    action: 'modified',
    minutes: MODIFICATION_MIN_LEAD_MINUTES,
    tooLate: () =>
      new BookingRefusal(
        409,
        'DEPARTURE_TOO_CLOSE',
        'A booking can be modified only while its departure is more than 6 hours away',
        { trip: 'CURRENT' },
      ),
  });
}

export interface BookingRoute {
  companyId: string;
  originCityId: string;
  destinationCityId: string;
  seatCount: number;
}

export interface ModificationTarget extends BookingRoute {
  departureAt: Date;
  /** The trip still takes bookings (scheduled, boarding or delayed). */
  bookable: boolean;
  /**
   * The planned departure from the booking's boarding stop (no delay added): every selling path stops
   * taking new travellers onto the trip then, delayed or not, and so does a move onto it.
   */
  plannedDepartureAt: Date;
  /**
   * false when the trip has no stop call in the booking's boarding city followed by one in its
   * alighting city, so the moved leg would have nowhere to board or alight.
   */
  callsAtBookingCities?: boolean;
}

/** Why the booking cannot move to this trip and seat count, or null. */
export function targetRefusal(
  current: BookingRoute,
  target: ModificationTarget,
  now: Date,
): BookingRefusal | null {
  if (target.seatCount !== current.seatCount) {
    return new BookingRefusal(
      422,
      'MODIFICATION_CHANGES_SEAT_COUNT',
      `Choose exactly ${current.seatCount} seats`,
      {
        seats_count: current.seatCount,
      },
    );
  }
  if (target.companyId !== current.companyId) {
    return new BookingRefusal(
      422,
      'MODIFICATION_CHANGES_COMPANY',
      "The new trip must be one of the same company's",
    );
  }
  if (
    target.originCityId !== current.originCityId ||
    target.destinationCityId !== current.destinationCityId
  ) {
    return new BookingRefusal(
      422,
      'MODIFICATION_CHANGES_ROUTE',
      'The new trip must run between the same two cities',
    );
  }
  if (!target.bookable)
    return new BookingRefusal(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked');
  if (!departsMoreThan(target.departureAt, now, MODIFICATION_MIN_LEAD_MINUTES)) {
    return new BookingRefusal(
      409,
      'DEPARTURE_TOO_CLOSE',
      'The new trip must depart more than 6 hours from now',
      { trip: 'NEW' },
    );
  }
  // After the 6-hour rule, so a trip on time keeps that answer: only a delay announced past the
  // planned departure reaches here with the plan already behind.
  if (!departsMoreThan(target.plannedDepartureAt, now, 0))
    return new BookingRefusal(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked');
  if (target.callsAtBookingCities === false) {
    return new BookingRefusal(
      422,
      'MODIFICATION_CHANGES_ROUTE',
      "The new trip does not call at the booking's boarding and alighting cities",
    );
  }
  return null;
}

/**
 * A modification already made: the booking is on the asked trip with the asked seats in the asked
 * order (traveller i has seat i), so repeating it changes nothing.
 */
export function modificationAlreadyMade(current: SeatChoice, asked: SeatChoice): boolean {
  return (
    current.tripId === asked.tripId &&
    current.seatNumbers.length === asked.seatNumbers.length &&
    current.seatNumbers.every((label, index) => label === asked.seatNumbers[index])
  );
}

/** Booking statuses in which a move that was made still stands (the booking keeps its seats or travelled on them). */
const MOVE_STANDS: readonly BookingStatus[] = ['CONFIRMED', 'CHECKED_IN', 'NO_SHOW', 'COMPLETED'];

/** The booking as a repeat of its last move sees it. */
export interface MovedBooking extends SeatChoice {
  status: BookingStatus;
  /** A modification moved the booking's leg (to another trip or other seats) at least once. */
  moved: boolean;
}

/**
 * The repeat of a modification that was made (its answer lost, the request sent again): the booking
 * was moved, is now on the asked trip and seats in the asked order, and the move still stands. It is
 * answered as made before the booking's state is judged, since that state is what the move (and
 * time, or a payment since) made it: the new trip within 6 hours, the booking paid or checked in.
 * A request naming the seats of a booking never moved is not a repeat of anything and is judged as
 * any request; nor is one of a booking since cancelled or expired, whose move no longer stands.
 */
export function repeatOfMadeModification(booking: MovedBooking, asked: SeatChoice): boolean {
  return booking.moved && MOVE_STANDS.includes(booking.status) && modificationAlreadyMade(booking, asked);
}

/**
 * Cancellation by the traveller of one booking (a cancel of a booking of an aggregate applies it to
 * each of the aggregate's bookings): null when allowed, 'ALREADY_CANCELLED' when there is nothing
 * left to do (a repeated cancel answers the same state), else the refusal.
 */
export function cancellationDecision(
  booking: BookingFacts,
  now: Date,
  cutoffMinutes: number,
): BookingRefusal | 'ALREADY_CANCELLED' | null {
  if (booking.status === 'CANCELLED') return 'ALREADY_CANCELLED';
  return changeWindowRefusal(booking, now, {
    code: 'BOOKING_NOT_CANCELLABLE',
    action: 'cancelled',
    minutes: cutoffMinutes,
    tooLate: () =>
      new BookingRefusal(
        409,
        'CANCELLATION_TOO_LATE',
        `A booking can be cancelled only until ${cutoffMinutes} minutes before departure`,
        { cutoff_minutes: cutoffMinutes },
      ),
  });
}

/**
 * `refusal` met on another booking of the aggregate than the one the request names: the same status,
 * code and text, its details naming that booking (details.booking_id).
 */
export function refusalOfBooking(refusal: BookingRefusal, bookingId: string): BookingRefusal {
  return new BookingRefusal(refusal.status, refusal.code, refusal.message, {
    ...refusal.details,
    booking_id: bookingId,
  });
}

/**
 * The amounts after a modification of a booking whose discount no voucher stands behind: the new
 * seats' prices, and the discount kept but never above the new subtotal. A voucher's discount is
 * computed again from its terms instead (db/writes/booking-changes/modify-terms.ts).
 */
export function repricedAmounts(
  newSubtotal: number,
  grantedDiscount: number,
): { subtotal: number; discount: number; total: number } {
  const discount = Math.min(grantedDiscount, newSubtotal);
  return { subtotal: newSubtotal, discount, total: newSubtotal - discount };
}
