import { p } from '@mikro-orm/core';
import type { LayoutDocument, LayoutIssue } from '../../domain/seat-layout.js';
import { baseEntity, entity } from './base.js';

export const BusLayout = baseEntity('BusLayout', 'bus_layouts', {
  busId: p.uuid(),
  version: p.integer(),
  status: p.enum(['draft', 'active', 'archived'] as const),
  validationStatus: p.enum(['valid', 'invalid', 'pending'] as const),
  validationErrors: p.json<LayoutIssue[]>().defaultRaw(`'[]'`),
  document: p.json<LayoutDocument>(),
  seatCount: p.integer(),
  activatedAt: p.datetime().nullable(),
});

/** Derived projection of a layout's seats; written only when a layout is saved. */
export const LayoutSeat = entity('LayoutSeat', 'layout_seats', {
  layoutId: p.uuid().primary(),
  seatId: p.text().primary(),
  seatNumber: p.text(),
  deck: p.integer().default(1),
  seatClass: p.enum(['STANDARD', 'VIP'] as const).default('STANDARD'),
});
