import { defineEntity, p } from '@mikro-orm/core';
import { baseProperties } from './base.js';

export const City = defineEntity({
  name: 'City',
  tableName: 'cities',
  properties: {
    ...baseProperties,
    nameAr: p.text(),
    nameEn: p.text(),
    latitude: p.double(),
    longitude: p.double(),
  },
});
