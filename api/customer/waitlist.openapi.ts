import { z } from 'zod';
import { Email } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/** The OpenAPI side of POST /api/waitlist (api/customer/waitlist.ts). */
export const WaitlistBody = z.object({ email: Email() }).strict();

const Joined = successWith(z.object({ joined: z.literal(true) }));

export const docs = taggedOperations(['Waitlist'], {
  joinWaitlist: {
    summary: 'Join the pre-launch waitlist',
    description:
      'Public, no session and no CSRF header. Body {email}; unknown fields are refused. Only the address (lower case) ' +
      'and the time are stored, nothing else (no name, no IP address). Signing up again with the same address ' +
      'answers the same 202 and stores nothing new, so the answer never tells whether an address is on the list. ' +
      'Rate limited per client IP (WAITLIST_RATE_LIMIT_PER_IP_PER_HOUR, 10 an hour): 429 RATE_LIMITED with ' +
      'Retry-After. The feature flag waitlist.signup switches it off (503 FEATURE_DISABLED, details {flag}; checked ' +
      'before the limit, so it uses up none of it). A write: 503 ' +
      'MAINTENANCE during a maintenance window.',
    responses: answers(202, 'On the list', Joined, [400, 429, 503]),
  },
});
