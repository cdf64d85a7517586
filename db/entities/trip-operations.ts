import { p } from '@mikro-orm/core';
import { SCAN_OUTCOMES } from '../../domain/boarding-scan.js';
import { DISPATCH_ACTIONS, DISPATCH_CHANNELS, MANIFEST_ITEM_TYPES } from '../../domain/trip-dispatch.js';
import { coordinates, entity, idEntity, stampedNow } from './base.js';
import { tripAndOperator } from './trip.js';

/**
 * The trip operations room's records: the operations log, the driver app's scans and its
 * position reports. The writes are db/writes/trip-operations (hand-written SQL in the one
 * transition transaction); the entities describe the tables.
 */
export const TripOperationEvent = entity('TripOperationEvent', 'trip_operation_events', {
  id: p.bigint('string').primary().autoincrement(),
  companyId: p.uuid(),
  tripId: p.uuid(),
  action: p.enum(DISPATCH_ACTIONS),
  /** The staff user who acted (staff_users.id). */
  actorId: p.uuid().nullable(),
  actorRole: p.text(),
  channel: p.enum(DISPATCH_CHANNELS),
  manifestItemType: p.enum(MANIFEST_ITEM_TYPES).nullable(),
  manifestItemId: p.uuid().nullable(),
  before: p.json<Record<string, unknown>>(),
  after: p.json<Record<string, unknown>>(),
  reason: p.text().nullable(),
  details: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
  createdAt: p.datetime().defaultRaw('clock_timestamp()'),
});

/** One driver app scan, kept under the app's client scan id with the answer it got. */
export const BoardingScan = idEntity('BoardingScan', 'boarding_scans', {
  companyId: p.uuid(),
  clientScanId: p.uuid(),
  tripId: p.uuid(),
  ticketId: p.uuid().nullable(),
  staffUserId: p.uuid(),
  deviceId: p.text().nullable(),
  requestHash: p.text(),
  outcome: p.enum(SCAN_OUTCOMES),
  reason: p.text().nullable(),
  response: p.json<Record<string, unknown>>(),
  scannedAt: p.datetime().nullable(),
  receivedAt: stampedNow(),
});

/** A position the driver app reported for a trip. */
export const TripPosition = entity('TripPosition', 'trip_positions', {
  id: p.bigint('string').primary().autoincrement(),
  ...tripAndOperator(),
  staffUserId: p.uuid(),
  recordedAt: p.datetime(),
  ...coordinates(),
  speedKmh: p.double().nullable(),
  heading: p.double().nullable(),
  accuracyM: p.double().nullable(),
  receivedAt: stampedNow(),
});
