import { p } from '@mikro-orm/core';
import { companyEntity } from './base.js';

export const Bus = companyEntity('Bus', 'buses', {
  plateNumber: p.text(),
  model: p.text().default(''),
  capacity: p.integer().default(0),
  amenities: p.json<string[]>().defaultRaw(`'[]'`),
  status: p.enum(['ACTIVE', 'MAINTENANCE', 'RETIRED'] as const).default('ACTIVE'),
  /** Imported before canonical layouts: seats are a count (capacity) until it gets a layout. */
  legacySeatMap: p.boolean().default(false),
});
