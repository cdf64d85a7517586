import type { PoolClient } from 'pg';
import type { TicketPriority, TicketStatus } from '../../domain/support-tickets.js';
import type { Database } from '../orm.js';
import { isoUtc } from './admins.js';
import { countedPage, countMatching, nameContains, type CountedListing } from './filtered-lists.js';

/**
 * Support tickets as support reads them (with the traveller, company, booking and assignee they
 * concern; each read is recorded in the audit log) and as a traveller reads their own (support's
 * people shown only as "support").
 */
type Sql = Pick<PoolClient, 'query'>;

export interface TicketRow {
  id: string;
  subject: string;
  status: TicketStatus;
  priority: TicketPriority;
  opened_by_kind: 'TRAVELLER' | 'ADMIN';
  opened_by: string;
  traveller_user_id: string | null;
  traveller_name: string | null;
  traveller_phone: string | null;
  company_id: string | null;
  company_name: string | null;
  booking_id: string | null;
  booking_code: string | null;
  assignee_admin_id: string | null;
  assignee_name: string | null;
  resolution: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
  messages: number;
  last_message_at: string | null;
}

const TICKET_COLUMNS = `t.id, t.subject, t.status, t.priority, t.opened_by_kind, t.opened_by, t.traveller_user_id,
         u.name as traveller_name, u.phone as traveller_phone, t.company_id, c.name_en as company_name,
         t.booking_id, b.booking_code, t.assignee_admin_id, a.name as assignee_name, t.resolution,
         ${isoUtc('t.closed_at')} as closed_at, ${isoUtc('t.created_at')} as created_at,
         ${isoUtc('t.updated_at')} as updated_at, m.messages, ${isoUtc('m.last_at')} as last_message_at`;

/** What a ticket's columns join; the messages are a lookup each, so a list counts them for its page only. */
const TICKET_JOINS = `
  left join users u on u.id = t.traveller_user_id
  left join companies c on c.id = t.company_id
  left join bookings b on b.id = t.booking_id
  left join admins a on a.id = t.assignee_admin_id
  cross join lateral (select count(*)::int as messages, max(created_at) as last_at
                      from support_ticket_messages where ticket_id = t.id) m`;

const TICKET_SELECT = `select ${TICKET_COLUMNS} from support_tickets t ${TICKET_JOINS}`;

export interface TicketFilter {
  status?: TicketStatus | undefined;
  priority?: TicketPriority | undefined;
  /** An administrator's id, or 'none' for tickets nobody is assigned to. */
  assignee?: string | undefined;
  companyId?: string | undefined;
  bookingId?: string | undefined;
  travellerId?: string | undefined;
  /** Part of the subject, as names match (nameContains: any case, Arabic spelling variants). */
  search?: string | undefined;
  /** Opened at or after. */
  from?: string | undefined;
  /** Opened before. */
  to?: string | undefined;
  limit: number;
  offset: number;
}

/**
 * Tickets, most recently changed first (ties by id), with the total matching the filter. The page
 * picks its ids first and reads the traveller, company, booking, assignee and messages of those
 * tickets only.
 */
export async function listTickets(
  sql: Sql,
  filter: TicketFilter,
): Promise<{ items: TicketRow[]; total: number }> {
  const where = `($1::text is null or t.status = $1) and ($2::text is null or t.priority = $2)
    and ($3::text is null or ($3 = 'none' and t.assignee_admin_id is null) or t.assignee_admin_id::text = $3)
    and ($4::uuid is null or t.company_id = $4) and ($5::uuid is null or t.booking_id = $5)
    and ($6::uuid is null or t.traveller_user_id = $6) and ($7::text is null or ${nameContains('t.subject', '$7')})
    and ($8::timestamptz is null or t.created_at >= $8) and ($9::timestamptz is null or t.created_at < $9)`;
  const params = [
    filter.status ?? null,
    filter.priority ?? null,
    filter.assignee ?? null,
    filter.companyId ?? null,
    filter.bookingId ?? null,
    filter.travellerId ?? null,
    filter.search ? filter.search : null,
    filter.from ?? null,
    filter.to ?? null,
  ];
  const { rows } = await sql.query<TicketRow>(
    `select ${TICKET_COLUMNS}
       from (select t.id from support_tickets t where ${where} order by t.updated_at desc, t.id limit $10 offset $11) page
       join support_tickets t on t.id = page.id ${TICKET_JOINS}
      order by t.updated_at desc, t.id`,
    [...params, filter.limit, filter.offset],
  );
  return { items: rows, total: await countMatching(sql, 'support_tickets t', where, params) };
}

export interface TicketMessageRow {
  id: string;
  author_kind: 'TRAVELLER' | 'ADMIN';
  author_id: string;
  author_name: string | null;
  body: string;
  created_at: string;
}

async function messagesOf(sql: Sql, ticketId: string): Promise<TicketMessageRow[]> {
  const { rows } = await sql.query<TicketMessageRow>(
    `select m.id, m.author_kind, m.author_id,
            case m.author_kind when 'ADMIN' then a.name else u.name end as author_name,
            m.body, ${isoUtc('m.created_at')} as created_at
     from support_ticket_messages m
     left join admins a on m.author_kind = 'ADMIN' and a.id = m.author_id
     left join users u on m.author_kind = 'TRAVELLER' and u.id = m.author_id
     where m.ticket_id = $1 order by m.created_at, m.id`,
    [ticketId],
  );
  return rows;
}

/** One ticket and its messages, oldest first; null when there is none. */
export async function ticketWithMessages(
  sql: Sql,
  ticketId: string,
): Promise<{ ticket: TicketRow; messages: TicketMessageRow[] } | null> {
  const { rows } = await sql.query<TicketRow>(`${TICKET_SELECT} where t.id = $1`, [ticketId]);
  if (!rows[0]) return null;
  return { ticket: rows[0], messages: await messagesOf(sql, ticketId) };
}

/** The listing of travellerTickets: the traveller's tickets, newest first. */
const TRAVELLER_TICKETS: CountedListing = {
  select: TICKET_SELECT,
  from: 'support_tickets t',
  where: 't.traveller_user_id = $1',
  orderBy: 't.created_at desc, t.id',
};

/** A traveller's own tickets, newest first. */
export async function travellerTickets(
  db: Database,
  userId: string,
  page: { limit: number; offset: number },
): Promise<{ items: TicketRow[]; total: number }> {
  return countedPage<TicketRow>(db.pool, TRAVELLER_TICKETS, [userId], page);
}

/** A traveller's own ticket with its messages; another's or none is null. */
export async function travellerTicket(
  db: Database,
  userId: string,
  ticketId: string,
): Promise<{ ticket: TicketRow; messages: TicketMessageRow[] } | null> {
  const [row] = await db.query<TicketRow>(`${TICKET_SELECT} where t.id = $1 and t.traveller_user_id = $2`, [
    ticketId,
    userId,
  ]);
  if (!row) return null;
  return { ticket: row, messages: await messagesOf(db.pool, ticketId) };
}
