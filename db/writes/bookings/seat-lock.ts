import type { PoolClient } from 'pg';
import { seatLockRefusal, type SeatLockStatus } from '../../../domain/booking.js';
import { JourneyRefusal } from '../journeys/index.js';
import { writeTime } from '../write-time.js';

/** The seat locks a booking consumes: the hold batches, locked, and the seats they still hold. */

interface LockedSeat {
  trip_id: string;
  seat_id: string;
  seat_number: string;
  seat_class: 'STANDARD' | 'VIP';
}

export interface LockedLock {
  id: string;
  status: SeatLockStatus;
  live: boolean;
  seats: LockedSeat[];
  /** The labels the lock answered, in seat-id order (null for a lock made before they were kept). */
  answeredLabels: string[] | null;
}

interface LockBatchRow {
  owner_user_id: string | null;
  status: SeatLockStatus;
  seat_numbers: string[] | null;
}

/** A refusal about this lock, with its id in the details. */
export const lockRefusal = (lockId: string, refusal: { code: string; message: string }) =>
  new JourneyRefusal(409, refusal.code, refusal.message, { seat_lock_session_id: lockId });

/** Locks the batch (FOR UPDATE); another traveller's lock is 404. */
async function lockBatchRow(client: PoolClient, userId: string, id: string): Promise<LockBatchRow> {
  const { rows } = await client.query<LockBatchRow>(
    `select owner_user_id, status, seat_numbers from hold_batches
       where id = $1 and scope_kind = 'SEAT_LOCK' for update`,
    [id],
  );
  const batch = rows[0];
  if (!batch || batch.owner_user_id !== userId) {
    throw new JourneyRefusal(404, 'SEAT_LOCK_NOT_FOUND', 'No such seat lock', { seat_lock_session_id: id });
  }
  return batch;
}

/** The lock's held seats, each with whether the lock's time is not yet out at `at` (`live`). */
async function heldSeats(client: PoolClient, id: string, at: string) {
  const { rows } = await client.query<LockedSeat & { live: boolean }>(
    `select a.trip_id, a.seat_id, coalesce(ls.seat_number, a.seat_id) as seat_number,
            coalesce(ls.seat_class, 'STANDARD') as seat_class, b.expires_at > $2::timestamptz as live
     from seat_allocations a
     join hold_batches b on b.id = a.hold_batch_id
     join trips t on t.id = a.trip_id
     left join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
     left join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
     where a.hold_batch_id = $1 and a.status = 'HELD'
     order by a.seat_id`,
    [id, at],
  );
  return rows;
}

/**
 * The seat locks a booking consumes (one, or a round trip's two; `ids`), each batch locked FOR
 * UPDATE in id order so two requests naming the same locks never deadlock, then the booking's write
 * time, read once they are held (`at`: what the booking stamps everything it writes with), then
 * each lock's held seats. A lock's time is judged at that same instant (`live`; a lock with no seat
 * held is not live): a booking that waited past a lock's end finds it expired (409
 * SEAT_LOCK_EXPIRED), never confirmed after it. Another traveller's lock is 404.
 */
export async function lockSeatLocks(
  client: PoolClient,
  userId: string,
  ids: string[],
): Promise<{ locks: Map<string, LockedLock>; at: string }> {
  const batches = new Map<string, LockBatchRow>();
  for (const id of [...ids].sort()) batches.set(id, await lockBatchRow(client, userId, id));
  const at = await writeTime(client);
  const locks = new Map<string, LockedLock>();
  for (const [id, batch] of batches) {
    const rows = await heldSeats(client, id, at);
    const seats = rows.map(({ live: _live, ...seat }) => seat);
    const live = rows[0]?.live ?? false;
    locks.set(id, { id, status: batch.status, live, seats, answeredLabels: batch.seat_numbers });
  }
  return { locks, at };
}

/** A lock that can still be booked: ACTIVE, not expired, every seat still held. */
export function requireUsable(lock: LockedLock): void {
  const refusal = seatLockRefusal({ status: lock.status, live: lock.live, heldSeats: lock.seats.length });
  if (refusal) throw lockRefusal(lock.id, refusal);
}
