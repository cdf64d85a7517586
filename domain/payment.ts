import { ATTENDANCE_STATUSES, type TripStatus } from './trip-dispatch.js';

/**
 * Payment rules without I/O: the methods taken, and when a booking's cash may be announced by its
 * traveller or recorded by staff.
 */
export type PaymentMethod = 'CASH' | 'SHAMCASH' | 'CARD';
export type PaymentSource = 'transaction' | 'driver' | 'office' | 'booking';
export const PAYMENT_STATUSES = [
  'PENDING',
  'COMPLETED',
  'REFUND_DUE',
  'REFUNDED',
  'CANCELLED',
  'FAILED',
] as const;
/** REFUND_DUE: collected, and the company cancelled the trip; finance owes the traveller a refund. */
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Only cash is taken for now; the online methods are answered with the methods that work. */
export const AVAILABLE_PAYMENT_METHODS: readonly PaymentMethod[] = ['CASH'];

/**
 * Who pays a booking now: the traveller announcing cash (`open`) for a booking that is confirmed
 * and not yet travelled, or staff recording cash (`collect`) for those and, late, for a completed
 * trip; never for a dead booking.
 */
const PAYABLE_BOOKING_STATUSES: Record<'open' | 'collect', ReadonlySet<string>> = {
  open: new Set(['CONFIRMED', 'CHECKED_IN']),
  collect: new Set(['CONFIRMED', 'CHECKED_IN', 'COMPLETED']),
};

/**
 * Why this booking cannot be paid now, or null: it must be unpaid, not refunded, in a payable status,
 * and cost something. A booking of total 0 (a free-trip voucher took its fare) stays UNPAID with no
 * cash line: nobody announces, collects or verifies 0 SYP (NOTHING_TO_COLLECT), on any path.
 */
export function unpayableRefusal(
  booking: { status: string; paymentStatus: 'UNPAID' | 'PAID' | 'REFUNDED'; amountDue: number },
  by: 'open' | 'collect',
): { code: 'BOOKING_ALREADY_PAID' | 'BOOKING_NOT_PAYABLE' | 'NOTHING_TO_COLLECT'; message: string } | null {
  if (booking.paymentStatus === 'PAID') {
    return { code: 'BOOKING_ALREADY_PAID', message: 'This booking is already paid' };
  }
  if (booking.paymentStatus === 'REFUNDED' || !PAYABLE_BOOKING_STATUSES[by].has(booking.status)) {
    return { code: 'BOOKING_NOT_PAYABLE', message: 'This booking cannot be paid in its current state' };
  }
  if (booking.amountDue <= 0) {
    return { code: 'NOTHING_TO_COLLECT', message: 'This booking has nothing to pay' };
  }
  return null;
}

/**
 * Trip statuses in which the trip's driver takes a traveller's cash at the door: while the trip
 * boards (or is delayed) and under way, as long as its travellers are checked in
 * (ATTENDANCE_STATUSES). Before boarding the cash goes to the office; after COMPLETE the trip is
 * closed and late cash is the office's (POST /dashboard/api/payments).
 */
export const DRIVER_COLLECTION_TRIP_STATUSES: readonly TripStatus[] = ATTENDANCE_STATUSES;

/**
 * Why the trip's driver cannot record taking this booking's cash now, or null, in README's order:
 * the booking paid or not payable, a trip not boarding or under way, nothing to pay (the rules of a
 * traveller's announcement), a traveller not checked in.
 */
export function driverCollectionRefusal(
  booking: { status: string; paymentStatus: 'UNPAID' | 'PAID' | 'REFUNDED'; amountDue: number },
  tripStatus: TripStatus,
): { code: string; message: string; details?: Record<string, unknown> } | null {
  const unpayable = unpayableRefusal(booking, 'open');
  if (unpayable && unpayable.code !== 'NOTHING_TO_COLLECT') return unpayable;
  if (!DRIVER_COLLECTION_TRIP_STATUSES.includes(tripStatus)) {
    return {
      code: 'TRIP_NOT_COLLECTING',
      message: `The trip is ${tripStatus}; its driver takes cash while it boards or is under way`,
      details: { status: tripStatus },
    };
  }
  if (unpayable) return unpayable;
  // Cash taken at the door is a boarded traveller's: a booking not checked in could still be
  // cancelled, moved or marked a no-show, each of which ends a pending line the driver's cash is in.
  if (booking.status !== 'CHECKED_IN') {
    return {
      code: 'TRAVELLER_NOT_CHECKED_IN',
      message: 'Check the traveller in first: the driver records the cash of a traveller who boarded',
    };
  }
  return null;
}
