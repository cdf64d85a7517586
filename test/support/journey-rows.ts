import { randomUUID } from 'node:crypto';
import { createStaffSession } from '../../api/auth/staff-session.js';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { signTicketsOf } from '../../db/writes/boarding-credentials.js';
import { createStaffMember, type StaffRole } from './staff.js';

/**
 * Journey rows as the confirm flow leaves them (journey, leg, tickets, compatibility booking,
 * company request), written directly, for tests of what reads and verifies them: boarding
 * credentials, the dashboard's bookings. The flow that writes them through the API and the
 * workflow has tests of its own.
 */
export interface JourneyTrip {
  id: string;
  companyId: string;
  /** The trip's stop calls in order; the leg boards at the first and alights at the last. */
  stopCallIds: string[];
}

/** The trip of a `createCorridor` world (or any trip with its company), as `createJourneyRows` takes it. */
export function journeyTripOf(world: {
  trip: { id: string; stopCallIds: string[] };
  company: { id: string };
}): JourneyTrip {
  return { id: world.trip.id, companyId: world.company.id, stopCallIds: world.trip.stopCallIds };
}

export interface JourneyRows {
  journeyId: string;
  ticketIds: string[];
  bookingId: string;
  requestId: string | null;
}

export async function createJourneyRows(
  db: Database,
  options: {
    ownerUserId: string;
    trip: JourneyTrip;
    travellers: string[];
    bookingStatus?: 'PENDING_CONFIRMATION' | 'CONFIRMED' | 'CANCELLED';
    /** A PENDING request of the trip's company with this deadline (a MANUAL company). */
    requestDeadline?: Date;
    channel?: 'CUSTOMER_WEB' | 'CUSTOMER_MOBILE';
  },
): Promise<JourneyRows> {
  const journeyId = randomUUID();
  const { trip, travellers } = options;
  const partySize = travellers.length;
  const price = 10_000;
  return db.transaction(async (client) => {
    const { rows: quote } = await client.query<{ id: string }>(
      `insert into journey_quotes (journey_id, owner_user_id, scope, idempotency_key, request_hash, party_size, response, total,
                                   currency, expires_at)
       values ($1, $2, '{"kind":"PRODUCTION"}', $3, 'test', $4, '{}', $5, 'SYP', now() + interval '15 minutes') returning id`,
      [journeyId, options.ownerUserId, randomUUID(), partySize, price * partySize],
    );
    await client.query(
      `insert into journeys (id, quote_id, owner_user_id, channel, party_size, status, total_price)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [
        journeyId,
        quote[0]!.id,
        options.ownerUserId,
        options.channel ?? 'CUSTOMER_WEB',
        partySize,
        options.requestDeadline ? 'REQUESTED' : 'HELD',
        price * partySize,
      ],
    );
    const last = trip.stopCallIds.length - 1;
    await client.query(
      `insert into journey_legs (journey_id, sequence, trip_id, company_id, board_stop_call_id, alight_stop_call_id,
                                 board_sequence, alight_sequence, unit_price, quantity, subtotal)
       values ($1, 1, $2, $3, $4, $5, 0, $6, $7, $8, $9)`,
      [
        journeyId,
        trip.id,
        trip.companyId,
        trip.stopCallIds[0],
        trip.stopCallIds[last],
        last,
        price,
        partySize,
        price * partySize,
      ],
    );
    const ticketIds: string[] = [];
    for (const [index, name] of travellers.entries()) {
      const { rows } = await client.query<{ id: string }>(
        `insert into journey_tickets (journey_id, leg_sequence, traveller_index, traveller_name, trip_id, company_id, seat_id,
                                      seat_number)
         values ($1, 1, $2, $3, $4, $5, $6, $7) returning id`,
        [journeyId, index, name, trip.id, trip.companyId, `s${index + 1}`, `${index + 1}A`],
      );
      ticketIds.push(rows[0]!.id);
    }
    const { rows: booking } = await client.query<{ id: string }>(
      `insert into bookings (booking_code, journey_id, company_id, trip_id, owner_user_id, passenger_name, passenger_phone,
                             seats_count, seat_numbers, status, total_price, channel)
       values ($1, $2, $3, $4, $5, $6, '+963944000000', $7, $8, $9, $10, $11) returning id`,
      [
        `BK-${randomUUID().slice(0, 8).toUpperCase()}`,
        journeyId,
        trip.companyId,
        trip.id,
        options.ownerUserId,
        travellers[0],
        partySize,
        travellers.map((_, index) => `${index + 1}A`),
        options.bookingStatus ?? 'PENDING_CONFIRMATION',
        price * partySize,
        options.channel ?? 'CUSTOMER_WEB',
      ],
    );
    let requestId: string | null = null;
    if (options.requestDeadline) {
      const { rows } = await client.query<{ id: string }>(
        `insert into confirmation_requests (scope_kind, scope_id, company_id, deadline) values ('JOURNEY', $1, $2, $3) returning id`,
        [journeyId, trip.companyId, options.requestDeadline],
      );
      requestId = rows[0]!.id;
    }
    return { journeyId, ticketIds, bookingId: booking[0]!.id, requestId };
  });
}

/** Signs the journey's tickets as the confirm transaction does, and marks the journey CONFIRMED. */
export async function confirmJourneyRows(db: Database, journeyId: string): Promise<void> {
  await db.transaction(async (client) => {
    await signTicketsOf(client, { kind: 'JOURNEY', id: journeyId });
    await client.query(`update journeys set status = 'CONFIRMED', confirmed_at = now() where id = $1`, [
      journeyId,
    ]);
    await client.query(`update bookings set status = 'CONFIRMED' where journey_id = $1`, [journeyId]);
  });
}

/** A journey as the confirm flow leaves it: its rows written, then its tickets signed and it CONFIRMED. */
export async function confirmedJourneyRows(
  db: Database,
  options: { ownerUserId: string; trip: JourneyTrip; travellers: string[] },
): Promise<JourneyRows> {
  const rows = await createJourneyRows(db, options);
  await confirmJourneyRows(db, rows.journeyId);
  return rows;
}

/** A live company user session, as sign-in creates one; DRIVER members get one too (the driver app). */
export async function staffSession(
  db: Database,
  config: Config,
  companyId: string,
  role: StaffRole,
): Promise<{
  token: string;
  csrf: string;
  sessionId: string;
  staffUserId: string;
  membershipId: string;
  cookie: string;
  writeHeaders: Record<string, string>;
}> {
  const member = await createStaffMember(db, companyId, role);
  const session = await createStaffSession(
    { db, config },
    { staffUserId: member.userId, membershipId: member.membershipId },
  );
  const cookie = `bb_staff=${session.token}; bb_staff_csrf=${session.csrfToken}`;
  return {
    token: session.token,
    csrf: session.csrfToken,
    sessionId: session.sessionId,
    staffUserId: member.userId,
    membershipId: member.membershipId,
    cookie,
    writeHeaders: { Cookie: cookie, 'X-CSRF-Token': session.csrfToken },
  };
}

/**
 * Moves a trip's plan (the trip and every stop call) by `shift`, a PostgreSQL interval such as
 * '-7 days', as if the clock had moved on: the trip keeps its status, as one never dispatched would.
 */
export async function shiftTripPlan(db: Database, tripId: string, shift: string): Promise<void> {
  await db.query(
    `update trip_stop_calls set departure_at = departure_at + $2::interval, arrival_at = arrival_at + $2::interval
     where trip_id = $1`,
    [tripId, shift],
  );
  await db.query(
    `update trips set departure_at = departure_at + $2::interval, arrival_at = arrival_at + $2::interval where id = $1`,
    [tripId, shift],
  );
}

/** Moves the trip's plan so its first call was due to leave `minutesAgo` minutes ago. */
export async function firstCallDueAgo(db: Database, tripId: string, minutesAgo: number): Promise<void> {
  const [{ shift } = { shift: '0' }] = await db.query<{ shift: string }>(
    `select ((now() - $2::int * interval '1 minute') - departure_at)::text as shift
       from trip_stop_calls where trip_id = $1 order by sequence limit 1`,
    [tripId, minutesAgo],
  );
  await shiftTripPlan(db, tripId, shift);
}

/**
 * Moves the decision deadline of REQUESTED journeys (each its own scope) a minute into the past, as
 * if the companies' window had run out and no worker had released them yet: their pending requests,
 * the journeys' confirmation_deadline, and the seats they hold until then.
 */
export async function decisionWindowRanOut(db: Database, journeyIds: string[]): Promise<void> {
  await db.query(
    `update confirmation_requests set deadline = now() - interval '1 minute'
     where scope_kind = 'JOURNEY' and scope_id = any($1::uuid[]) and status = 'PENDING'`,
    [journeyIds],
  );
  await db.query(
    `update journeys set confirmation_deadline = now() - interval '1 minute' where id = any($1::uuid[])`,
    [journeyIds],
  );
  await db.query(
    `update seat_allocations set expires_at = now() - interval '1 minute'
     where owner_kind = 'JOURNEY' and owner_id = any($1::uuid[]) and status = 'HELD'`,
    [journeyIds],
  );
}

/** How many booking.cancelled events the journey's bookings have in the outbox. */
export async function cancelledEvents(db: Database, journeyId: string): Promise<number> {
  const [row] = await db.query<{ count: number }>(
    `select count(*)::int as count from outbox_events e join bookings b on b.id = e.booking_id
     where b.journey_id = $1 and e.event = 'booking.cancelled'`,
    [journeyId],
  );
  return row!.count;
}
