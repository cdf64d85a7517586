import type { PoolClient } from 'pg';
import { seatLockRefusal, type SeatLockStatus } from '../../../domain/booking.js';
import { JourneyRefusal } from '../journeys/index.js';

/** The seat lock a booking consumes: the hold batch, locked, and the seats it still holds. */

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
  live: boolean;
  seat_numbers: string[] | null;
}

/** A refusal about this lock, with its id in the details. */
export const lockRefusal = (lockId: string, refusal: { code: string; message: string }) =>
  new JourneyRefusal(409, refusal.code, refusal.message, { seat_lock_session_id: lockId });

/** Locks the batch (FOR UPDATE) and reads its held seats; another traveller's lock is 404. */
export async function lockSeatLock(client: PoolClient, userId: string, id: string): Promise<LockedLock> {
  const { rows } = await client.query<LockBatchRow>(
    `select owner_user_id, status, expires_at > now() as live, seat_numbers from hold_batches
       where id = $1 and scope_kind = 'SEAT_LOCK' for update`,
    [id],
  );
  const batch = rows[0];
  if (!batch || batch.owner_user_id !== userId) {
    throw new JourneyRefusal(404, 'SEAT_LOCK_NOT_FOUND', 'No such seat lock', { seat_lock_session_id: id });
  }
  const { rows: seats } = await client.query<LockedSeat>(
    `select a.trip_id, a.seat_id, coalesce(ls.seat_number, a.seat_id) as seat_number,
            coalesce(ls.seat_class, 'STANDARD') as seat_class
     from seat_allocations a
     join trips t on t.id = a.trip_id
     left join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
     left join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
     where a.hold_batch_id = $1 and a.status = 'HELD'
     order by a.seat_id`,
    [id],
  );
  return { id, status: batch.status, live: batch.live, seats, answeredLabels: batch.seat_numbers };
}

/** A lock that can still be booked: ACTIVE, not expired, every seat still held. */
export function requireUsable(lock: LockedLock): void {
  const refusal = seatLockRefusal({ status: lock.status, live: lock.live, heldSeats: lock.seats.length });
  if (refusal) throw lockRefusal(lock.id, refusal);
}
