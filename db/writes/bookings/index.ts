/**
 * Bookings made with seat locks, one module per use case: POST /bookings (create.ts) and POST
 * /bookings/round-trip (round-trip.ts), built from the lock a booking consumes (seat-lock.ts), the
 * booked trip it stores in one statement (line.ts) and the booking as the routes answer it
 * (records.ts).
 */
export { createBooking, type BookingInput, type CreatedBooking } from './create.js';
export { createRoundTrip, type CreatedRoundTrip, type RoundTripInput } from './round-trip.js';
export type { BookingCaller, PassengerInput } from './line.js';
export type { BookingRecord } from './records.js';
