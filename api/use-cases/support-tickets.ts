import type { Database } from '../../db/orm.js';
import {
  listTickets,
  ticketWithMessages,
  travellerTicket,
  travellerTickets,
  type TicketFilter,
  type TicketMessageRow,
  type TicketRow,
} from '../../db/queries/support-tickets.js';
import type { AdminActor } from '../../db/writes/acting-admin.js';
import { recordAudit, type AuditActor } from '../../db/writes/audit.js';
import {
  addSupportReply,
  addTicketMessage,
  assignTicket,
  closeTicket,
  openSupportTicket,
  openTicket,
  storedTicketId,
  ticketKeyOf,
  type NewTicket,
  type SupportAnswer,
} from '../../db/writes/support-tickets.js';
import type { TicketPriority, TicketStatus } from '../../domain/support-tickets.js';
import { notFound } from '../http/errors.js';
import { requireFeature, type PlatformState } from '../platform/state.js';
import { readOneRecorded, readPageRecorded } from './recorded-reads.js';

/**
 * Support tickets for support (tickets.view reads, recorded in the audit log as they show
 * travellers' contact data; tickets.manage changes, each with its audit row, answering the ticket
 * only to a holder of tickets.view and recording that read) and for travellers (their own tickets
 * about their own bookings, behind the flag support.traveller_tickets).
 */

const ticketNotFound = () => notFound('TICKET_NOT_FOUND', 'No such ticket');

export function listTicketsRecorded(db: Database, audit: AuditActor, filter: TicketFilter) {
  const { limit, offset, ...shown } = filter;
  const entry = { ...audit, action: 'tickets.list', targetKind: 'support_ticket' };
  return readPageRecorded(db, entry, shown, { limit, offset }, (sql) => listTickets(sql, filter));
}

/** The audit row of a read of one ticket by support (tickets.read). */
const ticketRead = (audit: AuditActor, ticketId: string) => ({
  ...audit,
  action: 'tickets.read',
  targetKind: 'support_ticket',
  targetId: ticketId,
});

/** One ticket and its messages (tickets.read); 404 TICKET_NOT_FOUND writes no audit row. */
export function readTicketRecorded(db: Database, audit: AuditActor, ticketId: string) {
  const entry = ticketRead(audit, ticketId);
  return readOneRecorded(db, entry, (sql) => ticketWithMessages(sql, ticketId), ticketNotFound);
}

/**
 * What support's change of a ticket answers to one who may not read tickets (no tickets.view): the
 * ticket's id and status and what the caller set, nothing about its traveller or its messages.
 */
export interface TicketReceipt {
  id: string;
  status: TicketStatus;
  subject?: string;
  priority?: TicketPriority;
  assignee?: { id: string } | null;
  resolution?: string | null;
  closedAt?: string | null;
}

/** The ticket and its messages (to a holder of tickets.view), or the receipt of the change. */
export type TicketAnswer = { ticket: TicketRow; messages: TicketMessageRow[] } | { receipt: TicketReceipt };

/**
 * The answer of support's change, read in the change's transaction: to an administrator holding
 * tickets.view now, the ticket and its messages, that read recorded as GET /tickets/{id} records it
 * (tickets.read, also when the change itself changed and recorded nothing); to anyone else the
 * receipt, `set` picking what the change set, and no read recorded (nothing of the ticket is shown).
 */
function answerOfChange(
  audit: AuditActor,
  set: (ticket: TicketRow) => Omit<TicketReceipt, 'id' | 'status'> = () => ({}),
): SupportAnswer<TicketAnswer> {
  return async (sql, ticketId, permissions) => {
    const found = (await ticketWithMessages(sql, ticketId))!;
    if (!permissions.includes('tickets.view')) {
      return { receipt: { id: found.ticket.id, status: found.ticket.status, ...set(found.ticket) } };
    }
    await recordAudit(sql, ticketRead(audit, ticketId));
    return found;
  };
}

export function openTicketForSupport(db: Database, audit: AdminActor, input: NewTicket) {
  const set = (ticket: TicketRow) => ({ subject: ticket.subject, priority: ticket.priority });
  return openSupportTicket(db, input, audit, answerOfChange(audit, set));
}

export function replyToTicket(db: Database, audit: AdminActor, ticketId: string, body: string) {
  return addSupportReply(db, ticketId, body, audit, answerOfChange(audit));
}

export function assignTicketTo(db: Database, audit: AdminActor, ticketId: string, assignee: string | null) {
  const set = (ticket: TicketRow) => ({
    assignee: ticket.assignee_admin_id ? { id: ticket.assignee_admin_id } : null,
  });
  return assignTicket(db, ticketId, assignee, audit, answerOfChange(audit, set));
}

export function closeTicketWith(db: Database, audit: AdminActor, ticketId: string, resolution: string) {
  const set = (ticket: TicketRow) => ({ resolution: ticket.resolution, closedAt: ticket.closed_at });
  return closeTicket(db, ticketId, resolution, audit, answerOfChange(audit, set));
}

/**
 * A traveller opens a ticket about one of their bookings. `limit` counts the attempt against the
 * traveller's hourly limit once the flag lets it through: a refusal by the flag uses up nothing.
 * With an Idempotency-Key, a retry whose key holds the ticket its first call opened is answered that
 * ticket (as it is now) before the flag and the limit, so it opens nothing and uses up none of it;
 * the same key with another request is 409 IDEMPOTENCY_KEY_REUSED (db/writes/keyed-write.ts).
 */
export async function openTravellerTicket(
  db: Database,
  platform: PlatformState,
  userId: string,
  input: { bookingId: string; subject: string; message: string; idempotencyKey?: string | undefined },
  limit: () => Promise<void>,
) {
  const { idempotencyKey, ...request } = input;
  const keyed = idempotencyKey === undefined ? null : ticketKeyOf(userId, idempotencyKey, request);
  const storedId = keyed && (await storedTicketId(db, keyed));
  if (storedId) return ownTicket(db, userId, storedId);
  await requireFeature(platform, 'support.traveller_tickets');
  await limit();
  const id = await openTicket(db, userId, { ...request, priority: 'NORMAL' }, keyed);
  return ownTicket(db, userId, id);
}

/**
 * A traveller writes on their own ticket (404 TICKET_NOT_FOUND for anyone else's); `limit` as for
 * openTravellerTicket, after the flag.
 */
export async function addTravellerMessage(
  db: Database,
  platform: PlatformState,
  userId: string,
  ticketId: string,
  body: string,
  limit: () => Promise<void>,
) {
  await requireFeature(platform, 'support.traveller_tickets');
  await limit();
  await addTicketMessage(db, ticketId, userId, body);
  return (await travellerTicket(db, userId, ticketId))!;
}

export async function ownTicket(db: Database, userId: string, ticketId: string) {
  const found = await travellerTicket(db, userId, ticketId);
  if (!found) throw ticketNotFound();
  return found;
}

export { travellerTickets as ownTickets };

const ref = (id: string | null, name: string | null) => (id ? { id, name: name ?? '' } : null);

/** A ticket as support sees it. */
export function supportTicketView(row: TicketRow) {
  return {
    id: row.id,
    subject: row.subject,
    status: row.status,
    priority: row.priority,
    openedBy: { kind: row.opened_by_kind, id: row.opened_by },
    traveller: row.traveller_user_id
      ? { id: row.traveller_user_id, name: row.traveller_name ?? '', phone: row.traveller_phone }
      : null,
    company: ref(row.company_id, row.company_name),
    booking: row.booking_id ? { id: row.booking_id, code: row.booking_code ?? '' } : null,
    assignee: ref(row.assignee_admin_id, row.assignee_name),
    resolution: row.resolution,
    closedAt: row.closed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    messageCount: row.messages,
    lastMessageAt: row.last_message_at,
  };
}

export function supportMessageView(row: TicketMessageRow) {
  return {
    id: row.id,
    author: { kind: row.author_kind, id: row.author_id, name: row.author_name ?? '' },
    body: row.body,
    createdAt: row.created_at,
  };
}

/** A traveller's own ticket: support's people are "SUPPORT", never named. */
export function travellerTicketView(found: { ticket: TicketRow; messages?: TicketMessageRow[] }) {
  const { ticket } = found;
  return {
    id: ticket.id,
    subject: ticket.subject,
    status: ticket.status,
    booking: ticket.booking_id ? { id: ticket.booking_id, code: ticket.booking_code ?? '' } : null,
    company: ref(ticket.company_id, ticket.company_name),
    resolution: ticket.resolution,
    createdAt: ticket.created_at,
    updatedAt: ticket.updated_at,
    closedAt: ticket.closed_at,
    ...(found.messages
      ? {
          messages: found.messages.map((message) => ({
            id: message.id,
            from: message.author_kind === 'ADMIN' ? ('SUPPORT' as const) : ('TRAVELLER' as const),
            body: message.body,
            createdAt: message.created_at,
          })),
        }
      : {}),
  };
}
