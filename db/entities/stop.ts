import { p } from '@mikro-orm/core';
import { baseEntity, bilingualName, coordinates } from './base.js';

export const StopKind = ['BUS_STATION', 'PARKING_POINT', 'AIRPORT', 'BOARDING_POINT', 'DEPOT'] as const;
export type StopKind = (typeof StopKind)[number];
/** Kinds a traveller may see; depots are operational only. */
export const PublicStopKinds: readonly StopKind[] = [
  'BUS_STATION',
  'PARKING_POINT',
  'AIRPORT',
  'BOARDING_POINT',
];

/**
 * The stop a row calls at or offers and the stop's city, copied onto the row so that reads by city
 * (search, pickup points) need no join to stops.
 */
export const stopAndCity = () => ({
  stopId: p.uuid(),
  cityId: p.uuid(),
});

export const Stop = baseEntity('Stop', 'stops', {
  cityId: p.uuid(),
  companyId: p.uuid().nullable(),
  kind: p.enum(StopKind),
  ...bilingualName(),
  addressAr: p.text().default(''),
  addressEn: p.text().default(''),
  directionsAr: p.text().default(''),
  directionsEn: p.text().default(''),
  ...coordinates(),
  enabled: p.boolean().default(true),
});
