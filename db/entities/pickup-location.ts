import { p } from '@mikro-orm/core';
import { baseEntity } from './base.js';
import { stopAndCity } from './stop.js';

/** A stop a company offers as a pickup point in a city (null company: a shared public point). */
export const PickupLocation = baseEntity('PickupLocation', 'pickup_locations', {
  companyId: p.uuid().nullable(),
  ...stopAndCity(),
  isPublic: p.boolean().default(true),
  enabled: p.boolean().default(true),
});
