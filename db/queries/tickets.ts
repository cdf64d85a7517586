import type { BoardingCredentialPayload } from '../../domain/boarding-credential.js';
import { credentialText, type TicketStatus } from '../../domain/documents.js';
import type { Database } from '../orm.js';
import type { NamedRef } from './catalogue.js';
import { expectedDepartureSql } from './leg-boarding.js';
import { STRETCH_CITIES_JOIN, STRETCH_COLUMNS, type StretchColumns } from './named-ref.js';
import {
  credentialStateJoins,
  credentialStateSql,
  shownCredential,
  type CredentialState,
} from './shown-credential.js';
import { iso } from '../row-fields.js';

/**
 * A traveller's journey tickets (GET /tickets, GET /tickets/{id}): each with its booking, a trip
 * summary, the seat and the boarding state. The signed credential (payload, signature, qr_text) is
 * shown only while the ticket authorizes boarding and its leg still boards (shownCredential), the
 * rule of the booking reads and the confirmation projection too. A ticket describes its own trip:
 * the stop calls its credential was signed for (a REISSUED ticket's old trip after a modification,
 * whose leg now points at the new trip), and the booking of its journey's leg. Beside the planned
 * departure from the ticket's boarding stop it shows the delay the company announced and the
 * departure it announced from that stop (expectedDepartureSql), as the booking reads do.
 */

/** jsonb arrives parsed; timestamptz as PostgreSQL text. */
interface TicketRow extends StretchColumns, CredentialState {
  id: string;
  journey_id: string;
  booking_id: string | null;
  booking_code: string | null;
  leg_sequence: number;
  traveller_name: string;
  seat_number: string;
  status: TicketStatus;
  issued_at: string | null;
  trip_id: string;
  trip_status: string;
  delay_minutes: number;
  expected_departure_at: string;
  company_id: string;
  company_name_ar: string;
  company_name_en: string;
}

/** The credential a ticket shows (shownCredential) with its QR text. */
export type ShownTicketCredential =
  | { boarding_authorized: false; payload: null; signature: null; key_id: null; qr_text: null }
  | {
      boarding_authorized: true;
      payload: BoardingCredentialPayload;
      signature: string;
      key_id: string | null;
      qr_text: string;
    };

export type OwnTicket = {
  id: string;
  booking: { id: string; code: string } | null;
  journey_id: string;
  leg_sequence: number;
  traveller_name: string;
  seat_number: string;
  status: TicketStatus;
  issued_at: string | null;
  trip: {
    id: string;
    status: string;
    company: NamedRef;
    origin: { ar: string; en: string };
    destination: { ar: string; en: string };
    departure_at: string;
    arrival_at: string;
    /** The delay the company announced (MARK_DELAYED), 0 when none. */
    delay_minutes: number;
    /** The departure from the ticket's boarding stop: its plan plus how late the trip runs (expectedDepartureSql). */
    expected_departure_at: string;
  };
} & ShownTicketCredential;

/**
 * The ticket's stop calls are the ones in its signed payload (the leg's while it has none): the leg
 * row follows a modification to the new trip, the superseded ticket stays on its own.
 */
const TICKET_SELECT = `
  select t.id, t.journey_id, b.id as booking_id, b.booking_code, t.leg_sequence, t.traveller_name, t.seat_number,
         t.status, t.payload, t.signature, t.key_id, t.boarding_authorized, t.issued_at,
         ${credentialStateSql.revoked} as revoked, ${credentialStateSql.legBoards} as leg_boards,
         t.trip_id, tr.status as trip_status, tr.delay_minutes,
         ${expectedDepartureSql('tr', 'bc.departure_at')} as expected_departure_at, t.company_id, c.name_ar as company_name_ar, c.name_en as company_name_en,
         ${STRETCH_COLUMNS}
  from journey_tickets t
  join journeys j on j.id = t.journey_id
  join journey_legs l on l.journey_id = t.journey_id and l.sequence = t.leg_sequence
  join trips tr on tr.id = t.trip_id
  join companies c on c.id = t.company_id
  join trip_stop_calls bc on bc.id = coalesce((t.payload->>'boardStopCallId')::uuid, l.board_stop_call_id)
  join trip_stop_calls ac on ac.id = coalesce((t.payload->>'alightStopCallId')::uuid, l.alight_stop_call_id)
  ${STRETCH_CITIES_JOIN}
  left join bookings b on b.journey_id = t.journey_id and b.trip_id = l.trip_id and b.company_id = l.company_id
  ${credentialStateJoins('t')}`;

function shownTicketCredential(row: TicketRow): ShownTicketCredential {
  const shown = shownCredential(row);
  return shown.boarding_authorized
    ? { ...shown, qr_text: credentialText(shown.payload, shown.signature) }
    : { ...shown, qr_text: null };
}

function toOwnTicket(row: TicketRow): OwnTicket {
  return {
    id: row.id,
    booking: row.booking_id && row.booking_code ? { id: row.booking_id, code: row.booking_code } : null,
    journey_id: row.journey_id,
    leg_sequence: row.leg_sequence,
    traveller_name: row.traveller_name,
    seat_number: row.seat_number,
    status: row.status,
    ...shownTicketCredential(row),
    issued_at: row.issued_at === null ? null : iso(row.issued_at),
    trip: {
      id: row.trip_id,
      status: row.trip_status,
      company: { id: row.company_id, name_ar: row.company_name_ar, name_en: row.company_name_en },
      origin: { ar: row.origin_ar, en: row.origin_en },
      destination: { ar: row.destination_ar, en: row.destination_en },
      departure_at: iso(row.departure_at),
      arrival_at: iso(row.arrival_at),
      delay_minutes: row.delay_minutes,
      expected_departure_at: iso(row.expected_departure_at),
    },
  };
}

/** The owner's current tickets (re-issued ones are superseded), latest departure first. */
export async function listOwnTickets(
  db: Database,
  userId: string,
  page: { limit: number; offset: number },
): Promise<{ tickets: OwnTicket[]; total: number }> {
  const condition = `j.owner_user_id = $1 and t.status <> 'REISSUED'`;
  const [tickets, [count]] = await Promise.all([
    db.query<TicketRow>(
      `${TICKET_SELECT} where ${condition}
       order by bc.departure_at desc, t.journey_id, t.leg_sequence, t.traveller_index, t.id
       limit $2 offset $3`,
      [userId, page.limit, page.offset],
    ),
    db.query<{ total: string }>(
      `select count(*) as total from journey_tickets t join journeys j on j.id = t.journey_id where ${condition}`,
      [userId],
    ),
  ]);
  return { tickets: tickets.map(toOwnTicket), total: Number(count!.total) };
}

/** One ticket of the owner in any state (a re-issued one shows REISSUED); undefined for anyone else. */
export async function findOwnTicket(
  db: Database,
  userId: string,
  ticketId: string,
): Promise<OwnTicket | undefined> {
  const [row] = await db.query<TicketRow>(`${TICKET_SELECT} where t.id = $1 and j.owner_user_id = $2`, [
    ticketId,
    userId,
  ]);
  return row && toOwnTicket(row);
}
