import { randomUUID } from 'node:crypto';
import { raw } from '@mikro-orm/postgresql';
import { effectivePermissions, type AdminRole } from '../../domain/permissions.js';
import { Refusal } from '../../domain/refusal.js';
import {
  ticketStatusAfter,
  type TicketEvent,
  type TicketPriority,
  type TicketStatus,
} from '../../domain/support-tickets.js';
import { SupportTicket, SupportTicketMessage } from '../entities/admin-console.js';
import type { Database, TransactionClient } from '../orm.js';
import { OWN_BOOKING } from '../queries/customer-bookings.js';
import { lockActingAdmin, type AdminActor } from './acting-admin.js';
import { recordAct, type AuditActor } from './audit.js';
import { lockActiveTraveller } from './inventory-caps.js';

/**
 * Support tickets: opened by a traveller about a booking or by support on someone's behalf,
 * answered, assigned and closed by support (domain/support-tickets.ts holds the states). Each
 * change is one transaction through the transaction's EntityManager; support's changes check the
 * acting administrator again first (db/writes/acting-admin.ts) and write their audit row
 * (tickets.create, tickets.reply, tickets.assign, tickets.close) beside it.
 */

/** Support's audit row about one ticket. */
function auditTicket(
  sql: TransactionClient,
  audit: AuditActor,
  action: 'tickets.create' | 'tickets.reply' | 'tickets.assign' | 'tickets.close',
  ticketId: string,
  details: Record<string, unknown>,
): Promise<void> {
  return recordAct(sql, audit, action, { kind: 'support_ticket', id: ticketId }, details);
}

export type TicketAuthor = { kind: 'TRAVELLER'; userId: string } | { kind: 'ADMIN'; adminId: string };

export interface NewTicket {
  subject: string;
  message: string;
  priority: TicketPriority;
  bookingId?: string | undefined;
  companyId?: string | undefined;
  travellerId?: string | undefined;
}

interface TicketSubject {
  bookingId: string | null;
  companyId: string | null;
  travellerUserId: string | null;
}

interface BookingFacts {
  company_id: string;
  owner_user_id: string | null;
}

const notFound = (code: string, message: string) => new Refusal(404, code, message);

/**
 * What the ticket is about. A traveller's ticket is about one of their own bookings (another's or
 * none is 404 BOOKING_NOT_FOUND) and its company. Support may name a booking (its company and
 * traveller follow; a different companyId or travellerId is 400 TICKET_SUBJECT_MISMATCH), a
 * company, a traveller, or nothing.
 */
async function subjectOf(
  sql: TransactionClient,
  author: TicketAuthor,
  input: NewTicket,
): Promise<TicketSubject> {
  if (input.bookingId) {
    const select = `select b.company_id, b.owner_user_id from bookings b where b.id = $2`;
    const { rows } = await (author.kind === 'TRAVELLER'
      ? sql.query<BookingFacts>(`${select} and ${OWN_BOOKING}`, [author.userId, input.bookingId])
      : sql.query<BookingFacts>(select.replace('$2', '$1'), [input.bookingId]));
    const booking = rows[0];
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
  await requireRow(
    sql,
    ACTIVE_TRAVELLER,
    input.travellerId,
    'TRAVELLER_NOT_FOUND',
    'No traveller has this id',
  );
  return { bookingId: null, companyId: input.companyId ?? null, travellerUserId: input.travellerId ?? null };
}

const COMPANY_EXISTS = 'select 1 from companies where id = $1';
/**
 * A traveller support may open a ticket for: an account someone can sign in to. One that a phone
 * merge disabled is not one (its tickets moved to the survivor, and a new one would stay unseen);
 * the row is locked so a merge running now either ends first or waits for the ticket and moves it.
 */
const ACTIVE_TRAVELLER = `select 1 from users where id = $1 and status = 'ACTIVE' for share`;

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

const authorId = (author: TicketAuthor) => (author.kind === 'TRAVELLER' ? author.userId : author.adminId);

/** Opens a ticket with its first message; returns its id. `audit` for support's tickets. */
export async function openTicket(
  db: Database,
  author: TicketAuthor,
  input: NewTicket,
  audit: AdminActor | null,
): Promise<string> {
  return db.transaction(async (sql) => {
    if (audit) await lockActingAdmin(sql, audit);
    // A traveller's row first: a session of an account that complete-phone merged away while this
    // waited is refused (401), so no ticket lands on a disabled user the survivor cannot see.
    if (author.kind === 'TRAVELLER') await lockActiveTraveller(sql, author.userId);
    const subject = await subjectOf(sql, author, input);
    const ticket = sql.em.create(SupportTicket, {
      id: randomUUID(),
      subject: input.subject,
      priority: input.priority,
      openedByKind: author.kind,
      openedBy: authorId(author),
      ...subject,
    });
    // The message's ticket_id is a plain column to the ORM: the ticket is inserted first.
    await sql.em.flush();
    sql.em.create(SupportTicketMessage, {
      ticketId: ticket.id,
      authorKind: author.kind,
      authorId: authorId(author),
      body: input.message,
    });
    await sql.em.flush();
    if (audit) {
      await auditTicket(sql, audit, 'tickets.create', ticket.id, {
        subject: input.subject,
        priority: input.priority,
        ...subject,
      });
    }
    return ticket.id;
  });
}

interface LockedTicket {
  id: string;
  status: TicketStatus;
  assignee_admin_id: string | null;
}

/**
 * The ticket locked for `event` and the status the event moves it to. A traveller only finds their
 * own ticket (404 TICKET_NOT_FOUND otherwise); a closed ticket takes no event (409 TICKET_CLOSED).
 */
async function lockTicket(
  sql: TransactionClient,
  ticketId: string,
  event: TicketEvent,
  travellerUserId?: string,
): Promise<LockedTicket & { next: TicketStatus }> {
  const { rows } = await sql.query<LockedTicket>(
    `select id, status, assignee_admin_id from support_tickets
     where id = $1 and ($2::uuid is null or traveller_user_id = $2) for update`,
    [ticketId, travellerUserId ?? null],
  );
  if (!rows[0]) throw notFound('TICKET_NOT_FOUND', 'No such ticket');
  return { ...rows[0], next: ticketStatusAfter(rows[0].status, event) };
}

/** What a change of a ticket sets: always its new status. */
interface TicketChange {
  status: TicketStatus;
  assigneeAdminId?: string | null;
  resolution?: string;
  closedAt?: Date;
}

/**
 * The time of a change as it is written (clock_timestamp(), after the ticket's lock), not the
 * transaction's start: a change that waited for another's lock is stamped after it, as its
 * messages are (the tables' defaults, Migration20261205030000).
 */
const writtenNow = () => raw<Date>('clock_timestamp()');

/** Saves a change of the locked ticket; updated_at moves. */
async function saveTicket(sql: TransactionClient, ticketId: string, change: TicketChange): Promise<void> {
  const ticket = await sql.em.findOneOrFail(SupportTicket, ticketId);
  sql.em.assign(ticket, { ...change, updatedAt: writtenNow() });
  await sql.em.flush();
}

/**
 * A message on a ticket: support's reply (ANSWERED, tickets.reply) or the traveller's own
 * message (OPEN again). A closed ticket takes none (409 TICKET_CLOSED).
 */
export async function addTicketMessage(
  db: Database,
  ticketId: string,
  author: TicketAuthor,
  body: string,
  audit: AdminActor | null,
): Promise<void> {
  await db.transaction(async (sql) => {
    if (audit) await lockActingAdmin(sql, audit);
    const locked =
      author.kind === 'ADMIN'
        ? await lockTicket(sql, ticketId, 'ADMIN_REPLY')
        : await lockTicket(sql, ticketId, 'TRAVELLER_MESSAGE', author.userId);
    const message = sql.em.create(SupportTicketMessage, {
      ticketId,
      authorKind: author.kind,
      authorId: authorId(author),
      body,
    });
    await saveTicket(sql, ticketId, { status: locked.next });
    if (audit) {
      await auditTicket(sql, audit, 'tickets.reply', ticketId, {
        messageId: message.id,
        statusBefore: locked.status,
        statusAfter: locked.next,
      });
    }
  });
}

/**
 * Assigns a ticket to an active administrator who holds tickets.manage, or to nobody (null);
 * else 400 TICKET_ASSIGNEE_INVALID (tickets.assign, before and after). Assigning it to whom it is
 * assigned to already writes nothing.
 */
export async function assignTicket(
  db: Database,
  ticketId: string,
  assigneeId: string | null,
  audit: AdminActor,
): Promise<void> {
  await db.transaction(async (sql) => {
    // The assignee's account with the actor's, in id order, before the ticket (acting-admin.ts).
    await lockActingAdmin(sql, audit, assigneeId ? [assigneeId] : []);
    const locked = await lockTicket(sql, ticketId, 'ASSIGN');
    if (assigneeId) await requireTicketManager(sql, assigneeId);
    // An assignment that changes nothing writes nothing (no tickets.assign, updatedAt kept), as admins and flags do.
    if (locked.assignee_admin_id === assigneeId) return;
    await saveTicket(sql, ticketId, { assigneeAdminId: assigneeId, status: locked.next });
    await auditTicket(sql, audit, 'tickets.assign', ticketId, {
      before: locked.assignee_admin_id,
      after: assigneeId,
    });
  });
}

async function requireTicketManager(sql: TransactionClient, adminId: string): Promise<void> {
  const { rows } = await sql.query<{ role: AdminRole; permissions: string[] }>(
    `select role, permissions from admins where id = $1 and status = 'ACTIVE'`,
    [adminId],
  );
  const admin = rows[0];
  if (!admin || !effectivePermissions(admin.role, admin.permissions).includes('tickets.manage')) {
    throw new Refusal(
      400,
      'TICKET_ASSIGNEE_INVALID',
      'A ticket goes to an active administrator who holds tickets.manage',
    );
  }
}

/** Whether an account may hold tickets, as an assignment requires: ACTIVE, with tickets.manage. */
export function canManageTickets(admin: { status: string; role: AdminRole; permissions: string[] }): boolean {
  return (
    admin.status === 'ACTIVE' &&
    effectivePermissions(admin.role, admin.permissions).includes('tickets.manage')
  );
}

export type UnassignReason = 'ASSIGNEE_DISABLED' | 'ASSIGNEE_LOST_PERMISSION';

/**
 * Unassigns the open (not closed) tickets of an administrator who can no longer act on them,
 * inside the caller's transaction, which holds the account's row lock: each keeps its status and
 * gets its tickets.assign row (before, after null, and why). Returns their ids.
 */
export async function unassignOpenTickets(
  sql: TransactionClient,
  adminId: string,
  reason: UnassignReason,
  audit: AuditActor,
): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    `select id from support_tickets where assignee_admin_id = $1 and status <> 'CLOSED' order by id for update`,
    [adminId],
  );
  for (const { id } of rows) {
    const ticket = await sql.em.findOneOrFail(SupportTicket, id);
    sql.em.assign(ticket, { assigneeAdminId: null, updatedAt: writtenNow() });
    await sql.em.flush();
    await auditTicket(sql, audit, 'tickets.assign', id, { before: adminId, after: null, reason });
  }
  return rows.map((row) => row.id);
}

/** Closes a ticket with its resolution (tickets.close); a closed one is 409 TICKET_CLOSED. */
export async function closeTicket(
  db: Database,
  ticketId: string,
  resolution: string,
  audit: AdminActor,
): Promise<void> {
  await db.transaction(async (sql) => {
    await lockActingAdmin(sql, audit);
    const locked = await lockTicket(sql, ticketId, 'CLOSE');
    await saveTicket(sql, ticketId, { status: locked.next, resolution, closedAt: writtenNow() });
    await auditTicket(sql, audit, 'tickets.close', ticketId, { resolution, statusBefore: locked.status });
  });
}
