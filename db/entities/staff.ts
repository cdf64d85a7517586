import { defineEntity, p } from '@mikro-orm/core';
import { baseProperties, passwordAccount, serverSessionProperties } from './base.js';
import { Company } from './company.js';

/** Company staff: accounts, their role in each company, and server-side dashboard sessions. */
export const MembershipRole = ['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT', 'DRIVER'] as const;

export const StaffUser = defineEntity({
  name: 'StaffUser',
  tableName: 'staff_users',
  properties: {
    ...baseProperties,
    ...passwordAccount(),
  },
});

export const CompanyMembership = defineEntity({
  name: 'CompanyMembership',
  tableName: 'company_memberships',
  properties: {
    ...baseProperties,
    company: () => p.manyToOne(Company).ref(),
    staffUser: () => p.manyToOne(StaffUser).ref(),
    role: p.enum(MembershipRole),
    active: p.boolean().default(true),
  },
});

export const StaffSession = defineEntity({
  name: 'StaffSession',
  tableName: 'staff_sessions',
  properties: {
    ...serverSessionProperties(),
    staffUser: () => p.manyToOne(StaffUser).ref(),
    /** The membership (company and role) the session acts with. */
    membership: () => p.manyToOne(CompanyMembership).ref(),
  },
});
