import { p } from '@mikro-orm/core';
import type { ConflictView } from '../../domain/trip-conflicts.js';
import { baseEntity, entity } from './base.js';
import { stopAndCity } from './stop.js';
import { tripAssignment, tripFares } from './trip.js';

/** A route's ordered stops: running time from the previous stop, dwell and fare share (basis points). */
export const RouteStop = entity('RouteStop', 'route_stops', {
  routeId: p.uuid().primary(),
  sequence: p.integer().primary(),
  ...stopAndCity(),
  runningMinutes: p.integer(),
  dwellMinutes: p.integer().default(0),
  fareShareBp: p.integer(),
});

/** One committed series of trips (POST /dashboard/api/trip-schedules) and its workflow's progress. */
export const TripSchedule = baseEntity('TripSchedule', 'trip_schedules', {
  /** Order of the claims (identity): a schedule yields only to trips claimed before it. */
  claimOrder: p.bigint('number'),
  companyId: p.uuid(),
  ...tripAssignment(),
  startDate: p.date(),
  endDate: p.date(),
  departureTimes: p.array(),
  daysOfWeek: p.array<number>(Number, String).columnType('integer[]'),
  durationMinutes: p.integer(),
  ...tripFares(),
  notes: p.text().default(''),
  skipConflicts: p.boolean(),
  planFrom: p.datetime(),
  status: p.enum(['COMMITTING', 'COMPLETED', 'FAILED'] as const).default('COMMITTING'),
  batchSize: p.integer(),
  batchesTotal: p.integer(),
  batchesDone: p.integer().default(0),
  tripsPlanned: p.integer(),
  tripsCreated: p.integer().default(0),
  tripsSkipped: p.integer().default(0),
  conflicts: p.json<ConflictView[]>().defaultRaw(`'[]'`),
  /** Departures the claim found in conflict and skipped for good (skip_conflicts). */
  skippedDepartures: p.array().columnType('timestamptz[]').default([]),
  failureReason: p.text().nullable(),
  createdBy: p.uuid(),
  completedAt: p.datetime().nullable(),
});
