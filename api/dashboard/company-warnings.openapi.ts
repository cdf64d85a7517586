import { z } from 'zod';
import { Instant, Pagination } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/** The OpenAPI side of GET /dashboard/api/company/warnings (api/dashboard/company-warnings.ts). */
export const NoticeQuery = z.object({ ...Pagination }).strict();

const Notice = z
  .object({
    id: IdText,
    kind: z.enum(['WARN', 'SUSPEND', 'UNSUSPEND']),
    reason: z.string(),
    createdAt: Instant,
  })
  .meta({ id: 'CompanyNotice' });

const Notices = successWith(
  z.object({
    status: z.enum(['ACTIVE', 'SUSPENDED']),
    verified: z.boolean(),
    suspension: Notice.nullable().meta({
      description: 'while the company is suspended: the suspension in force',
    }),
    items: z.array(Notice),
    total: z.int(),
    limit: z.int(),
    offset: z.int(),
  }),
);

export const docs = taggedOperations(['Dashboard: company'], {
  companyWarnings: {
    summary: "The platform's warnings and suspensions of your company",
    description:
      'OWNER only (else 403 ROLE_NOT_ALLOWED). What the platform administrators told the company: warnings, ' +
      'suspensions and unsuspensions with their reasons, newest first (limit, default 20, at most 100, and offset), ' +
      'and while the company is suspended, the suspension in force. The administrators who decided are not named. ' +
      'A read: it answers while the company is suspended too.',
    responses: answers(200, 'The notices', Notices, [400, 401, 403]),
  },
});
