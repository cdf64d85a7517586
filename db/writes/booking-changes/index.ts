/**
 * A traveller's own changes to a booking, one module per use case: PATCH /bookings/{id} modify
 * (modify.ts) and POST /bookings/{id}/cancel (cancel.ts), both on the booking locked as
 * own-booking.ts locks it.
 */
export { cancelBooking } from './cancel.js';
export { modifyBooking, type ChangeOptions, type ModificationInput, type ModifyingCaller } from './modify.js';
export type { BookingCaller } from './own-booking.js';
