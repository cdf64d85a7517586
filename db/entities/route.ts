import { defineEntity, p } from '@mikro-orm/core';
import { baseProperties, bilingualName } from './base.js';

export const Route = defineEntity({
  name: 'Route',
  tableName: 'routes',
  properties: {
    ...baseProperties,
    companyId: p.uuid(),
    originCityId: p.uuid(),
    destinationCityId: p.uuid(),
    ...bilingualName(),
    distanceKm: p.integer().nullable(),
    active: p.boolean().default(true),
  },
});
