import { p } from '@mikro-orm/core';
import { bilingualName, companyEntity } from './base.js';

export const Route = companyEntity('Route', 'routes', {
  originCityId: p.uuid(),
  destinationCityId: p.uuid(),
  ...bilingualName(),
  distanceKm: p.integer().nullable(),
  active: p.boolean().default(true),
});
