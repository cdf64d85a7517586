import { p } from '@mikro-orm/core';
import { TRIP_STATUSES } from '../../domain/trip-dispatch.js';
import { baseProperties, companyEntity, entity, tripFares } from './base.js';

/** The statuses of the dispatch state machine (domain/trip-dispatch.ts). */
export const TripStatus = TRIP_STATUSES;
export type TripStatus = (typeof TripStatus)[number];

export const Trip = companyEntity('Trip', 'trips', {
  routeId: p.uuid(),
  busId: p.uuid(),
  scheduleId: p.uuid().nullable(),
  driverId: p.uuid().nullable(),
  pickupStopId: p.uuid(),
  departureAt: p.datetime(),
  arrivalAt: p.datetime(),
  operatingDate: p.date(),
  ...tripFares(),
  seatsTotal: p.integer(),
  status: p.enum(TripStatus).default('SCHEDULED'),
  delayMinutes: p.integer().default(0),
  actualDepartureAt: p.datetime().nullable(),
  actualArrivalAt: p.datetime().nullable(),
});

/** The visit of one trip at one stop; its id is the stop_call_id travellers quote and book with. */
export const TripStopCall = entity('TripStopCall', 'trip_stop_calls', {
  id: baseProperties.id,
  tripId: p.uuid(),
  stopId: p.uuid(),
  cityId: p.uuid(),
  sequence: p.integer(),
  arrivalAt: p.datetime(),
  departureAt: p.datetime(),
  fareShareBp: p.integer(),
});
