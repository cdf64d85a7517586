import { z } from 'zod';
import { errorResponses, Pagination, PrintedProse, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { idempotencyKeyHeaders } from '../http/idempotency-key.js';
import {
  DateTimeText as Instant,
  IdText as Id,
  PaginationText,
  successWith,
} from '../http/answer-schemas.js';

/** The OpenAPI side of the cash-shift routes (api/dashboard/cash-shifts.ts). */
const TAGS = ['Dashboard: cash shifts'];
const Money = z.int().min(0).max(1_000_000_000_000);
/**
 * What a CLOSE counts in the till: any amount the shift can expect (opening balance, collections and
 * IN movements add up past Money's bound), up to what a JSON number holds exactly (the columns are bigint).
 */
const TillCount = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
/**
 * A shift's notes and a movement's reason are read by the company's other managers (and in the
 * shift's CSV): prose, so line breaks and tabs but no other control or bidirectional-override
 * character, which could make one text read as another.
 */
const Note = PrintedProse(1, 1000);
/** The shift an ADJUST or CLOSE was counted for: one that is no longer the open shift is refused. */
const NamedShift = Uuid.meta({
  description:
    'id of the shift the step is for (data.current.id of GET); another open shift is 409 CASH_SHIFT_CHANGED',
});

export const ShiftsQuery = z
  .object({ status: z.enum(['OPEN', 'CLOSED']).optional(), ...Pagination })
  .strict();

export const ShiftCommand = z
  .discriminatedUnion('action', [
    z.object({ action: z.literal('OPEN'), opening_balance: Money, note: Note.optional() }).strict(),
    z
      .object({
        action: z.literal('ADJUST'),
        direction: z.enum(['IN', 'OUT']),
        amount: Money.min(1),
        reason: PrintedProse(3, 500),
        shift_id: NamedShift.optional(),
      })
      .strict(),
    z
      .object({
        action: z.literal('CLOSE'),
        declared_amount: TillCount,
        note: Note.optional(),
        shift_id: NamedShift.optional(),
      })
      .strict(),
  ])
  .meta({ id: 'CashShiftCommand' });

/**
 * The command route's optional Idempotency-Key header: an ADJUST sent again after its answer was
 * lost names the attempt here, so its movement is recorded once.
 */
export const ShiftCommandHeaders = idempotencyKeyHeaders(
  'client-chosen key, read by ADJUST and kept per company: the same ADJUST again under it answers the shift its ' +
    'movement was recorded in (200) instead of recording the movement twice',
);

const Shift = z
  .object({
    id: Id,
    status: z.enum(['OPEN', 'CLOSED']),
    currency: z.string(),
    opening_balance: z.number(),
    opened_by: Id,
    opened_at: Instant,
    overdue: z
      .boolean()
      .meta({ description: 'open longer than CASH_SHIFT_MAX_HOURS (never closed automatically)' }),
    overdue_since: Instant.nullable(),
    note: z.string().nullable(),
    collections: z.object({ count: z.int(), amount: z.number() }),
    movements_in: z.number(),
    movements_out: z.number(),
    expected_amount: z
      .number()
      .meta({ description: 'opening + collections + in − out (at closing once closed)' }),
    declared_amount: z.number().nullable(),
    difference: z.number().nullable().meta({ description: 'declared − expected: negative is a shortage' }),
    closed_by: Id.nullable(),
    closed_at: Instant.nullable(),
  })
  .meta({ id: 'CashShift' });

const Movement = z.object({
  id: Id,
  kind: z.enum(['ADJUSTMENT', 'REFUND']),
  direction: z.enum(['IN', 'OUT']),
  amount: z.number(),
  reason: z.string(),
  payment_id: Id.nullable(),
  recorded_by: Id,
  recorded_at: Instant,
});
const Collection = z.object({
  id: Id,
  booking_id: Id,
  booking_code: z.string(),
  source: z.string(),
  status: z.string(),
  amount: z.number(),
  collected_at: Instant,
  verified_by: Id.nullable(),
});

const ShiftsResponse = z.object({
  success: z.literal(true),
  data: z.object({ current: Shift.nullable(), shifts: z.array(Shift) }),
  pagination: PaginationText,
});
const ShiftResponse = successWith(Shift);
const ShiftDetailResponse = successWith(
  z.object({ shift: Shift, movements: z.array(Movement), collections: z.array(Collection) }),
);

const WHO =
  'Only the company owner (role OWNER) and an active manager (role ADMIN with an active membership: a deactivated ' +
  "membership's session has already ended) may use cash shifts, reading included; ACCOUNTANT, DISPATCHER and STAFF get 403 " +
  "ROLE_NOT_ALLOWED. Another company's shift is 404 CASH_SHIFT_NOT_FOUND.";

export const docs = taggedOperations(TAGS, {
  listCashShifts: {
    summary: "The company's open cash shift and its shift history",
    description:
      `data.current is the open shift (null when none) with its running expected amount and the overdue flag; ` +
      `data.shifts is the history, newest first (status filter, limit/offset). ${WHO}`,
    responses: answers(200, 'Shifts', ShiftsResponse, [400, 401, 403]),
  },
  commandCashShift: {
    summary: 'OPEN, ADJUST or CLOSE the cash shift',
    description:
      'Each action is a step of the workflow cash-shift/{companyId} (one database transaction in an activity), and the ' +
      'answer is the shift after it. OPEN {opening_balance, note?} starts the workflow: its id is the company, so while a ' +
      'shift is open a second OPEN is 409 CASH_SHIFT_ALREADY_OPEN (two at once: one shift). A process left holding a shift ' +
      'the database shows closed (a CLOSE that committed while its step reported failure) does not block the company: ' +
      'the next OPEN ends it and opens, an ADJUST or CLOSE is 409 CASH_SHIFT_NOT_OPEN and ends it. ADJUST {direction IN|OUT, ' +
      'amount > 0, reason} records a documented movement; taking out more than the expected amount is 409 ' +
      'CASH_SHIFT_INSUFFICIENT_CASH. CLOSE {declared_amount, note?} records declared, expected (opening balance + linked ' +
      'collections + movements in − out) and the difference (declared − expected). ADJUST and CLOSE without an open shift are ' +
      '409 CASH_SHIFT_NOT_OPEN. Clients should send shift_id (data.current.id of GET) with ADJUST and CLOSE: when another ' +
      'shift is open by the time the step is written (the named one closed and the next opened meanwhile) it is 409 ' +
      'CASH_SHIFT_CHANGED with details.current_shift_id, nothing written; without shift_id the step goes to whichever ' +
      'shift is open. A CLOSE that repeats a recorded close (same member, declared_amount and note: a CLOSE sent again ' +
      'after its answer was lost) is answered 200 with that close, nothing written: with shift_id, the close of that ' +
      'shift, also once the next shift opened; without, the close of the company’s latest shift while no shift is open ' +
      '(an open shift is closed by it). Any other CLOSE of a closed shift is 409 CASH_SHIFT_NOT_OPEN (or ' +
      'CASH_SHIFT_CHANGED) and the recorded close stands. Idempotency-Key (optional header, 8 to 128 characters of ' +
      'A-Z a-z 0-9 _ -, else 400 VALIDATION_FAILED; read by ADJUST only): keys are kept per company, and the same ' +
      'ADJUST sent again under its key (same member, direction, amount and reason, and shift_id if sent), even at the ' +
      'same moment, is answered 200 with the shift its movement was recorded in, as it stands, and records nothing ' +
      'more, also once that shift closed; another ADJUST under the key is 409 IDEMPOTENCY_KEY_REUSED, nothing written. ' +
      'A refused ADJUST records nothing under its key; without the header every ADJUST records a movement. A shift open longer than CASH_SHIFT_MAX_HOURS (24) is marked overdue (ProcessStatus OVERDUE ' +
      'in the Temporal UI) and never closed automatically. Active company (403 COMPANY_SUSPENDED), checked when the request ' +
      'arrives and again in the step’s transaction: a suspension committed while the step waited refuses it and nothing is ' +
      'written (a refused OPEN opens no shift; ADJUST and CLOSE leave the shift as it was). The member is judged as they ' +
      'stand when the step is written, after any change committed while the request waited: signed out or deactivated 401 ' +
      'INVALID_CREDENTIAL, no longer OWNER or ADMIN 403 ROLE_NOT_ALLOWED, nothing written. Each step commits within ' +
      '20 s of the request or writes nothing, and the request waits 25 s for it: a step held up past that (e.g. by a ' +
      'lock) is 503 CASH_SHIFT_UNAVAILABLE and writes nothing (no shift opened, no movement recorded, the shift not ' +
      'closed). A 503 can also mean Temporal did not answer, after a step that may have been made: read the shift ' +
      '(GET) before sending the same command again (an ADJUST under its Idempotency-Key and a CLOSE with its shift_id ' +
      'may be sent again as they were). ' +
      `CSRF header. ${WHO}`,
    responses: {
      200: { description: 'ADJUST or CLOSE done', schema: ShiftResponse },
      201: { description: 'Opened', schema: ShiftResponse },
      ...errorResponses(400, 401, 403, 409, 503),
    },
  },
  getCashShift: {
    summary: 'One shift with its movements and linked collections',
    description: `Movements (adjustments and cash refunds) and the collections verified into the shift, oldest first. ${WHO}`,
    responses: answers(200, 'The shift', ShiftDetailResponse, [400, 401, 403, 404]),
  },
  getCashShiftCsv: {
    summary: 'CSV of a closed shift',
    description:
      'UTF-8 with a byte-order mark: the shift totals, then every movement and collection. An open shift is 409 ' +
      `CASH_SHIFT_NOT_CLOSED. ${WHO}`,
    responses: {
      200: { description: 'text/csv', contentType: 'text/csv', schema: z.string() },
      ...errorResponses(400, 401, 403, 404, 409),
    },
  },
});
