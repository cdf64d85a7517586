import type {
  GrantStatus,
  IssuerKind,
  SharedBookingFacts,
  ShareDocumentKind,
  SharePresentation,
} from '../../domain/document-sharing.js';
import type { Database } from '../orm.js';
import { camelFields } from '../row-fields.js';
import { ownBookingSql } from './booking-ownership.js';
import { bookingNamedBy } from './documents.js';

/**
 * What the share routes read: a booking's sharing facts, a grant, a recipient session's times.
 * Instants are selected as epoch milliseconds (epochMs), so the rows carry numbers, not text.
 */

/** SQL: a timestamp column as epoch milliseconds (the pool hands timestamps over as text; this is a number). */
export const epochMs = (column: string) => `(extract(epoch from ${column}) * 1000)::float8`;

/** The facts of a booking that decide who may share its documents. */
export interface ShareableBooking extends SharedBookingFacts {
  id: string;
  /** The booking's journey (null for a booking made before journeys). */
  journeyId: string | null;
}

interface ShareableBookingRow {
  id: string;
  journey_id: string | null;
  company_id: string;
  owner_user_id: string | null;
  passenger_id: string | null;
  /** trips.driver_id: the staff user driving the booking's trip, if one is assigned. */
  driver_id: string | null;
}

const toShareableBooking = (row: ShareableBookingRow): ShareableBooking =>
  camelFields(row, ['id', 'journey_id', 'company_id', 'owner_user_id', 'passenger_id', 'driver_id']);

/** The booking `bookingId` names (its row's id, or its journey's: bookingNamedBy), as the document routes read it. */
export async function shareableBooking(db: Database, bookingId: string): Promise<ShareableBooking | null> {
  const [row] = await db.query<ShareableBookingRow>(
    `select b.id, b.journey_id, b.company_id, b.owner_user_id, b.passenger_id, t.driver_id
       from bookings b join trips t on t.id = b.trip_id
      where ${bookingNamedBy('$1')}`,
    [bookingId],
  );
  return row ? toShareableBooking(row) : null;
}

export interface ShareGrant {
  id: string;
  bookingId: string;
  companyId: string;
  documentKind: ShareDocumentKind;
  presentation: SharePresentation;
  issuerKind: IssuerKind;
  issuerId: string;
  secretHash: string;
  status: GrantStatus;
  /** The link can still be accepted by the clock (status aside). */
  linkOpen: boolean;
  linkExpiresAt: Date;
  revokedAt: Date | null;
  bookingOwnerUserId: string | null;
  bookingPassengerId: string | null;
  company: { name_ar: string; name_en: string };
}

interface ShareGrantRow {
  id: string;
  booking_id: string;
  company_id: string;
  document_kind: ShareDocumentKind;
  presentation: SharePresentation;
  issuer_kind: IssuerKind;
  issuer_id: string;
  secret_hash: string;
  status: GrantStatus;
  link_open: boolean;
  link_expires_at: number;
  revoked_at: number | null;
  booking_owner_user_id: string | null;
  booking_passenger_id: string | null;
  company_name_ar: string;
  company_name_en: string;
}

const toShareGrant = (row: ShareGrantRow): ShareGrant => ({
  ...camelFields(row, [
    'id',
    'booking_id',
    'company_id',
    'document_kind',
    'presentation',
    'issuer_kind',
    'issuer_id',
    'secret_hash',
    'status',
    'link_open',
  ]),
  linkExpiresAt: new Date(row.link_expires_at),
  revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  bookingOwnerUserId: row.booking_owner_user_id,
  bookingPassengerId: row.booking_passenger_id,
  company: { name_ar: row.company_name_ar, name_en: row.company_name_en },
});

export async function findShareGrant(db: Database, grantId: string): Promise<ShareGrant | null> {
  const [row] = await db.query<ShareGrantRow>(
    `select g.id, g.booking_id, g.company_id, g.document_kind, g.presentation, g.issuer_kind, g.issuer_id,
            g.secret_hash, g.status, g.link_expires_at > now() as link_open,
            ${epochMs('g.link_expires_at')} as link_expires_at, ${epochMs('g.revoked_at')} as revoked_at,
            b.owner_user_id as booking_owner_user_id, b.passenger_id as booking_passenger_id, c.name_ar as company_name_ar, c.name_en as company_name_en
       from document_share_grants g
       join bookings b on b.id = g.booking_id
       join companies c on c.id = g.company_id
      where g.id = $1`,
    [grantId],
  );
  return row ? toShareGrant(row) : null;
}

export interface RecipientSessionSummary {
  expiresAt: Date;
  lastSeenAt: Date;
}

interface RecipientSessionRow {
  expires_at: number;
  last_seen_at: number;
}

export async function recipientSessionSummary(
  db: Database,
  sessionId: string,
): Promise<RecipientSessionSummary> {
  const [row] = await db.query<RecipientSessionRow>(
    `select ${epochMs('expires_at')} as expires_at, ${epochMs('last_seen_at')} as last_seen_at
       from share_recipient_sessions where id = $1`,
    [sessionId],
  );
  if (!row) throw new Error(`recipient session ${sessionId} vanished`);
  return { expiresAt: new Date(row.expires_at), lastSeenAt: new Date(row.last_seen_at) };
}

/** A live (CREATED or ACCEPTED) share of a booking confirmation, as SQL over grants `g`. */
const LIVE_CONFIRMATION_GRANTS = `g.document_kind = 'BOOKING_CONFIRMATION' and g.status in ('CREATED', 'ACCEPTED')`;

/**
 * The shares still live of the confirmation that shows `ticketId`'s credential, when the ticket is
 * `userId`'s own: the booking of its journey leg. The leg, not the ticket, names the booking's
 * trip: a modification moves the leg (and booking), and the tickets it replaced keep the old trip.
 */
export async function liveConfirmationShares(
  db: Database,
  userId: string,
  ticketId: string,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `select g.id from journey_tickets k
       join journeys j on j.id = k.journey_id and j.owner_user_id = $2
       join journey_legs l on l.journey_id = k.journey_id and l.sequence = k.leg_sequence
       join bookings b on b.journey_id = l.journey_id and b.trip_id = l.trip_id
       join document_share_grants g on g.booking_id = b.id
      where k.id = $1 and ${LIVE_CONFIRMATION_GRANTS}
      order by g.id`,
    [ticketId, userId],
  );
  return rows.map((row) => row.id);
}

/**
 * The shares still live of `userId`'s own booking's confirmation that were made before the booking
 * was last moved: the shares of the confirmation a modification replaced. A move revokes the leg's
 * credentials with the reason `REISSUED` (db/writes/booking-changes/modify.ts reissueTickets), a
 * traveller's re-issue with `REISSUED:<reason>`, which leaves shares as they are (except
 * CREDENTIAL_LEAKED, api/use-cases/tickets.ts); a booking never moved has no such shares.
 */
export async function confirmationSharesBeforeMove(
  db: Database,
  userId: string,
  bookingId: string,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `select g.id from bookings b
       join journey_legs l on l.journey_id = b.journey_id and l.trip_id = b.trip_id
       join document_share_grants g on g.booking_id = b.id
      where b.id = $1 and ${ownBookingSql('$2')} and ${LIVE_CONFIRMATION_GRANTS}
        and g.created_at < (select max(r.revoked_at) from journey_tickets k
                              join credential_revocations r on r.ticket_id = k.id and r.reason = 'REISSUED'
                             where k.journey_id = l.journey_id and k.leg_sequence = l.sequence)
      order by g.id`,
    [bookingId, userId],
  );
  return rows.map((row) => row.id);
}
