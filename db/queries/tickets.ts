import { authorizesBoarding, type BoardingCredentialPayload } from '../../domain/boarding-credential.js';
import { credentialText, type TicketStatus } from '../../domain/documents.js';
import type { Database } from '../orm.js';
import type { NamedRef } from './catalogue.js';
import { STRETCH_CITIES_JOIN, STRETCH_COLUMNS, type StretchColumns } from './named-ref.js';
import { iso } from '../row-fields.js';

/**
 * A traveller's journey tickets (GET /tickets, GET /tickets/{id}): each with its booking, a trip
 * summary, the seat and the boarding state. The signed credential (payload, signature, qr_text) is
 * shown only while the ticket authorizes boarding, the same rule as the confirmation projection.
 */

/** jsonb arrives parsed; timestamptz as PostgreSQL text. */
interface TicketRow extends StretchColumns {
  id: string;
  journey_id: string;
  booking_id: string | null;
  booking_code: string | null;
  leg_sequence: number;
  traveller_name: string;
  seat_number: string;
  status: TicketStatus;
  payload: BoardingCredentialPayload | null;
  signature: string | null;
  key_id: string | null;
  boarding_authorized: boolean;
  revoked: boolean;
  issued_at: string | null;
  trip_id: string;
  trip_status: string;
  company_id: string;
  company_name_ar: string;
  company_name_en: string;
}

/** The credential a ticket shows: all of it while it authorizes boarding, nothing otherwise. */
export type ShownCredential =
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
  };
} & ShownCredential;

const TICKET_SELECT = `
  select t.id, t.journey_id, b.id as booking_id, b.booking_code, t.leg_sequence, t.traveller_name, t.seat_number,
         t.status, t.payload, t.signature, t.key_id, t.boarding_authorized, r.ticket_id is not null as revoked, t.issued_at,
         t.trip_id, tr.status as trip_status, t.company_id, c.name_ar as company_name_ar, c.name_en as company_name_en,
         ${STRETCH_COLUMNS}
  from journey_tickets t
  join journeys j on j.id = t.journey_id
  join journey_legs l on l.journey_id = t.journey_id and l.sequence = t.leg_sequence
  join trips tr on tr.id = t.trip_id
  join companies c on c.id = t.company_id
  join trip_stop_calls bc on bc.id = l.board_stop_call_id
  join trip_stop_calls ac on ac.id = l.alight_stop_call_id
  ${STRETCH_CITIES_JOIN}
  left join bookings b on b.journey_id = t.journey_id and b.trip_id = t.trip_id and b.company_id = t.company_id
  left join credential_revocations r on r.ticket_id = t.id`;

function shownCredential(row: TicketRow): ShownCredential {
  const state = {
    status: row.status,
    boardingAuthorized: row.boarding_authorized,
    revoked: row.revoked,
    signature: row.signature,
  };
  if (!authorizesBoarding(state) || row.payload === null || row.signature === null) {
    return { boarding_authorized: false, payload: null, signature: null, key_id: null, qr_text: null };
  }
  return {
    boarding_authorized: true,
    payload: row.payload,
    signature: row.signature,
    key_id: row.key_id,
    qr_text: credentialText(row.payload, row.signature),
  };
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
    ...shownCredential(row),
    issued_at: row.issued_at === null ? null : iso(row.issued_at),
    trip: {
      id: row.trip_id,
      status: row.trip_status,
      company: { id: row.company_id, name_ar: row.company_name_ar, name_en: row.company_name_en },
      origin: { ar: row.origin_ar, en: row.origin_en },
      destination: { ar: row.destination_ar, en: row.destination_en },
      departure_at: iso(row.departure_at),
      arrival_at: iso(row.arrival_at),
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
