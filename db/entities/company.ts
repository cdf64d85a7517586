import { p } from '@mikro-orm/core';
import { BOOKING_CHANNELS } from '../../domain/journey-confirmation.js';
import { baseEntity, bilingualName, contactDetails, entity, lastSaved } from './base.js';

export const CompanyStatus = ['ACTIVE', 'SUSPENDED'] as const;

export const Company = baseEntity('Company', 'companies', {
  ...bilingualName(),
  slug: p.text(),
  status: p.enum(CompanyStatus).default('ACTIVE'),
  verified: p.boolean().default(false),
  published: p.boolean().default(false),
  isInternal: p.boolean().default(false),
  isDemo: p.boolean().default(false),
  ...contactDetails(),
});

/**
 * A company's booking confirmation settings (SPEC "Booking confirmation settings"); a company
 * without a row confirms every booking at once. Saved by the dashboard through the EntityManager.
 */
export const CompanyBookingSettings = entity('CompanyBookingSettings', 'company_booking_settings', {
  companyId: p.uuid().primary(),
  mode: p.enum(['AUTO_CONFIRM', 'MANUAL_CONFIRM'] as const).default('AUTO_CONFIRM'),
  decisionWindowMinutes: p.integer().default(15),
  /** The channels the mode applies to, a non-empty set kept in BOOKING_CHANNELS order. */
  channels: p
    .enum(BOOKING_CHANNELS)
    .array()
    .default([...BOOKING_CHANNELS]),
  ...lastSaved(),
});
