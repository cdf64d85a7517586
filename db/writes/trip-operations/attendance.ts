import {
  attendanceStep,
  DispatchRefusal,
  type Attendance,
  type TravellerAction,
  type TravellerState,
} from '../../../domain/trip-dispatch.js';
import {
  iso,
  recordOperation,
  tripState,
  type DispatchCommand,
  type DispatchResult,
  type LockedTrip,
  type Queryable,
  type TravellerResult,
} from './trip.js';

/**
 * The traveller actions (CHECK_IN, MARK_NO_SHOW, RESTORE) inside the transition transaction, the
 * trip already locked (FOR SHARE): the traveller's booking row and then their ticket are locked
 * (the order a traveller's own cancellation locks them in), the attendance table decides, and the
 * ticket, the booking's status and the log change together.
 *
 * A JOURNEY_TICKET item is a ticket on this trip: CHECK_IN consumes its credential (status USED,
 * so its PDF answers 410 and the driver app's verification refuses it), RESTORE gives it back
 * (VALID) for the same traveller only. The booking row follows its tickets on the trip: CHECKED_IN
 * when one of them is, NO_SHOW when all are, else CONFIRMED. A BOOKING item is a legacy row without
 * tickets, whose status is its attendance. The booking's payment status is read under its lock: a
 * refund committed while the action waited for the booking is seen (a REFUNDED one is not readmitted).
 */
type TravellerCommand = DispatchCommand & {
  action: TravellerAction;
  item: NonNullable<DispatchCommand['item']>;
};

const itemNotFound = () =>
  new DispatchRefusal(404, 'MANIFEST_ITEM_NOT_FOUND', 'No such traveller on this trip', {
    hint: 'manifest_item_id is a JOURNEY_TICKET id from the manifest; BOOKING only for legacy bookings without tickets',
  });

const LIVE_BOOKINGS = ['CONFIRMED', 'CHECKED_IN', 'NO_SHOW'];

/** SQL condition: ticket `k` is ticket $1 of trip $2 of company $3, and not re-issued (then only history). */
const TICKET_OF_TRIP = `k.id = $1 and k.trip_id = $2 and k.company_id = $3 and k.status <> 'REISSUED'`;

export async function applyTravellerAction(
  client: Queryable,
  trip: LockedTrip,
  command: TravellerCommand,
): Promise<DispatchResult> {
  const change =
    command.item.type === 'JOURNEY_TICKET'
      ? await changeTicket(client, trip, command)
      : await changeLegacyBooking(client, trip, command);
  await recordOperation(client, {
    command,
    before: { attendance: change.previousAttendance, ...change.before },
    after: { attendance: change.result.attendance, ...change.after },
    details: command.scan ? { deviceId: command.scan.deviceId } : {},
  });
  return {
    tripId: trip.id,
    action: command.action,
    replayed: false,
    previousStatus: trip.status,
    trip: tripState(trip),
    traveller: change.result,
  };
}

interface TravellerChange {
  previousAttendance: Attendance;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  result: TravellerResult;
}

interface TicketRow {
  id: string;
  status: string;
  boarding_authorized: boolean;
  attendance: Attendance;
  attendance_at: string | null;
  attendance_by: string | null;
  attendance_by_name: string | null;
  attendance_source: string | null;
  attendance_device: string | null;
}

/**
 * SQL timestamptz: when a traveller action on ticket `ticket` (an alias) is dated, from the time the
 * app scanned, `scannedAt` (an SQL timestamptz, null for now), and `bookingCreatedAt` (its booking's
 * created_at, null without one). A scan replayed from the app's offline queue is dated when the app
 * scanned, but never before the ticket, its credential or its booking existed: a phone clock set days
 * back would otherwise date the check-in before the sale. The scan itself happened (the credential
 * verified), so its time is moved to the earliest one possible rather than the check-in refused and
 * lost from the queue. A phone clock running fast (the scan accepts up to 5 minutes ahead) is read as
 * now: a check-in is never dated after the server recorded it, as a reported position is not
 * (tracking). The driver app's scan judges the credential's expiry at this moment too (scans.ts).
 */
export function attendanceAtSql(scannedAt: string, ticket: string, bookingCreatedAt: string): string {
  return `greatest(least(coalesce(${scannedAt}::timestamptz, now()), now()), ${ticket}.created_at, ${ticket}.issued_at,
                   ${bookingCreatedAt})`;
}

async function changeTicket(
  client: Queryable,
  trip: LockedTrip,
  command: TravellerCommand,
): Promise<TravellerChange> {
  const booking = await lockTicketBooking(client, trip, command.item.id);
  const bookingId = booking?.id ?? null;
  // The ticket is judged again with its lock: lockTicketBooking read it unlocked, as it was when its
  // statement began, before it waited for the booking, and a re-issue meanwhile (which holds the
  // journey and the ticket, not the booking) leaves it REISSUED: no longer this trip's ticket.
  const { rows } = await client.query<TicketRow>(
    `select k.id, k.status, k.boarding_authorized, k.attendance, k.attendance_at, k.attendance_by,
            u.name as attendance_by_name, k.attendance_source, k.attendance_device
     from journey_tickets k left join staff_users u on u.id = k.attendance_by
     where ${TICKET_OF_TRIP} for update of k`,
    [command.item.id, trip.id, trip.companyId],
  );
  const ticket = rows[0];
  if (!ticket) throw itemNotFound();
  const boardable =
    ((ticket.status === 'VALID' && ticket.boarding_authorized) || ticket.status === 'USED') &&
    (booking === undefined || LIVE_BOOKINGS.includes(booking.status));
  const next = attendanceStep(trip.status, command.action, {
    attendance: ticket.attendance,
    boardable,
    status: ticket.status,
    refunded: booking?.payment_status === 'REFUNDED',
    checkedIn: ticket.attendance === 'CHECKED_IN' ? checkedInOf(ticket) : null,
  });
  if (booking) {
    await refuseUndoingPaidBoarding(
      client,
      { bookingId: booking.id, ticketId: ticket.id },
      ticket.attendance,
      next,
    );
  }
  const { rows: updated } = await client.query<{ status: string; attendance_at: string }>(
    `update journey_tickets
     set status = case when $2 = 'CHECKED_IN' then 'USED' when status = 'USED' then 'VALID' else status end,
         attendance = $2,
         attendance_at = ${attendanceAtSql('$3', 'journey_tickets', '(select b.created_at from bookings b where b.id = $7)')},
         attendance_by = $4, attendance_source = $5, attendance_device = $6
     where id = $1 returning status, attendance_at`,
    [
      ticket.id,
      next,
      command.scan?.at ?? null,
      command.actor.staffUserId,
      command.actor.channel,
      command.scan?.deviceId ?? null,
      bookingId,
    ],
  );
  const bookingStatus = booking ? await syncBooking(client, booking.id, booking.status) : null;
  return {
    previousAttendance: ticket.attendance,
    before: { ticketStatus: ticket.status, bookingStatus: booking?.status ?? null },
    after: { ticketStatus: updated[0]!.status, bookingStatus },
    result: {
      itemType: 'JOURNEY_TICKET',
      itemId: ticket.id,
      bookingId,
      attendance: next,
      previousAttendance: ticket.attendance,
      ticketStatus: updated[0]!.status,
      bookingStatus,
      at: iso(updated[0]!.attendance_at)!,
    },
  };
}

/**
 * A check-in undone (RESTORE, or a NO_SHOW after it) that leaves the booking (locked) no longer
 * checked in while it has the PENDING line of the cash its driver took at the door is refused, 409
 * DRIVER_CASH_RECORDED: a booking no longer checked in could be cancelled, moved or closed as a
 * no-show, each of which ends that line and the record of the cash in the driver's hands. The office
 * cancels the line first. While another traveller of the booking (`ticketId` is the one changing;
 * null for a legacy booking, which has no other) stays checked in on the trip, the booking stays
 * CHECKED_IN (syncBooking) and the line cannot end: one traveller's mistaken check-in is undone.
 */
async function refuseUndoingPaidBoarding(
  client: Queryable,
  change: { bookingId: string; ticketId: string | null },
  from: Attendance,
  to: Attendance,
): Promise<void> {
  if (from !== 'CHECKED_IN' || to === 'CHECKED_IN') return;
  const { rows } = await client.query<{ id: string }>(
    `select p.id from payment_operations p
     where p.booking_id = $1 and p.source = 'driver' and p.status = 'PENDING'
       and not exists (
         select 1 from bookings b
         join journey_tickets k on k.journey_id = b.journey_id and k.trip_id = b.trip_id and k.company_id = b.company_id
           and k.status in ('VALID', 'USED')
         where b.id = $1 and k.id is distinct from $2::uuid and k.attendance = 'CHECKED_IN')`,
    [change.bookingId, change.ticketId],
  );
  if (rows[0]) {
    throw new DispatchRefusal(
      409,
      'DRIVER_CASH_RECORDED',
      'The driver recorded taking this traveller’s cash: the office cancels that payment line before the check-in is undone',
      { payment_id: rows[0].id },
    );
  }
}

function checkedInOf(ticket: TicketRow): TravellerState['checkedIn'] {
  return {
    at: iso(ticket.attendance_at) ?? '',
    byStaffUserId: ticket.attendance_by,
    byName: ticket.attendance_by_name,
    source: ticket.attendance_source,
    ...(ticket.attendance_device ? { deviceId: ticket.attendance_device } : {}),
  };
}

interface BookingRow {
  id: string;
  status: string;
  payment_status: string;
  journey_id: string | null;
  has_tickets: boolean;
}

/**
 * Locks the booking row of the trip's ticket `ticketId` (the ticket is still unlocked, and read as it
 * was before the statement waited for the booking: changeTicket judges it again); undefined for a
 * ticket without a booking row, 404 when the trip has no such ticket.
 */
async function lockTicketBooking(
  client: Queryable,
  trip: LockedTrip,
  ticketId: string,
): Promise<BookingRow | undefined> {
  const { rows } = await client.query<BookingRow>(
    `select b.id, b.status, b.payment_status, b.journey_id, true as has_tickets
     from journey_tickets k
     join bookings b on b.journey_id = k.journey_id and b.trip_id = k.trip_id and b.company_id = k.company_id
     where ${TICKET_OF_TRIP} for update of b`,
    [ticketId, trip.id, trip.companyId],
  );
  if (rows[0]) return rows[0];
  const { rows: ticket } = await client.query(`select 1 from journey_tickets k where ${TICKET_OF_TRIP}`, [
    ticketId,
    trip.id,
    trip.companyId,
  ]);
  if (!ticket[0]) throw itemNotFound();
  return undefined;
}

async function lockBooking(client: Queryable, bookingId: string): Promise<BookingRow> {
  const { rows } = await client.query<BookingRow>(
    `select b.id, b.status, b.payment_status, b.journey_id,
            exists (select 1 from journey_tickets k where k.journey_id = b.journey_id and k.trip_id = b.trip_id) as has_tickets
     from bookings b where b.id = $1 for update`,
    [bookingId],
  );
  return rows[0]!;
}

/** The booking row follows its travellers on the trip. Returns its status now. */
async function syncBooking(client: Queryable, bookingId: string, current: string): Promise<string> {
  const { rows } = await client.query<{ status: string }>(
    `update bookings b set status = s.next, updated_at = now()
     from (select case when bool_or(k.attendance = 'CHECKED_IN') then 'CHECKED_IN'
                       when bool_and(k.attendance = 'NO_SHOW') then 'NO_SHOW' else 'CONFIRMED' end as next
           from bookings x join journey_tickets k on k.journey_id = x.journey_id and k.trip_id = x.trip_id
             and k.company_id = x.company_id and k.status in ('VALID', 'USED')
           where x.id = $1) s
     where b.id = $1 and b.status in ('CONFIRMED', 'CHECKED_IN', 'NO_SHOW') and b.status <> s.next
     returning b.status`,
    [bookingId],
  );
  return rows[0]?.status ?? current;
}

const LEGACY_ATTENDANCE: Record<string, Attendance> = { CHECKED_IN: 'CHECKED_IN', NO_SHOW: 'NO_SHOW' };
const LEGACY_STATUS: Record<Attendance, string> = {
  PENDING: 'CONFIRMED',
  CHECKED_IN: 'CHECKED_IN',
  NO_SHOW: 'NO_SHOW',
};

async function changeLegacyBooking(
  client: Queryable,
  trip: LockedTrip,
  command: TravellerCommand,
): Promise<TravellerChange> {
  const { rows: found } = await client.query<{ id: string }>(
    `select id from bookings where id = $1 and trip_id = $2 and company_id = $3`,
    [command.item.id, trip.id, trip.companyId],
  );
  if (!found[0]) throw itemNotFound();
  const booking = await lockBooking(client, found[0].id);
  if (booking.has_tickets) throw itemNotFound();
  const attendance = LEGACY_ATTENDANCE[booking.status] ?? 'PENDING';
  const next = attendanceStep(trip.status, command.action, {
    attendance,
    boardable: LIVE_BOOKINGS.includes(booking.status),
    status: booking.status,
    refunded: booking.payment_status === 'REFUNDED',
    checkedIn: attendance === 'CHECKED_IN' ? await legacyCheckIn(client, booking.id) : null,
  });
  await refuseUndoingPaidBoarding(client, { bookingId: booking.id, ticketId: null }, attendance, next);
  const { rows } = await client.query<{ updated_at: string }>(
    `update bookings set status = $2, updated_at = now() where id = $1 returning updated_at`,
    [booking.id, LEGACY_STATUS[next]],
  );
  return {
    previousAttendance: attendance,
    before: { bookingStatus: booking.status },
    after: { bookingStatus: LEGACY_STATUS[next] },
    result: {
      itemType: 'BOOKING',
      itemId: booking.id,
      bookingId: booking.id,
      attendance: next,
      previousAttendance: attendance,
      ticketStatus: null,
      bookingStatus: LEGACY_STATUS[next],
      at: iso(command.scan?.at ?? rows[0]!.updated_at)!,
    },
  };
}

/** Who checked a legacy booking in and when: its latest CHECK_IN in the operations log. */
async function legacyCheckIn(client: Queryable, bookingId: string): Promise<TravellerState['checkedIn']> {
  const { rows } = await client.query<{
    created_at: string;
    actor_id: string | null;
    name: string | null;
    channel: string;
  }>(
    `select e.created_at, e.actor_id, u.name, e.channel from trip_operation_events e
     left join staff_users u on u.id = e.actor_id
     where e.manifest_item_type = 'BOOKING' and e.manifest_item_id = $1 and e.action = 'CHECK_IN'
     order by e.id desc limit 1`,
    [bookingId],
  );
  const row = rows[0];
  return row
    ? { at: iso(row.created_at)!, byStaffUserId: row.actor_id, byName: row.name, source: row.channel }
    : null;
}
