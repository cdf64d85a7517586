import { defineEntity, p } from '@mikro-orm/core';
import { baseProperties } from './base.js';

export const Bus = defineEntity({
  name: 'Bus',
  tableName: 'buses',
  properties: {
    ...baseProperties,
    companyId: p.uuid(),
    plateNumber: p.text(),
    model: p.text().default(''),
    capacity: p.integer().default(0),
    amenities: p.json<string[]>().defaultRaw(`'[]'`),
    status: p.enum(['ACTIVE', 'MAINTENANCE', 'RETIRED'] as const).default('ACTIVE'),
    /** Imported before canonical layouts: seats are a count (capacity) until it gets a layout. */
    legacySeatMap: p.boolean().default(false),
  },
});
