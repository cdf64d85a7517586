import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import {
  companiesNeedingDecision,
  type BookingChannel,
  type ConfirmationMode,
} from '../../domain/journey-confirmation.js';
import type { SeatLockStatus } from '../../domain/booking.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import type { Database } from '../orm.js';
import { PG_EXCLUSION_VIOLATION, pgCode, withDeadlockRetry } from '../pg-errors.js';
import { isBookableStatus, LIVE_ALLOCATION } from '../queries/inventory.js';
import { companyScopeSql } from '../queries/scope.js';
import { allocationsInIdOrder } from './allocation-locks.js';
import { closeHoldBatch, JourneyRefusal } from './journeys/index.js';
import { seatsByLabel, type LabelledSeat } from '../queries/layout-seats.js';
import { lockActiveTraveller, requireSeatsWithinCaps, type AccountCaps } from './inventory-caps.js';

/**
 * Seat locks: the short hold of named seats of one trip that POST /bookings consumes (SPEC
 * requires seat_lock_session_id on booking creation). A lock is a hold_batches row (scope_kind
 * SEAT_LOCK; its id is both the seat_lock_session_id and the scope id) with one HELD
 * seat_allocations row per seat (owner_kind SEAT_LOCK) over the whole trip, from the first stop
 * call to the last. It ends CONSUMED (a booking was made), RELEASED (DELETE) or simply passes its
 * expires_at: an expired lock is free for everyone at once; whoever locks one of its seats next
 * marks its allocations EXPIRED in the same transaction, since the exclusion constraint still
 * counts HELD rows.
 */
export type Queryable = Pick<PoolClient, 'query'>;

export interface SeatLock {
  seatLockSessionId: string;
  tripId: string;
  seatNumbers: string[];
  /** ISO 8601. */
  expiresAt: string;
  /** ACTIVE only while it has not expired; an ACTIVE batch past expires_at reads as EXPIRED. */
  status: SeatLockStatus;
  /** The booking that consumed it. */
  bookingId: string | null;
}

export interface SeatLockCaller {
  userId: string;
  scope: InventoryScope;
  channel: BookingChannel;
  /** The account's abuse caps (config); absent, none is enforced. */
  caps?: AccountCaps;
}

/** A trip as booking sees it: its company, route, fares and the first and last stop calls. */
export interface BookableTrip {
  id: string;
  company_id: string;
  route_id: string;
  bus_id: string;
  status: string;
  price_base: string;
  price_vip: string | null;
  currency: string;
  first_call_id: string;
  first_sequence: number;
  first_share_bp: number;
  origin_city_id: string;
  departure_at: string;
  last_call_id: string;
  last_sequence: number;
  last_share_bp: number;
  destination_city_id: string;
  arrival_at: string;
  upcoming: boolean;
  /** The company's booking confirmation settings (null: none saved, so it confirms automatically). */
  confirmation_mode: ConfirmationMode | null;
  confirmation_channels: BookingChannel[] | null;
}

/**
 * The trip if it exists in the caller's inventory scope (else 404 TRIP_NOT_FOUND, the same answer
 * as for a trip that does not exist) and can still be booked (else 409 TRIP_NOT_BOOKABLE). The
 * statement that reads it holds the trip's company row FOR SHARE to the transaction's end
 * (COMPANY_SHARE): a suspension, which takes that row FOR UPDATE (db/writes/company-moderation.ts),
 * waits for a seat lock or booking that read the company ACTIVE, which is then one placed before
 * it; a read meeting a suspension in flight waits for it, reads the row again and finds the trip
 * out of scope, as one sent after it (test/api/admin/suspension-seat-lock-order.test.ts).
 */
export async function bookableTrip(
  q: Queryable,
  scope: InventoryScope,
  tripId: string,
  /** Takes the trip FOR SHARE, so a dispatch action or a re-plan waits for the seats placed after. */
  lock: { share: boolean } = { share: false },
): Promise<BookableTrip> {
  const trip = lock.share
    ? await shareLockedTrip(q, scope, tripId)
    : await readTrip(q, scope, tripId, COMPANY_SHARE);
  const details = { trip_id: tripId };
  if (!trip || trip.first_sequence === trip.last_sequence)
    throw new JourneyRefusal(404, 'TRIP_NOT_FOUND', 'No such trip', details);
  if (!isBookableStatus(trip.status) || !trip.upcoming) {
    throw new JourneyRefusal(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked', details);
  }
  return trip;
}

/**
 * The company row of the trip a read returns, held FOR SHARE: seat locks, bookings, journey holds
 * and confirms share it; only the company's own changes (standing, settings, team, keys, webhook
 * subscriptions) take it exclusively, and none of those then waits for a row a seat lock or booking
 * holds before it (traveller, trip, seat lock), so taking it last closes no cycle. Only the company
 * is waited for here: SKIP LOCKED names the trip alone.
 */
const COMPANY_SHARE = 'for share of c';

/**
 * The trip read with its FOR SHARE lock. A statement that waits for its row sees the rows it joins
 * (the company, its settings) as they were when it began, so a suspension committed while it waited
 * would go unseen. Taken SKIP LOCKED, the read never waits for the trip: it comes back with its lock
 * (share locks of other seat locks and bookings do not stand in the way), or, while a writer holds
 * it (a hold placing its seats, a dispatch action, a re-plan), not at all; then the lock is waited
 * for in a statement of its own and the trip read again in the next. One statement when nothing
 * holds it. Both reads wait for the company row (COMPANY_SHARE) and then see it as committed.
 */
async function shareLockedTrip(
  q: Queryable,
  scope: InventoryScope,
  tripId: string,
): Promise<BookableTrip | undefined> {
  const trip = await readTrip(q, scope, tripId, `for share of t skip locked ${COMPANY_SHARE}`);
  if (trip) return trip;
  await q.query(`select 1 from trips where id = $1 for share`, [tripId]);
  return readTrip(q, scope, tripId, COMPANY_SHARE);
}

async function readTrip(
  q: Queryable,
  scope: InventoryScope,
  tripId: string,
  lockClause: string,
): Promise<BookableTrip | undefined> {
  const params: unknown[] = [tripId];
  const inScope = companyScopeSql(scope, params, 'c');
  const { rows } = await q.query<BookableTrip>(
    `select t.id, t.company_id, t.route_id, t.bus_id, t.status, t.price_base, t.price_vip, t.currency,
            f.id as first_call_id, f.sequence as first_sequence, f.fare_share_bp as first_share_bp,
            f.city_id as origin_city_id, f.departure_at,
            l.id as last_call_id, l.sequence as last_sequence, l.fare_share_bp as last_share_bp,
            l.city_id as destination_city_id, l.arrival_at,
            f.departure_at > now() as upcoming,
            cs.mode as confirmation_mode, cs.channels as confirmation_channels
     from trips t
     join companies c on c.id = t.company_id and ${inScope}
     left join company_booking_settings cs on cs.company_id = t.company_id
     cross join lateral (select * from trip_stop_calls s where s.trip_id = t.id order by s.sequence limit 1) f
     cross join lateral (select * from trip_stop_calls s where s.trip_id = t.id order by s.sequence desc limit 1) l
     where t.id = $1 ${lockClause}`,
    params,
  );
  return rows[0];
}

/**
 * Companies that confirm bookings manually for this channel take them through /journeys, which
 * carries the request and its decision deadline: 409 JOURNEY_FLOW_REQUIRED.
 */
export function requireAutomaticConfirmation(
  trip: Pick<BookableTrip, 'company_id' | 'confirmation_mode' | 'confirmation_channels'>,
  channel: BookingChannel,
): void {
  const settings = trip.confirmation_mode
    ? [
        {
          companyId: trip.company_id,
          mode: trip.confirmation_mode,
          decisionWindowMinutes: 0,
          channels: trip.confirmation_channels ?? [],
        },
      ]
    : [];
  if (companiesNeedingDecision(settings, channel).length) {
    throw new JourneyRefusal(
      409,
      'JOURNEY_FLOW_REQUIRED',
      'This company confirms bookings itself; book through /journeys (quote, hold, confirm)',
      { companyId: trip.company_id },
    );
  }
}

/** Seat labels → seats of the bus's active (hence valid) layout; an unknown label is 400 SEAT_NOT_FOUND. */
async function layoutSeats(q: Queryable, busId: string, seatNumbers: string[]): Promise<LabelledSeat[]> {
  const { seats, unknown } = await seatsByLabel(q, busId, seatNumbers);
  if (unknown.length) {
    throw new JourneyRefusal(400, 'SEAT_NOT_FOUND', 'These seats do not exist on this trip’s bus', {
      seat_numbers: unknown,
    });
  }
  return seats;
}

/** Labels of the seats of `seatIds` that a live allocation takes somewhere on the trip. */
async function occupiedLabels(q: Queryable, trip: BookableTrip, seats: LabelledSeat[]): Promise<string[]> {
  const { rows } = await q.query<{ seat_id: string }>(
    `select distinct a.seat_id from seat_allocations a
     where a.trip_id = $1 and a.seat_id = any($2::text[]) and a.board_sequence < $4 and a.alight_sequence > $3
       and ${LIVE_ALLOCATION}`,
    [trip.id, seats.map((seat) => seat.seat_id), trip.first_sequence, trip.last_sequence],
  );
  const taken = new Set(rows.map((row) => row.seat_id));
  return seats.filter((seat) => taken.has(seat.seat_id)).map((seat) => seat.seat_number);
}

/**
 * Marks the lapsed holds (HELD past expires_at) on these seats of the trip EXPIRED, since the
 * exclusion constraint still counts them. Locked in id order so two transactions freeing the same
 * expired rows never deadlock.
 */
export async function expireLapsedHolds(q: Queryable, tripId: string, seatIds: string[]): Promise<void> {
  await q.query(
    `update seat_allocations set status = 'EXPIRED', released_at = now()
     where ${allocationsInIdOrder(`trip_id = $1 and seat_id = any($2::text[]) and status = 'HELD' and expires_at <= now()`)}`,
    [tripId, seatIds],
  );
}

/**
 * Queues the seat locks that name the same seats of the trip: a transaction-scoped advisory lock per
 * seat, taken in the order of `seatIds` (sorted, so two locks of overlapping seats queue rather than
 * deadlock). The next in line then sees the seat taken by the one before. Without it, inserts of one
 * seat could each find the other's uncommitted row on the exclusion constraint and wait for each
 * other: PostgreSQL aborted all but one as deadlocks, a second each, and a race of six travellers
 * for one seat was answered with 500s.
 */
async function queueForSeats(q: Queryable, tripId: string, seatIds: string[]): Promise<void> {
  await q.query(
    `select pg_advisory_xact_lock(hashtextextended('seat-lock:' || $1::text || ':' || seat_id, 0))
     from unnest($2::text[]) with ordinality as seat(seat_id, position) order by position`,
    [tripId, seatIds],
  );
}

/**
 * The caller's own live seat lock of exactly these seats of the trip (no more, no fewer), taken FOR
 * SHARE: the lock a request whose answer was lost made, found by its retry (or by the second of a
 * double tap, queued behind the first on the seats: queueForSeats). A DELETE or a booking of that
 * lock in flight is waited for and its outcome read: the lock then no longer qualifies and the
 * request goes on as a new one.
 */
async function ownLiveLockOf(
  q: Queryable,
  userId: string,
  tripId: string,
  seatIds: string[],
): Promise<{ id: string; expires_at: string } | undefined> {
  const { rows } = await q.query<{ id: string; expires_at: string }>(
    `select b.id, b.expires_at from hold_batches b
     where b.owner_user_id = $1 and b.status = 'ACTIVE' and b.expires_at > now() and b.scope_kind = 'SEAT_LOCK'
       and (select count(*) = cardinality($3::text[])
                   and bool_and(a.trip_id = $2 and a.status = 'HELD' and a.seat_id = any($3::text[]))
            from seat_allocations a where a.hold_batch_id = b.id)
     for share of b`,
    [userId, tripId, seatIds],
  );
  return rows[0];
}

const occupied = (labels: string[]) =>
  new JourneyRefusal(409, 'SEAT_OCCUPIED', 'Some of these seats are taken', { seat_numbers: labels });

/** A seat lock, and whether this request made it (false: the caller's own live lock of the same seats). */
export type PlacedSeatLock = SeatLock & { created: boolean };

/**
 * POST /seat-locks: in one transaction, checks the trip (scope, bookable, automatic confirmation
 * for the channel), maps labels to seats and queues behind other locks of those seats. The same
 * request again (its answer lost, or a double tap) finds the caller's own ACTIVE lock of exactly
 * those seats and answers it as it is (created false, expires_at unchanged), writing nothing and
 * counting nothing against the caps; a request that names only some of that lock's seats, or
 * more, is a new lock and meets them taken. Otherwise it marks expired holds of those seats
 * EXPIRED, refuses seats still taken (409 SEAT_OCCUPIED with details.seat_numbers) and inserts the
 * batch and its HELD allocations. With caller.caps, the account's row is locked first (so a double
 * tap's second request waits for the first and finds its lock) and, once the seats are found free,
 * the seats it already holds are counted (409 SEAT_HOLD_LIMIT_REACHED past a cap). The trip row is taken FOR SHARE, as
 * bookings take it: a cancel or a re-plan holding it waits for the seats placed, or is waited for
 * and its outcome read; its company row is held FOR SHARE from the same read (bookableTrip), so a
 * suspension waits for the lock in flight. Share locks do not exclude each other: two locks of the
 * same seat meet on the exclusion constraint), so locks of different seats of one busy trip run side
 * by side, while locks naming the same seat queue (queueForSeats) and the next in line finds the
 * seat taken. A deadlock with another writer runs the lock again (withDeadlockRetry).
 */
export async function createSeatLock(
  db: Database,
  caller: SeatLockCaller,
  input: { tripId: string; seatNumbers: string[]; lockMinutes: number },
): Promise<PlacedSeatLock> {
  let trip: BookableTrip | undefined;
  let seats: LabelledSeat[] = [];
  try {
    return await withDeadlockRetry(() =>
      db.transaction(async (client) => {
        if (caller.caps) await lockActiveTraveller(client, caller.userId);
        trip = await bookableTrip(client, caller.scope, input.tripId, { share: true });
        requireAutomaticConfirmation(trip, caller.channel);
        seats = (await layoutSeats(client, trip.bus_id, input.seatNumbers)).sort((a, b) =>
          a.seat_id.localeCompare(b.seat_id),
        );
        const seatIds = seats.map((seat) => seat.seat_id);
        await queueForSeats(client, trip.id, seatIds);
        const own = await ownLiveLockOf(client, caller.userId, trip.id, seatIds);
        if (own) {
          return {
            seatLockSessionId: own.id,
            tripId: trip.id,
            seatNumbers: input.seatNumbers,
            expiresAt: new Date(own.expires_at).toISOString(),
            status: 'ACTIVE' as const,
            bookingId: null,
            created: false,
          };
        }
        await expireLapsedHolds(client, trip.id, seatIds);
        const taken = await occupiedLabels(client, trip, seats);
        if (taken.length) throw occupied(taken);
        // After the seats: those of the caller's own live lock are taken, not counted twice (held
        // and requested); the account's row is ours, so the cap still cannot be raced.
        if (caller.caps) {
          await requireSeatsWithinCaps(client, caller.userId, caller.caps, {
            tripId: trip.id,
            seats: seats.length,
          });
        }
        const id = randomUUID();
        const { rows } = await client.query<{ expires_at: string }>(
          `insert into hold_batches (id, scope_kind, scope_id, owner_user_id, expires_at, seat_numbers)
         values ($1, 'SEAT_LOCK', $1, $2, now() + $3 * interval '1 minute', $4) returning expires_at`,
          [id, caller.userId, input.lockMinutes, seats.map((seat) => seat.seat_number)],
        );
        await client.query(
          `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, expires_at, hold_batch_id,
                                       owner_kind, owner_id)
         select $1, seat_id, $2, $3, 'HELD', $4, $5, 'SEAT_LOCK', $5
         from unnest($6::text[]) as seat_id order by seat_id`,
          [trip.id, trip.first_sequence, trip.last_sequence, rows[0]!.expires_at, id, seatIds],
        );
        return {
          seatLockSessionId: id,
          tripId: trip.id,
          seatNumbers: input.seatNumbers,
          expiresAt: new Date(rows[0]!.expires_at).toISOString(),
          status: 'ACTIVE' as const,
          bookingId: null,
          created: true,
        };
      }),
    );
  } catch (error) {
    // A concurrent lock of the same seat committed first.
    if (pgCode(error) === PG_EXCLUSION_VIOLATION && trip) {
      throw occupied(await occupiedLabels(db.pool, trip, seats));
    }
    throw error;
  }
}

interface LockRow {
  id: string;
  owner_user_id: string | null;
  status: SeatLockStatus;
  expires_at: string;
  live: boolean;
  trip_id: string | null;
  seat_numbers: string[] | null;
  booking_id: string | null;
}

function toSeatLock(row: LockRow): SeatLock {
  return {
    seatLockSessionId: row.id,
    tripId: row.trip_id ?? '',
    seatNumbers: row.seat_numbers ?? [],
    expiresAt: new Date(row.expires_at).toISOString(),
    status: row.status === 'ACTIVE' && !row.live ? 'EXPIRED' : row.status,
    bookingId: row.booking_id,
  };
}

async function lockRow(q: Queryable, id: string, forUpdate: boolean): Promise<LockRow | undefined> {
  const { rows } = await q.query<LockRow>(
    `select b.id, b.owner_user_id, b.status, b.expires_at, b.expires_at > now() as live,
            (select a.trip_id from seat_allocations a where a.hold_batch_id = b.id limit 1) as trip_id,
            (select array_agg(coalesce(ls.seat_number, a.seat_id) order by coalesce(ls.seat_number, a.seat_id))
             from seat_allocations a
             join trips t on t.id = a.trip_id
             left join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
             left join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
             where a.hold_batch_id = b.id) as seat_numbers,
            (select k.id from bookings k where k.seat_lock_session_id = b.id) as booking_id
     from hold_batches b where b.id = $1 and b.scope_kind = 'SEAT_LOCK'${forUpdate ? ' for update of b' : ''}`,
    [id],
  );
  return rows[0];
}

const lockNotFound = () => new JourneyRefusal(404, 'SEAT_LOCK_NOT_FOUND', 'No such seat lock');

/** GET /seat-locks/{id}: the owner's lock; anyone else's (or none) is 404 SEAT_LOCK_NOT_FOUND. */
export async function readSeatLock(db: Database, userId: string, id: string): Promise<SeatLock> {
  const row = await lockRow(db.pool, id, false);
  if (!row || row.owner_user_id !== userId) throw lockNotFound();
  return toSeatLock(row);
}

/**
 * DELETE /seat-locks/{id}: frees the seats of an ACTIVE lock at once (batch and allocations
 * RELEASED; a lock past its time becomes EXPIRED instead). Idempotent: a lock already released
 * or expired answers its state. A consumed lock's seats belong to a booking: 409
 * SEAT_LOCK_CONSUMED (cancel the booking instead).
 */
export async function releaseSeatLock(db: Database, userId: string, id: string): Promise<SeatLock> {
  return db.transaction(async (client) => {
    const row = await lockRow(client, id, true);
    if (!row || row.owner_user_id !== userId) throw lockNotFound();
    if (row.status === 'CONSUMED') {
      throw new JourneyRefusal(409, 'SEAT_LOCK_CONSUMED', 'This seat lock was used for a booking', {
        booking_id: row.booking_id,
      });
    }
    if (row.status === 'ACTIVE') {
      const status = row.live ? 'RELEASED' : 'EXPIRED';
      await closeHoldBatch(client, id, status);
      return toSeatLock({ ...row, status });
    }
    return toSeatLock(row);
  });
}
