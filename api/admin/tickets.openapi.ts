import { z } from 'zod';
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../../domain/support-tickets.js';
import {
  InstantInput,
  NAME_SEARCH,
  Pagination,
  PrintedProse,
  PrintedText,
  Uuid,
  textRule,
} from '../http/schemas.js';
import { DateTime, IdText, OptionalSearch, pageAnswer, withPeriodInOrder } from './schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/** The OpenAPI side of the administration's support ticket routes (api/admin/tickets.ts). */
const TAGS = ['Administration: support tickets'];

export const TicketQuery = withPeriodInOrder(
  z
    .object({
      status: z.enum(TICKET_STATUSES).optional(),
      priority: z.enum(TICKET_PRIORITIES).optional(),
      assignee: z
        .union([Uuid, z.literal('none')])
        .optional()
        .meta({ description: "an administrator's id, or none for unassigned tickets" }),
      companyId: Uuid.optional(),
      bookingId: Uuid.optional(),
      travellerId: Uuid.optional(),
      search: OptionalSearch(200).meta({
        description: `part of the subject, read as names are: ${NAME_SEARCH}; empty: no filter`,
      }),
      from: InstantInput.optional().meta({ description: 'opened at or after' }),
      to: InstantInput.optional().meta({ description: 'opened before' }),
      ...Pagination,
    })
    .strict(),
);

/**
 * What support writes on a ticket the traveller reads (the subject, messages, the resolution): no
 * control or bidirectional-override character, which could make one text read as another; the
 * subject is one line, the rest prose that keeps its line breaks and tabs.
 */
const Message = PrintedProse(1, 5000);

export const NewTicketBody = z
  .object({
    subject: PrintedText(3, 200).meta({ description: textRule(3, 200, 'line') }),
    message: Message,
    priority: z.enum(TICKET_PRIORITIES).default('NORMAL'),
    bookingId: Uuid.optional().meta({ description: 'its company and traveller follow' }),
    companyId: Uuid.optional(),
    travellerId: Uuid.optional().meta({ description: "a traveller's user id" }),
  })
  .strict();

export const ReplyBody = z.object({ message: Message }).strict();
export const AssignBody = z
  .object({
    assigneeId: Uuid.nullable().meta({ description: 'an administrator holding tickets.manage, or null' }),
  })
  .strict();
export const CloseBody = z.object({ resolution: PrintedProse(3, 2000) }).strict();

const Ref = z.object({ id: IdText, name: z.string() });
const SupportTicket = z
  .object({
    id: IdText,
    subject: z.string(),
    status: z.enum(TICKET_STATUSES),
    priority: z.enum(TICKET_PRIORITIES),
    openedBy: z.object({ kind: z.enum(['TRAVELLER', 'ADMIN']), id: IdText }),
    traveller: z.object({ id: IdText, name: z.string(), phone: z.string().nullable() }).nullable(),
    company: Ref.nullable(),
    booking: z.object({ id: IdText, code: z.string() }).nullable(),
    assignee: Ref.nullable(),
    resolution: z.string().nullable(),
    closedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
    messageCount: z.int(),
    lastMessageAt: DateTime.nullable(),
  })
  .meta({ id: 'SupportTicket' });

const TicketMessage = z
  .object({
    id: IdText,
    author: z.object({ kind: z.enum(['TRAVELLER', 'ADMIN']), id: IdText, name: z.string() }),
    body: z.string(),
    createdAt: DateTime,
  })
  .meta({ id: 'SupportTicketMessage' });

/** What a change answers to one without tickets.view: the ticket's id and status and what the change set. */
const TicketReceipt = z
  .object({
    id: IdText,
    status: z.enum(TICKET_STATUSES),
    subject: z.string().optional().meta({ description: 'opening a ticket' }),
    priority: z.enum(TICKET_PRIORITIES).optional().meta({ description: 'opening a ticket' }),
    assignee: z
      .object({ id: IdText })
      .nullable()
      .optional()
      .meta({ description: 'assigning it: the assignee, or null' }),
    resolution: z.string().nullable().optional().meta({ description: 'closing it' }),
    closedAt: DateTime.nullable().optional().meta({ description: 'closing it' }),
  })
  .meta({ id: 'SupportTicketReceipt' });

const TicketPage = pageAnswer(SupportTicket);
const TicketWithMessages = z.object({ ticket: SupportTicket, messages: z.array(TicketMessage) });
const TicketDetail = successWith(TicketWithMessages);
const TicketChanged = successWith(z.union([TicketWithMessages, z.object({ ticket: TicketReceipt })]));

const STATES =
  'States: OPEN (waiting for support) → ANSWERED (support replied) → OPEN again when the traveller writes; either ' +
  'may be CLOSED, which is final (every change of a closed ticket is 409 TICKET_CLOSED).';
const RECHECKED =
  'checked again inside the change: an account disabled or demoted while the request runs gets 401 ' +
  'INVALID_CREDENTIAL or 403 and the change writes nothing';
const ANSWER =
  "Answers {ticket, messages}, the ticket as GET /tickets/{id} shows it (the traveller's name and phone, every " +
  'message), only to an administrator who also holds tickets.view, and records that read as GET /tickets/{id} does ' +
  '(tickets.read, in the same transaction, even when the change changes nothing); without tickets.view it answers ' +
  '{ticket: {id, status, …what the change set}} and records no read.';
const MANAGE =
  `Needs tickets.manage (else 403 PERMISSION_DENIED naming it), ${RECHECKED}. 404 TICKET_NOT_FOUND. ` +
  ANSWER;

export const docs = taggedOperations(TAGS, {
  adminListTickets: {
    summary: 'Support tickets',
    description:
      'Needs tickets.view. Filters status, priority, assignee (id or none), companyId, bookingId, travellerId, search ' +
      '(part of the subject, read as names are, Arabic spelling variants folded: اجره finds أجرة; empty: no ' +
      'filter), from/to (opened; from later than to is 400 VALIDATION_FAILED); most recently ' +
      'changed first; limit (default 20, at most 100) and offset. Tickets ' +
      "show travellers' names and phone numbers: every read is recorded in the audit log (tickets.list). " +
      STATES,
    responses: answers(200, 'A page of tickets', TicketPage, [400, 401, 403]),
  },
  adminReadTicket: {
    summary: 'A support ticket and its messages',
    description: 'Needs tickets.view. Messages oldest first. 404 TICKET_NOT_FOUND. Recorded (tickets.read).',
    responses: answers(200, 'The ticket', TicketDetail, [400, 401, 403, 404]),
  },
  adminCreateTicket: {
    summary: "Open a ticket on someone's behalf",
    description:
      `Needs tickets.manage, ${RECHECKED}. {subject, message, priority?, bookingId?, companyId?, travellerId?}: ` +
      'a booking brings ' +
      'its company and traveller (a different companyId or travellerId is 400 TICKET_SUBJECT_MISMATCH); unknown ids ' +
      "are 404 BOOKING_NOT_FOUND, COMPANY_NOT_FOUND, TRAVELLER_NOT_FOUND. The traveller, named or the booking's " +
      'owner, is an account someone can sign in to: one a phone merge disabled is 404 TRAVELLER_NOT_FOUND, and a ' +
      "booking it owned is the surviving account's (a merge running meanwhile ends first). Recorded (tickets.create). " +
      `${ANSWER} (The receipt: id, status, subject, priority.)`,
    responses: answers(201, 'Opened', TicketChanged, [400, 401, 403, 404]),
  },
  adminReplyToTicket: {
    summary: 'Reply to a ticket',
    description: `${MANAGE} (The receipt: id, status.) The ticket becomes ANSWERED. Recorded (tickets.reply). ${STATES}`,
    responses: answers(200, 'Replied', TicketChanged, [400, 401, 403, 404, 409]),
  },
  adminAssignTicket: {
    summary: 'Assign a ticket (or unassign it with null)',
    description:
      `${MANAGE} (The receipt: id, status, assignee {id} or null.) The assignee must be an active administrator ` +
      'holding tickets.manage (400 TICKET_ASSIGNEE_INVALID). Recorded (tickets.assign, before and after); ' +
      'assigning it to whom it is assigned to already changes nothing and records no tickets.assign (the answer ' +
      'and its read, as above). Disabling an administrator or taking tickets.manage away from ' +
      'them unassigns their open tickets (PATCH /admins/{id}, recorded the same way with a reason).',
    responses: answers(200, 'Assigned', TicketChanged, [400, 401, 403, 404, 409]),
  },
  adminCloseTicket: {
    summary: 'Close a ticket with its resolution',
    description: `${MANAGE} (The receipt: id, status, resolution, closedAt.) Closing is final. Recorded (tickets.close).`,
    responses: answers(200, 'Closed', TicketChanged, [400, 401, 403, 404, 409]),
  },
});
