/**
 * How a cancelled booking itself ended, as SQL over a bookings row `b` and its journey `j`: the one
 * rule behind a leg's cancellation confirmation (documents.ts), the failure_reason of the traveller's
 * booking reads (customer-bookings.ts) and the cancellations by reason of GET /analytics/advanced
 * (analytics-advanced.ts), so the three never tell a booking's end apart.
 */

/**
 * The reason a refund that KEEPS its booking (a compensation: the traveller travelled, missed the
 * bus, or the bus left) revokes the booking's VALID tickets with (db/writes/payment-decisions.ts).
 * It ends nothing: the booking stays live, and only a trip CANCEL of a bus that has not left can end
 * it later, whose own revocation of that ticket is never written (a ticket is listed once).
 */
export const COMPENSATION_REVOCATION = 'BOOKING_COMPENSATED';

/**
 * A lateral read of the first revocation of `b`'s tickets on its trip (re-issued ones aside),
 * written in the transaction that ended it, so at that transaction's time, the time its journey
 * closed when the journey ended with it. A leg of a connection ends alone (a full refund,
 * BOOKING_REFUNDED) while its journey lives on; when the journey ends later (another leg's trip
 * cancelled) its closing time and failure reason are not this booking's. A compensation's revocation
 * (COMPENSATION_REVOCATION) comes last: written while the booking lived on, it is not its end; a
 * booking it is all there is of was ended by the trip cancel that alone ends a kept booking, so it
 * reads TRIP_CANCELLED at that cancel's time (its journey's closing, or the booking row's last
 * change when a leg already travelled keeps the journey standing). A booking whose tickets were
 * never signed (a request rejected or timed out) has no revocation: it ended with its journey.
 * Join it as `left join lateral (${BOOKING_ENDING}) ended on true`, after `j`.
 */
export const BOOKING_ENDING = `select case when cr.reason = '${COMPENSATION_REVOCATION}' then 'TRIP_CANCELLED' else cr.reason end as reason,
              case when cr.reason <> '${COMPENSATION_REVOCATION}' then cr.revoked_at
                   when j.status = 'CANCELLED' then j.closed_at else b.updated_at end as revoked_at
       from journey_tickets k join credential_revocations cr on cr.ticket_id = k.id
       where b.status = 'CANCELLED' and k.journey_id = b.journey_id and k.trip_id = b.trip_id and k.status <> 'REISSUED'
       order by cr.reason = '${COMPENSATION_REVOCATION}', cr.revoked_at limit 1`;

/**
 * Why the booking ended, over `ended` (BOOKING_ENDING) and `j`: only a trip cancel (TRIP_CANCELLED)
 * ends a booking for a reason of its own; a booking ended with its journey has the journey's
 * failure_reason (COMPANY_REJECTED, DECISION_DEADLINE_PASSED, TRIP_CANCELLED, ...). Null when its
 * traveller's cancel or a refund ended it (their journey has no reason either), and for a booking
 * without a journey. Never the trip's status now: a trip cancelled later did not end a booking
 * already cancelled.
 */
export const BOOKING_ENDING_REASON = `case when ended.reason is null then j.failure_reason
                 when ended.reason = 'TRIP_CANCELLED' then ended.reason end`;
