import type { Database } from '../../db/orm.js';
import { findOwnBooking, type CustomerBooking } from '../../db/queries/customer-bookings.js';
import {
  cancelBooking,
  modifyBooking,
  type BookingCaller,
  type ChangeOptions,
  type ModificationInput,
  type ModifyingCaller,
} from '../../db/writes/booking-changes/index.js';
import { bookingNotFound } from '../../domain/booking-rules.js';

/** A traveller's own changes to a booking, each answered with the booking as GET /bookings/{id} shows it. */

async function ownBooking(db: Database, caller: BookingCaller, bookingId: string): Promise<CustomerBooking> {
  const booking = await findOwnBooking(db, caller.userId, bookingId);
  if (!booking) throw bookingNotFound();
  return booking;
}

/** PATCH /bookings/{id} action modify. */
export async function modifyOwnBooking(
  db: Database,
  caller: ModifyingCaller,
  input: ModificationInput,
  options: ChangeOptions,
): Promise<CustomerBooking> {
  await modifyBooking(db, caller, input, options);
  return ownBooking(db, caller, input.bookingId);
}

/**
 * POST /bookings/{id}/cancel: the booking, and the ids of the other bookings of its round trip,
 * connection or order that ended with it.
 */
export async function cancelOwnBooking(
  db: Database,
  caller: BookingCaller,
  bookingId: string,
  options: { cutoffMinutes: number },
): Promise<CustomerBooking & { cancelled_with_booking_ids: string[] }> {
  const cancelledWith = await cancelBooking(db, caller, bookingId, options);
  return { ...(await ownBooking(db, caller, bookingId)), cancelled_with_booking_ids: cancelledWith };
}
