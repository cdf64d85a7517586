/**
 * Whose booking a booking is, on every traveller surface (SPEC: "every read and write is restricted
 * to the resolved canonical passenger_id"): the signed-in traveller's own when they own it
 * (bookings.owner_user_id), or when it was made for their canonical passenger profile
 * (bookings.passenger_id: an imported legacy booking has only that, and an agent's booking for
 * them names it too). GET /bookings, documents, receipts, shares, payments, support tickets and the
 * booking changes all answer by this one rule; its SQL form is ownBookingSql
 * (db/queries/booking-ownership.ts).
 */

/** The signed-in traveller: their user, and the canonical passenger profile it points at (if any). */
export interface BookingTraveller {
  userId: string;
  passengerId: string | null;
}

/** What of a booking decides whose it is. */
export interface BookingOwnership {
  ownerUserId: string | null;
  passengerId: string | null;
}

export function ownsBooking(traveller: BookingTraveller, booking: BookingOwnership): boolean {
  if (booking.ownerUserId !== null && booking.ownerUserId === traveller.userId) return true;
  return traveller.passengerId !== null && booking.passengerId === traveller.passengerId;
}
