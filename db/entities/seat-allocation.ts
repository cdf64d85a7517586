import { p } from '@mikro-orm/core';
import { baseEntity } from './base.js';

export const SeatAllocationStatus = ['HELD', 'CONFIRMED', 'RELEASED', 'EXPIRED'] as const;

/** One seat of one trip taken on the stop-call interval [boardSequence, alightSequence). */
export const SeatAllocation = baseEntity('SeatAllocation', 'seat_allocations', {
  tripId: p.uuid(),
  seatId: p.text(),
  boardSequence: p.integer(),
  alightSequence: p.integer(),
  status: p.enum(SeatAllocationStatus),
  expiresAt: p.datetime().nullable(),
  holdBatchId: p.uuid().nullable(),
  ownerKind: p.enum(['JOURNEY', 'BOOKING', 'SEAT_LOCK'] as const).default('JOURNEY'),
  ownerId: p.uuid().nullable(),
  releasedAt: p.datetime().nullable(),
});
