import { z } from 'zod';
import { Uuid } from '../http/schemas.js';
import { BookingResponse } from './booking-reads.openapi.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/** OpenAPI of a traveller's booking changes (booking-changes.ts): the modify body and both routes' rules. */

const SeatLabel = z.string().trim().min(1).max(16);

export const ModifyBody = z
  .object({
    action: z.literal('modify'),
    newTripId: Uuid.meta({ description: 'the trip to move to' }),
    newSeatNumbers: z
      .array(SeatLabel)
      .min(1)
      .max(20)
      .refine((labels) => new Set(labels).size === labels.length, 'a seat is listed twice')
      .meta({
        uniqueItems: true,
        description:
          "seat labels of the new trip's bus layout, as many as the booking has; the i-th traveller gets the i-th seat",
      }),
  })
  .strict()
  .meta({ id: 'BookingModifyRequest' });

/** The answer of a cancel: the booking of the path, and the bookings that ended with it. */
const CancelResponse = successWith(
  BookingResponse.shape.data
    .extend({
      cancelled_with_booking_ids: z.array(IdText).meta({
        description:
          'the other bookings of its round trip, connection or order this request cancelled with it (empty for a ' +
          'booking alone, and when the booking was already cancelled)',
      }),
    })
    .meta({ id: 'CustomerBookingCancelled' }),
);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Bookings'], {
  modifyBooking: {
    summary: 'Move a booking to another trip or other seats',
    description:
      'Moves an unpaid booking to another trip (or other seats of the same trip) in one transaction: the old seats are ' +
      'released and the new ones taken CONFIRMED, the price is recomputed from the new seats, and the QR codes rotate: ' +
      'the old tickets become REISSUED and their credentials are published on the revocation list, new tickets are signed for the new trip ' +
      'and seats. Cookie sessions send X-CSRF-Token. Allowed only when (SPEC "Booking modification") seat count, company ' +
      "and both route cities stay the same, the booking is unpaid and not checked in, the booking's departure is more than " +
      "6 hours away (strictly) and so is the new trip's. A departure is the one the company announced: the boarding " +
      "stop's planned departure plus the trip's delay (dispatch MARK_DELAYED). " +
      "The new trip must also still be on sale: its boarding stop's planned departure still ahead, delayed or not " +
      '(else 409 TRIP_NOT_BOOKABLE, as a seat lock is refused). ' +
      "The booking keeps its boarding and alighting stops where the new trip calls at them (else the new trip's first " +
      "stop in that city, or its last when the booking rode to its trip's end and the new trip ends in that city). " +
      'Once the move is made, the live shares (CREATED or ACCEPTED) of the booking confirmation made before it are ' +
      'revoked, as a CREDENTIAL_LEAKED re-issue revokes them: their recipients would otherwise see the new trip, seats ' +
      'and credentials (410 SHARE_REVOKED); the traveller may share again. When document sharing cannot be reached ' +
      'the answer is 503 SHARE_UNAVAILABLE with the move already made; repeating the request ends them. Repeating a ' +
      'modification already made changes nothing else (shares made after it stay) and answers 200 with the booking even ' +
      'when its state would now refuse a move (the new departure within 6 hours, the booking paid or checked in since): ' +
      'a retry whose answer was lost learns the move was made. A repeat is the same trip and seats in the same order as ' +
      'the booking now has, after a move to them, the booking not cancelled or expired since; naming the trip and seats ' +
      'of a booking never moved is judged as any request. ' +
      'A voucher used for the booking stays spent and its terms as issued are checked again on the new trip as POST ' +
      '/bookings checks them (company and routes, day of departure, minimum subtotal); its discount is then computed again ' +
      'from those terms on the new subtotal (a percent as a percent, capped by its maximum; never more than the subtotal). ' +
      'A pending cash payment the traveller announced becomes the new total; when the move makes the booking cost ' +
      'nothing it is cancelled (a booking of total 0 has no cash to collect). ' +
      "A company that confirms bookings of the caller's channel (cookie session: CUSTOMER_WEB, bearer token: " +
      'CUSTOMER_MOBILE) itself refuses the move as it refuses a new seat lock: moved seats would be confirmed without its ' +
      'decision. ' +
      'Refusals, nothing changed: 400 VALIDATION_FAILED (bad body); 404 BOOKING_NOT_FOUND (not yours), TRIP_NOT_FOUND; ' +
      '409 DEPARTURE_TOO_CLOSE (details.trip CURRENT or NEW), SEAT_OCCUPIED (details.seat_numbers: labels taken), ' +
      'BOOKING_ALREADY_PAID, BOOKING_AWAITING_COMPANY (the company has not decided yet; once its decision deadline passed ' +
      'the booking is cancelled first, BOOKING_NOT_MODIFIABLE), BOOKING_NOT_MODIFIABLE (cancelled, ' +
      'checked in, completed, ...), TRIP_NOT_BOOKABLE, JOURNEY_AGGREGATE_OPERATION_REQUIRED (one booking of a round trip, a ' +
      'connection or an order of several: change the journey as a whole), JOURNEY_FLOW_REQUIRED (details.companyId: the ' +
      "company confirms the caller's channel manually; book the new trip through /journeys), LOYALTY_ROUTE_NOT_ELIGIBLE, " +
      'LOYALTY_DAY_NOT_ELIGIBLE, LOYALTY_MINIMUM_NOT_MET (details.minSubtotal) (the voucher does not apply to the new trip ' +
      'or subtotal); 422 (the request asks for a change the rules ' +
      'never allow) MODIFICATION_CHANGES_SEAT_COUNT, MODIFICATION_CHANGES_COMPANY, MODIFICATION_CHANGES_ROUTE, ' +
      'SEAT_NOT_FOUND (details.seat_numbers: labels the new bus does not have).',
    responses: answers(200, 'The booking as modified', BookingResponse, [400, 401, 403, 404, 409, 422, 503]),
  },
  cancelBooking: {
    summary: 'Cancel a booking (with the rest of its round trip, connection or order)',
    description:
      "Cancels the traveller's own confirmed, unpaid booking while its departure is more than BOOKING_CANCEL_CUTOFF_MINUTES " +
      "(default 120; the company's cut-off when it set one) away, the departure being the one the company announced: the " +
      "boarding stop's planned departure plus the trip's delay (dispatch MARK_DELAYED). Booking, journey and tickets " +
      'CANCELLED, their signed credentials published on the revocation ' +
      'list, seats released, a pending cash payment cancelled, in one transaction. A booking of a round trip, a connection or ' +
      'an order of several journeys cancels the whole of it (every booking of its order, else of its journey) in the same ' +
      'transaction, all or nothing: each booking must pass these rules (its own company cut-off before its own departure), ' +
      'the first refusal is answered with details.booking_id naming the other booking that breaks it, and nothing changes; ' +
      'bookings of it already cancelled or expired, or settled by travel (checked in, completed, no-show, or on a bus ' +
      'that has left) are left as they are. The answer is the booking of the path, plus ' +
      'cancelled_with_booking_ids. A voucher used for the booking stays spent (it is not given back). ' +
      'Cancelling a cancelled booking answers 200 with the same state and changes nothing. Cookie sessions send ' +
      'X-CSRF-Token. Refusals, nothing changed: 404 BOOKING_NOT_FOUND; 409 BOOKING_ALREADY_PAID (a paid booking is ' +
      'refunded by the company, in full only; a refund before travel cancels the booking as this cancel does), ' +
      'CANCELLATION_TOO_LATE (details.cutoff_minutes), BOOKING_NOT_CANCELLABLE (checked in, completed, no-show, expired), ' +
      'BOOKING_AWAITING_COMPANY (the company has not decided yet; once its decision deadline passed the booking is ' +
      'cancelled first, DECISION_DEADLINE_PASSED, and the cancel answers 200 as for a cancelled booking); each with ' +
      'details.booking_id when another booking of ' +
      'the round trip, connection or order breaks the rule. JOURNEY_AGGREGATE_OPERATION_REQUIRED is never answered here ' +
      "(it is the modification's).",
    responses: answers(200, 'The booking, CANCELLED', CancelResponse, [400, 401, 403, 404, 409]),
  },
});
