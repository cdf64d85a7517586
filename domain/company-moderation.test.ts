import { describe, expect, it } from 'vitest';
import {
  applyCompanyAction,
  companyAuditAction,
  suspensionDecisionKey,
  type CompanyAction,
  type CompanyStanding,
} from './company-moderation.js';

const active = { status: 'ACTIVE', verified: true } as const satisfies CompanyStanding;
const suspended = { status: 'SUSPENDED', verified: true } as const satisfies CompanyStanding;
const unverified = { status: 'ACTIVE', verified: false } as const satisfies CompanyStanding;

describe('company actions', () => {
  it.each<[CompanyAction, CompanyStanding, CompanyStanding]>([
    ['WARN', active, active],
    ['WARN', suspended, suspended],
    ['SUSPEND', active, suspended],
    ['SUSPEND', unverified, { status: 'SUSPENDED', verified: false }],
    ['UNSUSPEND', suspended, active],
    ['VERIFY', unverified, active],
    ['UNVERIFY', active, unverified],
    ['UNVERIFY', suspended, { status: 'SUSPENDED', verified: false }],
  ])('%s of %j leaves %j', (action, before, after) => {
    expect(applyCompanyAction(before, action)).toEqual(after);
  });

  it.each<[CompanyAction, CompanyStanding, string]>([
    ['SUSPEND', suspended, 'COMPANY_ALREADY_SUSPENDED'],
    ['UNSUSPEND', active, 'COMPANY_NOT_SUSPENDED'],
    ['VERIFY', active, 'COMPANY_ALREADY_VERIFIED'],
    ['UNVERIFY', unverified, 'COMPANY_NOT_VERIFIED'],
  ])('%s of %j is refused with 409 %s', (action, before, code) => {
    expect(() => applyCompanyAction(before, action)).toThrow(expect.objectContaining({ status: 409, code }));
  });

  it('names the audit action and the fixed key of a suspension decision', () => {
    expect(companyAuditAction('UNSUSPEND')).toBe('companies.unsuspend');
    expect(suspensionDecisionKey('r', 'c')).toBe('r:c:SUSPENDED');
  });
});
