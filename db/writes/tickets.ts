import type { PoolClient } from 'pg';
import {
  reissueRefusal,
  type ReissuableTicket,
  type ReissueRefusalCode,
} from '../../domain/boarding-credential.js';
import { Refusal } from '../../domain/refusal.js';
import { legStillBoardsSql } from '../queries/leg-boarding.js';
import type { Database } from '../orm.js';
import { revokeCredentials, signTicketsOf, type SigningOptions } from './boarding-credentials.js';

/**
 * Re-issuing a ticket's boarding credential (POST /tickets): a lost phone or a leaked screenshot
 * must stop the old QR from boarding anyone. The old row stays as history (status REISSUED, its
 * credential on the revocation list, so offline scanners refuse it too) and a new row with a new
 * id is signed for the same traveller, leg and seat, all in one transaction.
 */
export type ReissueReason = 'LOST_DEVICE' | 'CREDENTIAL_LEAKED' | 'OTHER';

export class TicketRefusal extends Refusal {
  declare readonly status: 404 | 409;
  constructor(status: 404 | 409, code: ReissueRefusalCode, message: string) {
    super(status, code, message);
  }
}

interface LockedTicket {
  id: string;
  journey_id: string;
  trip_id: string;
  owner_user_id: string;
  journey_status: string;
  status: string;
  boarding_authorized: boolean;
  /** Its credential is on the revocation list (a refund that kept the booking: BOOKING_COMPENSATED). */
  revoked: boolean;
  /** The bus has not left the leg's boarding call yet (legStillBoardsSql). */
  before_departure: boolean;
}

const toReissuableTicket = (row: LockedTicket): ReissuableTicket => ({
  ownerUserId: row.owner_user_id,
  journeyStatus: row.journey_status,
  status: row.status,
  boardingAuthorized: row.boarding_authorized,
  revoked: row.revoked,
  beforeDeparture: row.before_departure,
});

/**
 * Re-issues an own VALID ticket of a CONFIRMED journey before departure. Refuses with
 * TicketRefusal (nothing written): 404 TICKET_NOT_FOUND (not the caller's), 409
 * BOOKING_NOT_CONFIRMED, 409 TICKET_NOT_VALID (cancelled, used, already re-issued, or revoked by a
 * refund that kept the booking), 409 TRIP_ALREADY_DEPARTED. Returns the new ticket's id.
 *
 * Lock order, as every change of a booking and a trip action keep it: the ticket's trip (FOR
 * SHARE), then its journey, then the ticket (lockTicketTrip).
 */
export async function reissueTicket(
  db: Database,
  input: { ticketId: string; userId: string; reason: ReissueReason; signing: SigningOptions },
): Promise<{ ticketId: string; replacedTicketId: string }> {
  return db.transaction(async (client) => {
    const tripId = await lockTicketTrip(client, input.ticketId);
    // The journey next, as a trip cancel (of any of its legs' trips) and a modify lock it before its
    // tickets: either of them that runs meanwhile then sees the new ticket (and cancels or moves it),
    // or this sees its end.
    await client.query(
      `select j.id from journeys j join journey_tickets t on t.journey_id = j.id where t.id = $1
       for no key update of j`,
      [input.ticketId],
    );
    // The revocation is read under the journey lock a refund takes too: a refund committed first is
    // seen here (TICKET_NOT_VALID); one waiting revokes the new ticket, as it is VALID then.
    const { rows } = await client.query<LockedTicket>(
      `select t.id, t.journey_id, t.trip_id, j.owner_user_id, j.status as journey_status, t.status,
              t.boarding_authorized,
              exists (select 1 from credential_revocations r where r.ticket_id = t.id) as revoked,
              ${legStillBoardsSql({ trip: 'tr', board: 'bc' })} as before_departure
       from journey_tickets t
       join journeys j on j.id = t.journey_id
       join journey_legs l on l.journey_id = t.journey_id and l.sequence = t.leg_sequence
       join trip_stop_calls bc on bc.id = l.board_stop_call_id
       join trips tr on tr.id = t.trip_id
       where t.id = $1
       for update of t`,
      [input.ticketId],
    );
    // A ticket's trip never changes (a modify leaves the leg's tickets REISSUED and signs new ones
    // on the new trip: TICKET_NOT_VALID here). One on another trip than the one locked would be
    // judged by a status nobody holds: refused as a booking moved meanwhile is (not found).
    const found = rows[0]?.trip_id === tripId ? rows[0] : undefined;
    const refusal = reissueRefusal(found && toReissuableTicket(found), input.userId);
    if (refusal) throw new TicketRefusal(refusal.status, refusal.code, refusal.message);
    // reissueRefusal refuses a ticket that does not exist, so there is one here.
    const ticket = found!;
    await client.query(
      `update journey_tickets set status = 'REISSUED', boarding_authorized = false where id = $1`,
      [ticket.id],
    );
    await revokeCredentials(client, [ticket.id], `REISSUED:${input.reason}`);
    // The new ticket carries the traveller's attendance: a no-show stays one until the operations room restores it.
    const { rows: created } = await client.query<{ id: string }>(
      `insert into journey_tickets (journey_id, leg_sequence, traveller_index, traveller_name, traveller_phone, trip_id,
                                    company_id, seat_id, seat_number, attendance, attendance_at, attendance_by,
                                    attendance_source, attendance_device)
       select journey_id, leg_sequence, traveller_index, traveller_name, traveller_phone, trip_id, company_id, seat_id,
              seat_number, attendance, attendance_at, attendance_by, attendance_source, attendance_device
       from journey_tickets where id = $1
       returning id`,
      [ticket.id],
    );
    // The journey is CONFIRMED, so the new row is its only PENDING_CONFIRMATION ticket.
    await signTicketsOf(client, { kind: 'JOURNEY', id: ticket.journey_id }, input.signing);
    return { ticketId: created[0]!.id, replacedTicketId: ticket.id };
  });
}

/**
 * The ticket's trip (read without a lock), FOR SHARE, before the journey: a trip action (DEPART,
 * ARRIVE, CANCEL, COMPLETE) takes its trip FOR NO KEY UPDATE before the journeys and tickets on it,
 * and a modify its trips before the journey. Either the action committed first and the re-issue
 * judges the status it left (TRIP_ALREADY_DEPARTED), or the action waits until the new ticket is
 * committed and finds it. Read unlocked, a DEPART committing between the read and the commit left
 * a fresh credential signed for a bus that had gone (test/api/customer/ticket-reissue-depart-order.test.ts).
 * Undefined when there is no such ticket.
 */
async function lockTicketTrip(client: PoolClient, ticketId: string): Promise<string | undefined> {
  const { rows } = await client.query<{ id: string }>(
    `select tr.id from journey_tickets t join trips tr on tr.id = t.trip_id where t.id = $1 for share of tr`,
    [ticketId],
  );
  return rows[0]?.id;
}
