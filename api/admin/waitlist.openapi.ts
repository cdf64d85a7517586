import { z } from 'zod';
import { InstantInput, Pagination } from '../http/schemas.js';
import { DateTime, IdText, OptionalSearch, pageAnswer, withPeriodInOrder } from './schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';

/** The OpenAPI side of GET /admin/api/waitlist (api/admin/waitlist.ts). */

export const WaitlistQuery = withPeriodInOrder(
  z
    .object({
      search: OptionalSearch(254).meta({ description: 'part of the e-mail address; empty: no filter' }),
      from: InstantInput.optional().meta({ description: 'sign-ups at or after this time' }),
      to: InstantInput.optional().meta({ description: 'sign-ups before this time' }),
      ...Pagination,
    })
    .strict(),
);

const WaitlistEntry = z
  .object({ id: IdText, email: z.string(), createdAt: DateTime })
  .meta({ id: 'WaitlistEntry' });

const WaitlistPage = pageAnswer(WaitlistEntry);

export const docs = taggedOperations(['Administration: waitlist'], {
  adminListWaitlist: {
    summary: 'Pre-launch waitlist sign-ups',
    description:
      'Needs waitlist.view (else 403 PERMISSION_DENIED). The addresses that signed up through POST /api/waitlist while ' +
      'the site is in coming-soon mode: the e-mail address (lower case) and when, nothing more is stored. Newest ' +
      'first; filters search (part of the address; empty: no filter), from, to (from later than to is 400 ' +
      'VALIDATION_FAILED); limit (default 20, at most 100) and offset, with the total. E-mail addresses ' +
      'are personal data: every read is recorded in the audit log (waitlist.list) with its filter.',
    responses: answers(200, 'A page of sign-ups', WaitlistPage, [400, 401, 403]),
  },
});
