import {
  DispatchRefusal,
  refuseUnassigned,
  TRACKED_STATUSES,
  tripNotFound,
  type TripStatus,
} from '../../../domain/trip-dispatch.js';
import { plausibleClientInstant, refuseImplausibleClientInstant } from '../../../domain/trip-tracking.js';
import type { Database, TransactionClient } from '../../orm.js';
import { companyTransaction } from '../active-company.js';
import { lockActingMember, type ActingMember } from '../acting-member.js';
import { columnsOf } from '../../row-fields.js';

/**
 * POST /driver/api/trips/{id}/positions: a batch of positions the driver app reports (queued
 * offline, sent when the network is back). One position per trip and instant: a batch sent again
 * adds nothing, however late (an instant already stored counts as a duplicate whatever its age; a new
 * one must be within the client-clock range of domain/trip-tracking.ts). Reports are taken while the trip is not over (TRACKED_STATUSES).
 */
export interface PositionReport {
  latitude: number;
  longitude: number;
  speedKmh: number | null;
  heading: number | null;
  accuracyM: number | null;
  recordedAt: Date;
}

interface PositionsInput {
  companyId: string;
  tripId: string;
  /** The driver app's signed-in user, read again under the company lock as a scan reads them. */
  actor: ActingMember;
  positions: PositionReport[];
}

export async function recordPositions(
  db: Database,
  input: PositionsInput,
): Promise<{ accepted: number; duplicates: number }> {
  // The company first (db/writes/active-company.ts): none after its suspension (README: a suspended
  // company's positions are 403 COMPANY_SUSPENDED).
  return companyTransaction(db, input.companyId, 'share', async (client) => {
    const role = await lockActingMember(client, input.companyId, input.actor);
    return insertPositions(client, { ...input, actor: { staffUserId: input.actor.staffUserId, role } });
  });
}

async function insertPositions(
  client: Pick<TransactionClient, 'query'>,
  input: Omit<PositionsInput, 'actor'> & { actor: { staffUserId: string; role: string } },
): Promise<{ accepted: number; duplicates: number }> {
  const { rows: found } = await client.query<{
    company_id: string;
    driver_id: string | null;
    status: TripStatus;
  }>('select company_id, driver_id, status from trips where id = $1', [input.tripId]);
  const trip = found[0];
  if (trip?.company_id !== input.companyId) throw tripNotFound();
  refuseUnassigned(input.actor, trip.driver_id);
  if (!TRACKED_STATUSES.includes(trip.status)) {
    throw new DispatchRefusal(
      409,
      'TRIP_NOT_TRACKED',
      `The trip is ${trip.status}; positions are no longer taken`,
      {
        status: trip.status,
      },
    );
  }
  const positions = await newPositionsInRange(client, input.tripId, input.positions);
  const { rows } = await client.query<{ id: string }>(
    `insert into trip_positions (trip_id, company_id, staff_user_id, recorded_at, latitude, longitude, speed_kmh, heading,
                                 accuracy_m)
     select $1, $2, $3, p.recorded_at, p.latitude, p.longitude, p.speed_kmh, p.heading, p.accuracy_m
     from unnest($4::timestamptz[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[])
       as p(recorded_at, latitude, longitude, speed_kmh, heading, accuracy_m)
     on conflict (trip_id, recorded_at) do nothing
     returning id`,
    [
      input.tripId,
      input.companyId,
      input.actor.staffUserId,
      ...columnsOf(positions, ['recordedAt', 'latitude', 'longitude', 'speedKmh', 'heading', 'accuracyM']),
    ],
  );
  return { accepted: rows.length, duplicates: input.positions.length - rows.length };
}

/**
 * The reports to insert: those at an instant the server believes (plausibleClientInstant). One outside
 * that range the trip already has stored (a batch replayed however late) is left out, a duplicate; one it
 * does not have refuses the whole batch 400 POSITION_TIME_OUT_OF_RANGE, nothing stored.
 */
async function newPositionsInRange(
  client: Pick<TransactionClient, 'query'>,
  tripId: string,
  positions: PositionReport[],
): Promise<PositionReport[]> {
  const now = new Date();
  const inRange = positions.filter((position) => plausibleClientInstant(position.recordedAt, now));
  if (inRange.length === positions.length) return positions;
  const outOfRange = positions.filter((position) => !inRange.includes(position));
  const { rows } = await client.query<{ recorded_at: Date }>(
    'select recorded_at from trip_positions where trip_id = $1 and recorded_at = any($2::timestamptz[])',
    [tripId, outOfRange.map((position) => position.recordedAt)],
  );
  const stored = new Set(rows.map((row) => new Date(row.recorded_at).getTime()));
  const unknown = outOfRange.find((position) => !stored.has(position.recordedAt.getTime()));
  if (unknown) refuseImplausibleClientInstant(unknown.recordedAt, now, 'POSITION_TIME_OUT_OF_RANGE');
  return inRange;
}
