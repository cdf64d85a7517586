import { randomUUID } from 'node:crypto';
import { raw } from '@mikro-orm/postgresql';
import { effectivePermissions, type AdminPermission, type AdminRole } from '../../domain/permissions.js';
import { Refusal } from '../../domain/refusal.js';
import { ticketStatusAfter, type TicketEvent, type TicketStatus } from '../../domain/support-tickets.js';
import { SupportTicket, SupportTicketMessage } from '../entities/admin-console.js';
import type { Database, TransactionClient } from '../orm.js';
import { lockActingAdmin, type AdminActor } from './acting-admin.js';
import { recordAct, type AuditActor } from './audit.js';
import { lockActiveTraveller } from './inventory-caps.js';
import {
  answeredData,
  claimKey,
  keyedRequest,
  storedKeyAnswer,
  storeKeyAnswer,
  type KeyedRequest,
} from './keyed-write.js';
import { notFound, subjectOf, type NewTicket, type TicketAuthor } from './support-ticket-subject.js';

/**
 * Support tickets: opened by a traveller about a booking or by support on someone's behalf,
 * answered, assigned and closed by support (domain/support-tickets.ts holds the states). Each
 * change is one transaction through the transaction's EntityManager; support's changes check the
 * acting administrator again first (db/writes/acting-admin.ts), write their audit row
 * (tickets.create, tickets.reply, tickets.assign, tickets.close) beside it, and read what they
 * answer in the same transaction (SupportAnswer).
 */

/**
 * What support's change answers, read in its transaction after it, given the ticket's id and the
 * acting administrator's permissions as they are now; it may record a read beside the change.
 */
export type SupportAnswer<T> = (
  sql: TransactionClient,
  ticketId: string,
  permissions: readonly AdminPermission[],
) => Promise<T>;

/**
 * One change of support, one transaction: the acting administrator checked again first, with
 * `others` (an assignee) locked in id order beside them, then `change` (which writes the change's
 * audit row, or nothing) on the ticket whose id it gives, then `answer`.
 */
async function supportChange<T>(
  db: Database,
  audit: AdminActor,
  change: (sql: TransactionClient) => Promise<string>,
  answer: SupportAnswer<T>,
  others: readonly string[] = [],
): Promise<T> {
  return db.transaction(async (sql) => {
    const permissions = await lockActingAdmin(sql, audit, others);
    const ticketId = await change(sql);
    return answer(sql, ticketId, permissions);
  });
}

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

export type { NewTicket, TicketAuthor } from './support-ticket-subject.js';

const authorId = (author: TicketAuthor) => (author.kind === 'TRAVELLER' ? author.userId : author.adminId);

/** What a traveller asks in a new ticket: the booking, the subject and the first message. */
type TravellerTicketRequest = Pick<NewTicket, 'bookingId' | 'subject' | 'message'>;

/**
 * The record a traveller's new ticket is kept under when the request has an Idempotency-Key
 * (db/writes/keyed-write.ts): per traveller, with the fingerprint of the booking, subject and message.
 */
export const ticketKeyOf = (userId: string, key: string, input: TravellerTicketRequest): KeyedRequest =>
  keyedRequest(`support-ticket:${userId}`, key, {
    bookingId: input.bookingId,
    subject: input.subject,
    message: input.message,
  });

/**
 * The id of the ticket a first call with this key and request opened, read before the call's own
 * checks; null when the key holds none yet. The key used for another request is 409 IDEMPOTENCY_KEY_REUSED.
 */
export async function storedTicketId(db: Database, keyed: KeyedRequest): Promise<string | null> {
  const stored = await storedKeyAnswer(db, keyed, 'support ticket');
  return stored && answeredData<{ id: string }>(stored).id;
}

/**
 * A traveller opens a ticket about one of their bookings, with its first message; returns its id.
 * With `keyed` (the request's Idempotency-Key) the key is claimed after the traveller's row: a
 * first call's ticket is its answer (nothing more is opened), else the new ticket's id is stored
 * under it; a refused ticket keeps nothing under its key.
 */
export function openTicket(
  db: Database,
  userId: string,
  input: NewTicket,
  keyed: KeyedRequest | null = null,
): Promise<string> {
  return db.transaction(async (sql) => {
    // A traveller's row first: a session of an account that complete-phone merged away while this
    // waited is refused (401), so no ticket lands on a disabled user the survivor cannot see.
    await lockActiveTraveller(sql, userId);
    const stored = keyed && (await claimKey(sql, keyed, 'support ticket'));
    if (stored) return answeredData<{ id: string }>(stored).id;
    const id = await insertTicket(sql, { kind: 'TRAVELLER', userId }, input, null);
    if (keyed) await storeKeyAnswer(sql, keyed, { status: 201, body: { success: true, data: { id } } });
    return id;
  });
}

/** Support opens a ticket on someone's behalf (tickets.create); answers what `answer` reads. */
export function openSupportTicket<T>(
  db: Database,
  input: NewTicket,
  audit: AdminActor,
  answer: SupportAnswer<T>,
): Promise<T> {
  const author: TicketAuthor = { kind: 'ADMIN', adminId: audit.actorId };
  return supportChange(db, audit, (sql) => insertTicket(sql, author, input, audit), answer);
}

/** Inserts a ticket with its first message (and support's audit row); returns its id. */
async function insertTicket(
  sql: TransactionClient,
  author: TicketAuthor,
  input: NewTicket,
  audit: AdminActor | null,
): Promise<string> {
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

/** A traveller's message on their own ticket: OPEN again. A closed ticket takes none (409 TICKET_CLOSED). */
export async function addTicketMessage(
  db: Database,
  ticketId: string,
  userId: string,
  body: string,
): Promise<void> {
  await db.transaction((sql) => insertMessage(sql, ticketId, { kind: 'TRAVELLER', userId }, body, null));
}

/** Support's reply (ANSWERED, tickets.reply); a closed ticket takes none (409 TICKET_CLOSED). */
export function addSupportReply<T>(
  db: Database,
  ticketId: string,
  body: string,
  audit: AdminActor,
  answer: SupportAnswer<T>,
): Promise<T> {
  const author: TicketAuthor = { kind: 'ADMIN', adminId: audit.actorId };
  return supportChange(db, audit, (sql) => insertMessage(sql, ticketId, author, body, audit), answer);
}

/** A message on a ticket, moved to the status it brings (support's with its audit row); the ticket's id. */
async function insertMessage(
  sql: TransactionClient,
  ticketId: string,
  author: TicketAuthor,
  body: string,
  audit: AdminActor | null,
): Promise<string> {
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
  return ticketId;
}

/**
 * Assigns a ticket to an active administrator who holds tickets.manage, or to nobody (null);
 * else 400 TICKET_ASSIGNEE_INVALID (tickets.assign, before and after). Assigning it to whom it is
 * assigned to already changes nothing and records no tickets.assign (`answer` still runs).
 */
export function assignTicket<T>(
  db: Database,
  ticketId: string,
  assigneeId: string | null,
  audit: AdminActor,
  answer: SupportAnswer<T>,
): Promise<T> {
  const assign = async (sql: TransactionClient) => {
    const locked = await lockTicket(sql, ticketId, 'ASSIGN');
    if (assigneeId) await requireTicketManager(sql, assigneeId);
    // An assignment that changes nothing writes nothing (no tickets.assign, updatedAt kept), as admins and flags do.
    if (locked.assignee_admin_id === assigneeId) return ticketId;
    await saveTicket(sql, ticketId, { assigneeAdminId: assigneeId, status: locked.next });
    await auditTicket(sql, audit, 'tickets.assign', ticketId, {
      before: locked.assignee_admin_id,
      after: assigneeId,
    });
    return ticketId;
  };
  // The assignee's account with the actor's, in id order, before the ticket (acting-admin.ts).
  return supportChange(db, audit, assign, answer, assigneeId ? [assigneeId] : []);
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
export function closeTicket<T>(
  db: Database,
  ticketId: string,
  resolution: string,
  audit: AdminActor,
  answer: SupportAnswer<T>,
): Promise<T> {
  const close = async (sql: TransactionClient) => {
    const locked = await lockTicket(sql, ticketId, 'CLOSE');
    await saveTicket(sql, ticketId, { status: locked.next, resolution, closedAt: writtenNow() });
    await auditTicket(sql, audit, 'tickets.close', ticketId, { resolution, statusBefore: locked.status });
    return ticketId;
  };
  return supportChange(db, audit, close, answer);
}
