import { defineEntity, p } from '@mikro-orm/core';
import { baseProperties } from './base.js';

export const CompanyStatus = ['ACTIVE', 'SUSPENDED'] as const;

export const Company = defineEntity({
  name: 'Company',
  tableName: 'companies',
  properties: {
    ...baseProperties,
    nameAr: p.text(),
    nameEn: p.text(),
    slug: p.text(),
    status: p.enum(CompanyStatus).default('ACTIVE'),
    verified: p.boolean().default(false),
    published: p.boolean().default(false),
    isInternal: p.boolean().default(false),
    isDemo: p.boolean().default(false),
    phone: p.text().nullable(),
    email: p.text().nullable(),
  },
});
