import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { roundTripProblem, ROUND_TRIP_PROBLEM_TEXT, type TripEnds } from '../../../domain/booking.js';
import type { Database } from '../../orm.js';
import type { SigningOptions } from '../boarding-credentials.js';
import { lockActiveTraveller, requireUnpaidWithinCap } from '../inventory-caps.js';
import { JourneyRefusal } from '../journeys/index.js';
import type { BookableTrip } from '../seat-locks.js';
import {
  applyVoucher,
  lineOf,
  linesToPay,
  lineTotal,
  shareLockTrips,
  tripsOfSeatLocks,
  signerOf,
  writeLine,
  type BookingCaller,
  type Line,
  type PassengerInput,
} from './line.js';
import { bookingOfLock, bookingRecords, type BookingRecord } from './records.js';
import { lockSeatLocks, type LockedLock } from './seat-lock.js';

/** POST /bookings/round-trip (SPEC "Bookings"): both directions in one transaction, all or nothing. */

export interface RoundTripInput extends PassengerInput {
  outboundSeatLockSessionId: string;
  returnSeatLockSessionId: string;
}

export interface CreatedRoundTrip {
  orderId: string;
  outbound: BookingRecord;
  inbound: BookingRecord;
  created: boolean;
}

const endsOf = (trip: BookableTrip): TripEnds => ({
  originCityId: trip.origin_city_id,
  destinationCityId: trip.destination_city_id,
  departureAt: new Date(trip.departure_at),
  arrivalAt: new Date(trip.arrival_at),
});

/** A retry: both locks consumed by one round trip of this traveller. */
async function existingRoundTrip(
  client: PoolClient,
  input: RoundTripInput,
): Promise<CreatedRoundTrip | null> {
  const outbound = await bookingOfLock(client, input.outboundSeatLockSessionId);
  const inbound = await bookingOfLock(client, input.returnSeatLockSessionId);
  if (!outbound?.order_id || outbound.order_id !== inbound?.order_id) return null;
  return { orderId: outbound.order_id, outbound, inbound, created: false };
}

/**
 * Both locks, locked in id order so two requests naming the same locks never deadlock, and the
 * write time read once they are held, at which their ends are judged (lockSeatLocks).
 */
async function lockBoth(
  client: PoolClient,
  userId: string,
  input: RoundTripInput,
): Promise<{ both: [outbound: LockedLock, inbound: LockedLock]; at: string }> {
  const ids = [input.outboundSeatLockSessionId, input.returnSeatLockSessionId];
  const { locks, at } = await lockSeatLocks(client, userId, ids);
  return { both: [locks.get(ids[0]!)!, locks.get(ids[1]!)!], at };
}

function requireRoundTrip(outbound: Line, inbound: Line): void {
  const problem = roundTripProblem(endsOf(outbound.trip), endsOf(inbound.trip));
  if (problem) {
    throw new JourneyRefusal(409, problem, ROUND_TRIP_PROBLEM_TEXT[problem], {
      outbound_trip_id: outbound.trip.id,
      return_trip_id: inbound.trip.id,
    });
  }
}

/** The journey order (CONFIRMED at `at`) that holds both journeys, at the total after the voucher. */
async function insertOrder(
  client: PoolClient,
  caller: BookingCaller,
  lines: Line[],
  at: string,
): Promise<string> {
  const orderId = randomUUID();
  const total = lines.reduce((sum, line) => sum + lineTotal(line), 0);
  await client.query(
    `insert into journey_orders (id, owner_user_id, passenger_id, channel, status, total_price, currency, confirmed_at)
       select $1, u.id, u.passenger_id, $2, 'CONFIRMED', $3, $4, $6::timestamptz from users u where u.id = $5`,
    [orderId, caller.channel, total, lines[0]!.trip.currency, caller.userId, at],
  );
  return orderId;
}

/**
 * A journey order (CONFIRMED) holding two single-leg journeys and two bookings rows. One voucher
 * applies to the total of both; its discount is split across the two bookings (each row keeps its
 * part). Both bookings count against UNPAID_BOOKINGS_MAX (caller.caps).
 */
export async function createRoundTrip(
  db: Database,
  caller: BookingCaller,
  input: RoundTripInput,
  signing: SigningOptions = {},
): Promise<CreatedRoundTrip> {
  return db.transaction(async (client) => {
    if (caller.caps) await lockActiveTraveller(client, caller.userId);
    const lockIds = [input.outboundSeatLockSessionId, input.returnSeatLockSessionId];
    await shareLockTrips(client, await tripsOfSeatLocks(client, lockIds));
    const {
      both: [outboundLock, returnLock],
      at,
    } = await lockBoth(client, caller.userId, input);
    if (outboundLock.status === 'CONSUMED' && returnLock.status === 'CONSUMED') {
      const existing = await existingRoundTrip(client, input);
      if (existing) return existing;
    }
    const outbound = await lineOf(client, caller, outboundLock);
    const inbound = await lineOf(client, caller, returnLock);
    requireRoundTrip(outbound, inbound);
    const lines = [outbound, inbound];
    const redemptionId = await applyVoucher(client, caller, input.rewardCode, lines);
    if (caller.caps) await requireUnpaidWithinCap(client, caller.userId, caller.caps, linesToPay(lines));
    const orderId = await insertOrder(client, caller, lines, at);
    const signer = await signerOf(client, signing, at);
    for (const line of lines)
      await writeLine(client, caller, line, input, { orderId, redemptionId, signer, at });
    const records = await bookingRecords(client, [outbound.bookingId, inbound.bookingId]);
    return {
      orderId,
      outbound: records.find((record) => record.id === outbound.bookingId)!,
      inbound: records.find((record) => record.id === inbound.bookingId)!,
      created: true,
    };
  });
}
