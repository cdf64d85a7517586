import { Refusal } from './refusal.js';

/**
 * Support tickets and their states, as one table. A traveller opens one about a booking (or an
 * administrator opens one on someone's behalf); support answers, assigns and closes it:
 *
 *   state      admin reply   traveller message   assign   close
 *   OPEN       ANSWERED      OPEN                OPEN     CLOSED
 *   ANSWERED   ANSWERED      OPEN                ANSWERED CLOSED
 *   CLOSED     409           409                 409      409     (TICKET_CLOSED; final)
 */
export const TICKET_STATUSES = ['OPEN', 'ANSWERED', 'CLOSED'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_PRIORITIES = ['LOW', 'NORMAL', 'HIGH', 'URGENT'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

export const TICKET_EVENTS = ['ADMIN_REPLY', 'TRAVELLER_MESSAGE', 'ASSIGN', 'CLOSE'] as const;
export type TicketEvent = (typeof TICKET_EVENTS)[number];

export const TICKET_TRANSITIONS: Record<TicketStatus, Partial<Record<TicketEvent, TicketStatus>>> = {
  OPEN: { ADMIN_REPLY: 'ANSWERED', TRAVELLER_MESSAGE: 'OPEN', ASSIGN: 'OPEN', CLOSE: 'CLOSED' },
  ANSWERED: { ADMIN_REPLY: 'ANSWERED', TRAVELLER_MESSAGE: 'OPEN', ASSIGN: 'ANSWERED', CLOSE: 'CLOSED' },
  CLOSED: {},
};

/** The ticket's status after `event`; a closed ticket refuses everything (409 TICKET_CLOSED). */
export function ticketStatusAfter(current: TicketStatus, event: TicketEvent): TicketStatus {
  const next = TICKET_TRANSITIONS[current][event];
  if (!next) throw new Refusal(409, 'TICKET_CLOSED', 'The ticket is closed; open a new one');
  return next;
}
