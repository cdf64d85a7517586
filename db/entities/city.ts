import { defineEntity } from '@mikro-orm/core';
import { baseProperties, bilingualName, coordinates } from './base.js';

export const City = defineEntity({
  name: 'City',
  tableName: 'cities',
  properties: {
    ...baseProperties,
    ...bilingualName(),
    ...coordinates(),
  },
});
