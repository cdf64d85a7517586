import { Refusal } from '../../domain/refusal.js';
import type { TicketPriority } from '../../domain/support-tickets.js';
import type { TransactionClient } from '../orm.js';
import { OWN_BOOKING } from '../queries/customer-bookings.js';

/**
 * What a support ticket is about, resolved in the transaction that opens it (db/writes/support-
 * tickets.ts): the booking, its company and its traveller, each checked and, for a traveller, locked
 * against a phone merge running at the same moment.
 */

export type TicketAuthor = { kind: 'TRAVELLER'; userId: string } | { kind: 'ADMIN'; adminId: string };

export interface NewTicket {
  subject: string;
  message: string;
  priority: TicketPriority;
  bookingId?: string | undefined;
  companyId?: string | undefined;
  travellerId?: string | undefined;
}

export interface TicketSubject {
  bookingId: string | null;
  companyId: string | null;
  travellerUserId: string | null;
}

interface BookingFacts {
  company_id: string;
  owner_user_id: string | null;
}

export const notFound = (code: string, message: string) => new Refusal(404, code, message);

/**
 * The booking's company and traveller: its owner, or for an imported booking (no owner) the account
 * of the passenger profile it was made for (domain/booking-ownership.ts: the traveller whose booking
 * it is), the oldest active one should a profile have several.
 */
const BOOKING_FACTS = `select b.company_id,
  coalesce(b.owner_user_id, (select u.id from users u where u.passenger_id = b.passenger_id and u.status = 'ACTIVE'
                             order by u.created_at, u.id limit 1)) as owner_user_id
  from bookings b`;

/**
 * The booking a traveller's ticket is about: one of their own (their row is locked already, see
 * openTicket).
 */
async function ownBooking(
  sql: TransactionClient,
  userId: string,
  bookingId: string,
): Promise<BookingFacts | undefined> {
  const { rows } = await sql.query<BookingFacts>(`${BOOKING_FACTS} where b.id = $2 and ${OWN_BOOKING}`, [
    userId,
    bookingId,
  ]);
  return rows[0];
}

/**
 * The booking support names, its owner locked as a traveller support names is (ACTIVE_TRAVELLER).
 * An owner a phone merge disabled while this waited on its row has had the booking moved to the
 * surviving account: the booking is read again (a later statement sees the merge) and that owner
 * locked, so the ticket reaches the account that owns the booking now. An owner still disabled
 * after that is none (404 TRAVELLER_NOT_FOUND).
 */
async function supportBooking(
  sql: TransactionClient,
  bookingId: string,
  disabledOwner: string | null = null,
): Promise<BookingFacts | undefined> {
  const { rows } = await sql.query<BookingFacts>(`${BOOKING_FACTS} where b.id = $1`, [bookingId]);
  const booking = rows[0];
  const owner = booking?.owner_user_id;
  if (!booking || !owner || (await isActiveTraveller(sql, owner))) return booking;
  if (owner === disabledOwner) throw notFound('TRAVELLER_NOT_FOUND', 'No traveller has this id');
  return supportBooking(sql, bookingId, owner);
}

/**
 * What the ticket is about. A traveller's ticket is about one of their own bookings (another's or
 * none is 404 BOOKING_NOT_FOUND) and its company. Support may name a booking (its company and
 * traveller follow, the owner as it is once locked; a different companyId or travellerId is 400
 * TICKET_SUBJECT_MISMATCH), a company, a traveller, or nothing.
 */
export async function subjectOf(
  sql: TransactionClient,
  author: TicketAuthor,
  input: NewTicket,
): Promise<TicketSubject> {
  if (input.bookingId) {
    const booking = await (author.kind === 'TRAVELLER'
      ? ownBooking(sql, author.userId, input.bookingId)
      : supportBooking(sql, input.bookingId));
    if (!booking) throw notFound('BOOKING_NOT_FOUND', 'No such booking');
    const travellerUserId = author.kind === 'TRAVELLER' ? author.userId : booking.owner_user_id;
    if (
      (input.companyId && input.companyId !== booking.company_id) ||
      (input.travellerId && input.travellerId !== travellerUserId)
    ) {
      throw new Refusal(
        400,
        'TICKET_SUBJECT_MISMATCH',
        'The booking belongs to another company or traveller',
      );
    }
    return { bookingId: input.bookingId, companyId: booking.company_id, travellerUserId };
  }
  if (author.kind === 'TRAVELLER') throw notFound('BOOKING_NOT_FOUND', 'No such booking');
  await requireRow(sql, COMPANY_EXISTS, input.companyId, 'COMPANY_NOT_FOUND', 'No company has this id');
  if (input.travellerId && !(await isActiveTraveller(sql, input.travellerId))) {
    throw notFound('TRAVELLER_NOT_FOUND', 'No traveller has this id');
  }
  return { bookingId: null, companyId: input.companyId ?? null, travellerUserId: input.travellerId ?? null };
}

const COMPANY_EXISTS = 'select 1 from companies where id = $1';
/**
 * A traveller support may open a ticket for (named by id, or the owner of the booking named): an
 * account someone can sign in to. One that a phone merge disabled is not one (its tickets moved to
 * the survivor, and a new one would stay unseen); the row is locked so a merge running now either
 * ends first or waits for the ticket and moves it.
 */
const ACTIVE_TRAVELLER = `select 1 from users where id = $1 and status = 'ACTIVE' for share`;

/** Whether `userId` is a traveller support may open a ticket for, its row locked (ACTIVE_TRAVELLER). */
async function isActiveTraveller(sql: TransactionClient, userId: string): Promise<boolean> {
  const { rows } = await sql.query(ACTIVE_TRAVELLER, [userId]);
  return rows.length > 0;
}

async function requireRow(
  sql: TransactionClient,
  exists: string,
  id: string | undefined,
  code: string,
  message: string,
) {
  if (!id) return;
  const { rows } = await sql.query(exists, [id]);
  if (!rows.length) throw notFound(code, message);
}
