import { p } from '@mikro-orm/core';
import { TRIP_STATUSES } from '../../domain/trip-dispatch.js';
import { companyEntity, idEntity } from './base.js';
import { stopAndCity } from './stop.js';

/** The statuses of the dispatch state machine (domain/trip-dispatch.ts). */
export const TripStatus = TRIP_STATUSES;
export type TripStatus = (typeof TripStatus)[number];

/**
 * A trip's fares (price_base, the optional price_vip) and their currency; a trip schedule carries
 * the fares of the trips it makes.
 */
export const tripFares = () => ({
  priceBase: p.bigint('number'),
  priceVip: p.bigint('number').nullable(),
  currency: p.text().default('SYP'),
});

/**
 * The route a trip runs, the bus and driver assigned to it and the stop travellers board at; a trip
 * schedule carries them for the trips it makes.
 */
export const tripAssignment = () => ({
  routeId: p.uuid(),
  busId: p.uuid(),
  driverId: p.uuid().nullable(),
  pickupStopId: p.uuid(),
});

/**
 * The trip a row belongs to and the company that runs it: company_id is the trip's, copied onto
 * the row so that a company's reads filter on it without joining trips.
 */
export const tripAndOperator = () => ({
  tripId: p.uuid(),
  companyId: p.uuid(),
});

export const Trip = companyEntity('Trip', 'trips', {
  ...tripAssignment(),
  scheduleId: p.uuid().nullable(),
  departureAt: p.datetime(),
  arrivalAt: p.datetime(),
  operatingDate: p.date(),
  ...tripFares(),
  seatsTotal: p.integer(),
  status: p.enum(TripStatus).default('SCHEDULED'),
  delayMinutes: p.integer().default(0),
  actualDepartureAt: p.datetime().nullable(),
  actualArrivalAt: p.datetime().nullable(),
  /**
   * The loyalty terms the trip's COMPLETE settled (db/writes/loyalty/earn.ts settleTripEarning): what
   * its bookings earn, however often COMPLETE is replayed. Null: not completed, or completed while
   * the programme was off, earning nothing.
   */
  earningPointsPer100: p.integer().fieldName('earning_points_per_100').nullable(),
  earningReferralPoints: p.integer().nullable(),
});

/** The visit of one trip at one stop; its id is the stop_call_id travellers quote and book with. */
export const TripStopCall = idEntity('TripStopCall', 'trip_stop_calls', {
  tripId: p.uuid(),
  ...stopAndCity(),
  sequence: p.integer(),
  arrivalAt: p.datetime(),
  departureAt: p.datetime(),
  fareShareBp: p.integer(),
});
