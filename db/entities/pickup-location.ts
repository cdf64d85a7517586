import { defineEntity, p } from '@mikro-orm/core';
import { baseProperties } from './base.js';

/** A stop a company offers as a pickup point in a city (null company: a shared public point). */
export const PickupLocation = defineEntity({
  name: 'PickupLocation',
  tableName: 'pickup_locations',
  properties: {
    ...baseProperties,
    companyId: p.uuid().nullable(),
    cityId: p.uuid(),
    stopId: p.uuid(),
    isPublic: p.boolean().default(true),
    enabled: p.boolean().default(true),
  },
});
