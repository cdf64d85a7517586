import type { Activities } from '../../../workflows/steps.js';
import type { Calls } from '../../support/workflow-env.js';

export type CompanyDecisionSteps = Pick<Activities, 'recordCompanyDecision' | 'expireCompanyDecisions'>;
export type DecisionOutcome = Extract<
  Awaited<ReturnType<CompanyDecisionSteps['recordCompanyDecision']>>,
  { done: unknown }
>['done'];

/**
 * The company-decision steps answering as their transactions would, for the journey-confirmation
 * unit tests: each decision takes the next outcome of `decisions` (in order); the deadline cancels.
 */
export function companyDecisionStubs(calls: Calls, decisions: DecisionOutcome[]): CompanyDecisionSteps {
  return {
    async recordCompanyDecision(input) {
      calls.record('recordCompanyDecision', input);
      const next = decisions.shift();
      if (!next) throw new Error('no decision outcome left in the stub');
      return { done: next };
    },
    async expireCompanyDecisions(input) {
      calls.record('expireCompanyDecisions', input);
      return { status: 'CANCELLED' as const };
    },
  };
}
