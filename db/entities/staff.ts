import { p } from '@mikro-orm/core';
import { STAFF_SESSION_SURFACES, TEAM_ROLES } from '../../domain/team.js';
import { baseEntity, entity, passwordAccount, serverSessionProperties } from './base.js';
import { Company } from './company.js';

/** Company staff: accounts, their role in each company, and server-side dashboard sessions. */
export const MembershipRole = TEAM_ROLES;

export const StaffUser = baseEntity('StaffUser', 'staff_users', {
  ...passwordAccount(),
});

export const CompanyMembership = baseEntity('CompanyMembership', 'company_memberships', {
  company: () => p.manyToOne(Company).ref(),
  staffUser: () => p.manyToOne(StaffUser).ref(),
  role: p.enum(MembershipRole),
  active: p.boolean().default(true),
});

export const StaffSession = entity('StaffSession', 'staff_sessions', {
  ...serverSessionProperties(),
  staffUser: () => p.manyToOne(StaffUser).ref(),
  /** The membership (company and role) the session acts with. */
  membership: () => p.manyToOne(CompanyMembership).ref(),
  /** Where it was signed in: the dashboard takes only DASHBOARD sessions, the driver app both. */
  surface: p.enum(STAFF_SESSION_SURFACES).default('DASHBOARD'),
});
