import { defineEntity, p } from '@mikro-orm/core';
import { baseProperties } from './base.js';

export const Route = defineEntity({
  name: 'Route',
  tableName: 'routes',
  properties: {
    ...baseProperties,
    companyId: p.uuid(),
    originCityId: p.uuid(),
    destinationCityId: p.uuid(),
    nameAr: p.text(),
    nameEn: p.text(),
    distanceKm: p.integer().nullable(),
    active: p.boolean().default(true),
  },
});
