import { seatLockMismatch } from '../../../domain/booking.js';
import type { Database } from '../../orm.js';
import type { SigningOptions } from '../boarding-credentials.js';
import { lockActiveTraveller, requireUnpaidWithinCap } from '../inventory-caps.js';
import type { Queryable } from '../seat-locks.js';
import {
  applyVoucher,
  lineOf,
  linesToPay,
  shareLockTrips,
  signerOf,
  writeLine,
  type BookingCaller,
  type PassengerInput,
} from './line.js';
import { bookingOfLock, bookingRecords, type BookingRecord } from './records.js';
import { lockRefusal, lockSeatLocks, requireUsable, type LockedLock } from './seat-lock.js';

/**
 * POST /bookings (SPEC "Booking creation payload", "Bookings"): ONE transaction that consumes a
 * seat lock and stores the booking the modern way — a journey without a quote (origin
 * BOOKING_API) with one leg over the whole trip, one signed ticket per seat, the compatibility
 * bookings row (the booking id clients use), the lock's allocations CONFIRMED for the journey, and
 * the voucher (reward_code) marked used. Only companies that confirm automatically for the channel
 * take bookings this way, so the booking is CONFIRMED at once with payment_status UNPAID (cash is
 * paid at the office or to the driver); no workflow is involved because nothing waits on a clock
 * or a decision.
 *
 * With caller.caps the account's row is locked first and its unpaid live bookings counted: one
 * more past UNPAID_BOOKINGS_MAX is 409 UNPAID_BOOKING_LIMIT_REACHED (a retry answering its booking
 * is not a new one).
 *
 * A refusal anywhere (the voucher included) rolls everything back: the lock stays ACTIVE and the
 * voucher unused. A retry with the same lock by its owner answers the booking it made.
 */
export interface BookingInput extends PassengerInput {
  seatLockSessionId: string;
  tripId: string;
  seatNumbers: string[];
}

export interface CreatedBooking {
  booking: BookingRecord;
  /** False when a retry found the booking this lock already made. */
  created: boolean;
}

/**
 * Why `input` does not name the lock's trip and seats, or null when it does: its labels must be one
 * of `labelLists` as a whole (the current labels, or those the lock answered: a seat the company
 * renamed after the lock answered is still booked under the label its traveller was given).
 */
function lockMismatch(tripId: string, labelLists: (string[] | null)[], input: BookingInput): string | null {
  const mismatches = labelLists
    .filter((seatNumbers) => seatNumbers !== null)
    .map((seatNumbers) => seatLockMismatch({ tripId, seatNumbers }, input));
  return mismatches.includes(null) ? null : mismatches[0]!;
}

/** The booking a consumed lock made for this very request (not for a round trip), if any. */
async function retriedBooking(
  client: Queryable,
  lock: LockedLock,
  input: BookingInput,
): Promise<BookingRecord | undefined> {
  if (lock.status !== 'CONSUMED') return undefined;
  const booking = await bookingOfLock(client, lock.id);
  if (!booking || booking.order_id) return undefined;
  const labelLists = [booking.seat_numbers, lock.answeredLabels];
  return lockMismatch(booking.trip_id, labelLists, input) === null ? booking : undefined;
}

export async function createBooking(
  db: Database,
  caller: BookingCaller,
  input: BookingInput,
  signing: SigningOptions = {},
): Promise<CreatedBooking> {
  return db.transaction(async (client) => {
    if (caller.caps) await lockActiveTraveller(client, caller.userId);
    // The trip the request names: a seat lock of another trip is refused below (SEAT_LOCK_MISMATCH).
    await shareLockTrips(client, [input.tripId]);
    // The write time is read once the lock is held: its end is judged at the instant the booking is stamped with.
    const { locks, at } = await lockSeatLocks(client, caller.userId, [input.seatLockSessionId]);
    const lock = locks.get(input.seatLockSessionId)!;
    const retried = await retriedBooking(client, lock, input);
    if (retried) return { booking: retried, created: false };
    requireUsable(lock);
    const current = lock.seats.map((seat) => seat.seat_number);
    const mismatch = lockMismatch(lock.seats[0]!.trip_id, [current, lock.answeredLabels], input);
    if (mismatch) throw lockRefusal(lock.id, { code: 'SEAT_LOCK_MISMATCH', message: mismatch });
    const line = await lineOf(client, caller, lock);
    const redemptionId = await applyVoucher(client, caller, input.rewardCode, [line]);
    // Judged once the voucher is applied: a booking it makes free never counts (linesToPay).
    if (caller.caps) await requireUnpaidWithinCap(client, caller.userId, caller.caps, linesToPay([line]));
    const signer = await signerOf(client, signing, at);
    await writeLine(client, caller, line, input, { orderId: null, redemptionId, signer, at });
    return { booking: (await bookingRecords(client, [line.bookingId]))[0]!, created: true };
  });
}
