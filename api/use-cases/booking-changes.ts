import type { Database } from '../../db/orm.js';
import { findOwnBooking, type CustomerBooking } from '../../db/queries/customer-bookings.js';
import { confirmationSharesBeforeMove } from '../../db/queries/document-shares.js';
import {
  cancelBooking,
  modifyBooking,
  type BookingCaller,
  type ChangeOptions,
  type ModificationInput,
  type ModifyingCaller,
} from '../../db/writes/booking-changes/index.js';
import { releaseOverdueScopesOf } from '../../db/writes/journeys/index.js';
import { bookingNotFound } from '../../domain/booking-rules.js';
import type { DocumentSharing } from './document-sharing.js';
import { endConfirmationShares } from './tickets.js';

/**
 * A traveller's own changes to a booking, each answered with the booking as GET /bookings/{id} shows
 * it. Each first releases the booking's request if its decision deadline passed
 * (releaseOverdueScopesOf, a transaction of its own before the change's locks): the change then
 * meets a CANCELLED booking, not one awaiting a company.
 */

async function ownBooking(db: Database, caller: BookingCaller, bookingId: string): Promise<CustomerBooking> {
  const booking = await findOwnBooking(db, caller.userId, bookingId);
  if (!booking) throw bookingNotFound();
  return booking;
}

/**
 * PATCH /bookings/{id} action modify. Once the move is made, the live shares of the confirmation
 * it replaced end as a leaked credential's do (their recipients would otherwise see the new trip,
 * seats and credentials). A repeat of the move ends those still live, so one that Temporal did not
 * answer (503 SHARE_UNAVAILABLE, the move already made) is finished by repeating the request.
 */
export async function modifyOwnBooking(
  sharing: DocumentSharing,
  caller: ModifyingCaller,
  input: ModificationInput,
  options: ChangeOptions,
): Promise<CustomerBooking> {
  const { db } = sharing.context;
  await releaseOverdueScopesOf(db, { kind: 'BOOKING', id: input.bookingId });
  await modifyBooking(db, caller, input, options);
  const replacedShares = await confirmationSharesBeforeMove(db, caller.userId, input.bookingId);
  await endConfirmationShares(sharing, caller.userId, replacedShares);
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
  await releaseOverdueScopesOf(db, { kind: 'BOOKING', id: bookingId });
  const cancelledWith = await cancelBooking(db, caller, bookingId, options);
  return { ...(await ownBooking(db, caller, bookingId)), cancelled_with_booking_ids: cancelledWith };
}
