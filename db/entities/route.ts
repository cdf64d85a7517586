import { p } from '@mikro-orm/core';
import { baseEntity, bilingualName } from './base.js';

export const Route = baseEntity('Route', 'routes', {
  companyId: p.uuid(),
  originCityId: p.uuid(),
  destinationCityId: p.uuid(),
  ...bilingualName(),
  distanceKm: p.integer().nullable(),
  active: p.boolean().default(true),
});
