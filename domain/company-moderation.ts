import { Refusal } from './refusal.js';

/**
 * What an administrator may do to a company's standing (SPEC "Company suspension": warn, suspend,
 * unsuspend; and verification, which gates some dashboard writes), as one table: each action, the
 * state it needs and the state it leaves. A warning changes nothing but is kept in the company's
 * history, where the company's OWNER sees it.
 */
export const COMPANY_ACTIONS = ['WARN', 'SUSPEND', 'UNSUSPEND', 'VERIFY', 'UNVERIFY'] as const;
export type CompanyAction = (typeof COMPANY_ACTIONS)[number];

export type CompanyStatus = 'ACTIVE' | 'SUSPENDED';

/** What a write of a suspended company is refused with, on every surface (SPEC: writes check the company is active). */
export const companySuspended = () =>
  new Refusal(403, 'COMPANY_SUSPENDED', 'The company is suspended; its data cannot be changed');

/**
 * What a write that needs a verified company is refused with (SPEC "some writes need a verified
 * company"): by the dashboard's guard when the request arrives, and by the write's transaction
 * when an unverification committed while it waited (db/writes/active-company.ts).
 */
export const companyNotVerified = () =>
  new Refusal(403, 'COMPANY_NOT_VERIFIED', 'This action is available once the company is verified');

/** The part of a company an action looks at and changes. */
export interface CompanyStanding {
  status: CompanyStatus;
  verified: boolean;
}

interface ActionRule {
  /** The standing the action needs, else its refusal. */
  allowed: (standing: CompanyStanding) => boolean;
  refusal: () => Refusal;
  next: (standing: CompanyStanding) => CompanyStanding;
}

const conflict = (code: string, message: string) => () => new Refusal(409, code, message);

export const COMPANY_ACTION_RULES: Record<CompanyAction, ActionRule> = {
  WARN: {
    allowed: () => true,
    refusal: conflict('COMPANY_ACTION_REFUSED', 'A warning is always allowed'),
    next: (standing) => ({ ...standing }),
  },
  SUSPEND: {
    allowed: (standing) => standing.status === 'ACTIVE',
    refusal: conflict('COMPANY_ALREADY_SUSPENDED', 'The company is suspended already'),
    next: (standing) => ({ ...standing, status: 'SUSPENDED' }),
  },
  UNSUSPEND: {
    allowed: (standing) => standing.status === 'SUSPENDED',
    refusal: conflict('COMPANY_NOT_SUSPENDED', 'The company is not suspended'),
    next: (standing) => ({ ...standing, status: 'ACTIVE' }),
  },
  VERIFY: {
    allowed: (standing) => !standing.verified,
    refusal: conflict('COMPANY_ALREADY_VERIFIED', 'The company is verified already'),
    next: (standing) => ({ ...standing, verified: true }),
  },
  UNVERIFY: {
    allowed: (standing) => standing.verified,
    refusal: conflict('COMPANY_NOT_VERIFIED', 'The company is not verified'),
    next: (standing) => ({ ...standing, verified: false }),
  },
};

/** The standing after `action`; a company not in a state the action applies to is a 409 refusal. */
export function applyCompanyAction(standing: CompanyStanding, action: CompanyAction): CompanyStanding {
  const rule = COMPANY_ACTION_RULES[action];
  if (!rule.allowed(standing)) throw rule.refusal();
  return rule.next(standing);
}

/** The audit action name of a company action (companies.warn, companies.suspend, ...). */
export const companyAuditAction = (action: CompanyAction): string => `companies.${action.toLowerCase()}`;

/**
 * The fixed idempotency key with which a suspension ends one of the company's pending journey
 * requests (the workflow's decide Update): a retry of the suspension's follow-up ends it once.
 */
export const suspensionDecisionKey = (confirmationRequestId: string, companyId: string): string =>
  `${confirmationRequestId}:${companyId}:SUSPENDED`;
