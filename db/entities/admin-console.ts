import { p } from '@mikro-orm/core';
import { COMPANY_ACTIONS, type CompanyStanding } from '../../domain/company-moderation.js';
import { INCIDENT_SEVERITIES, INCIDENT_STATUSES } from '../../domain/incidents.js';
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../../domain/support-tickets.js';
import {
  baseEntity,
  companyEntity,
  entity,
  lastSaved,
  stampedAtWrite,
  stampedNow,
  updatedAt,
  updatedAtWrite,
} from './base.js';

/**
 * The administration console's tables (Migration20261124050000_admin_console): company history,
 * feature flags and the version counters the API's caches poll, incidents, maintenance windows,
 * the pre-launch waitlist and support tickets.
 */

/**
 * One warning, suspension, unsuspension or verification change of a company, as it happened;
 * created_at is when the row was written, after the company's lock (Migration20261205030000).
 */
export const CompanyAdminAction = companyEntity('CompanyAdminAction', 'company_admin_actions', {
  createdAt: stampedAtWrite(),
  action: p.enum(COMPANY_ACTIONS),
  reason: p.text(),
  adminId: p.uuid().nullable(),
  standingBefore: p.json<CompanyStanding>(),
  standingAfter: p.json<CompanyStanding>(),
});

/** A value an operator set; flags without a row have their catalogue default. */
export const FeatureFlag = entity('FeatureFlag', 'feature_flags', {
  key: p.text().primary(),
  enabled: p.boolean(),
  ...lastSaved(),
});

/** A change counter per cached platform state; the changing transaction bumps it. */
export const PlatformStateVersion = entity('PlatformStateVersion', 'platform_state_versions', {
  name: p.enum(['feature_flags', 'maintenance', 'company_standing'] as const).primary(),
  version: p.bigint('number').default(0),
});

export const Incident = baseEntity('Incident', 'incidents', {
  title: p.text(),
  description: p.text().default(''),
  severity: p.enum(INCIDENT_SEVERITIES),
  status: p.enum(INCIDENT_STATUSES).default('INVESTIGATING'),
  resolution: p.text().nullable(),
  startedAt: stampedNow(),
  resolvedAt: p.datetime().nullable(),
  createdBy: p.uuid().nullable(),
  updatedAt: updatedAt(),
});

export const MaintenanceWindowEntity = baseEntity('MaintenanceWindow', 'maintenance_windows', {
  message: p.text(),
  startsAt: p.datetime(),
  endsAt: p.datetime(),
  cancelledAt: p.datetime().nullable(),
  createdBy: p.uuid().nullable(),
  updatedAt: updatedAt(),
});

/** A pre-launch sign-up: the (lower-case) e-mail address and when; nothing more is kept. */
export const WaitlistEntry = baseEntity('WaitlistEntry', 'waitlist_entries', {
  email: p.text(),
});

export const SupportTicket = baseEntity('SupportTicket', 'support_tickets', {
  subject: p.text(),
  status: p.enum(TICKET_STATUSES).default('OPEN'),
  priority: p.enum(TICKET_PRIORITIES).default('NORMAL'),
  openedByKind: p.enum(['TRAVELLER', 'ADMIN'] as const),
  openedBy: p.uuid(),
  travellerUserId: p.uuid().nullable(),
  companyId: p.uuid().nullable(),
  bookingId: p.uuid().nullable(),
  assigneeAdminId: p.uuid().nullable(),
  resolution: p.text().nullable(),
  closedAt: p.datetime().nullable(),
  /** When the ticket last changed, as written (after its lock): orders support's list. */
  updatedAt: updatedAtWrite(),
});

/** A ticket's message; created_at is when it was written, after the ticket's lock: messages keep their order. */
export const SupportTicketMessage = baseEntity('SupportTicketMessage', 'support_ticket_messages', {
  createdAt: stampedAtWrite(),
  ticketId: p.uuid(),
  authorKind: p.enum(['TRAVELLER', 'ADMIN'] as const),
  authorId: p.uuid(),
  body: p.text(),
});
