import type { z } from 'zod';

/**
 * Rules between fields of a request body, checked by its zod schema: each broken rule is a custom
 * issue naming the errorCode SPEC gives it, and the route's errorCode function answers with it.
 */

/** A custom zod issue that names the errorCode of the rule it breaks. */
export const ruleIssue = (errorCode: string, message: string, path: (string | number)[]) =>
  ({ code: 'custom', message, path, params: { errorCode } }) as const;

/** The errorCode an issue names (a rule's custom issue), if any. */
export function namedErrorCode(issue: z.core.$ZodIssue): string | undefined {
  const code: unknown = issue.code === 'custom' ? issue.params?.errorCode : undefined;
  return typeof code === 'string' && code ? code : undefined;
}

/** The errorCode of the first issue naming one, else VALIDATION_FAILED. */
export function firstNamedErrorCode(issues: z.core.$ZodIssue[]): string {
  for (const issue of issues) {
    const code = namedErrorCode(issue);
    if (code) return code;
  }
  return 'VALIDATION_FAILED';
}
