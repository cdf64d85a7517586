import { z } from 'zod';
import { COMPANY_ACTIONS, type CompanyAction } from '../../domain/company-moderation.js';
import { NAME_SEARCH, Pagination, PrintedProse } from '../http/schemas.js';
import { DateTime, IdText, OptionalSearch, pageAnswer } from './schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the administration's company routes (api/admin/companies.ts): request and
 * response schemas, which also validate, and the prose of each route.
 */
const TAGS = ['Administration: companies'];

const Status = z.enum(['ACTIVE', 'SUSPENDED']);
const Scope = z.enum(['PRODUCTION', 'INTERNAL', 'DEMO']);
const BooleanText = z.enum(['true', 'false']).transform((value) => value === 'true');

export const CompanyListQuery = z
  .object({
    search: OptionalSearch(100).meta({
      description: `part of the English or Arabic name or of the slug, any case; ${NAME_SEARCH}; empty: no filter`,
    }),
    status: Status.optional(),
    verified: BooleanText.optional().meta({ description: 'true or false' }),
    scope: Scope.optional().meta({
      description: 'PRODUCTION (real companies), INTERNAL (QA inventory) or DEMO (a demo persona company)',
    }),
    ...Pagination,
  })
  .strict();

/**
 * Why an administrator acts: shown in the company's history and, for warnings and suspensions, to its
 * OWNER, so no control or bidirectional-override character (line breaks and tabs are kept).
 */
export const ReasonBody = z
  .object({
    reason: PrintedProse(3, 1000),
  })
  .strict();

const Standing = z.object({ status: Status, verified: z.boolean() });

const AdminCompany = z
  .object({
    id: IdText,
    nameEn: z.string(),
    nameAr: z.string(),
    slug: z.string(),
    status: Status,
    verified: z.boolean().meta({ description: 'some dashboard writes need a verified company' }),
    published: z.boolean(),
    scope: Scope,
    email: z.string().nullable(),
    phone: z.string().nullable(),
    createdAt: DateTime,
    counts: z.object({
      trips: z.int(),
      bookings: z.int().meta({ description: 'booking rows of the company, whatever their status' }),
      revenue: z.number().meta({
        description:
          'SYP: total price of bookings confirmed, checked in, completed or no-show and not refunded',
      }),
    }),
    warnings: z.int(),
    lastActionAt: DateTime.nullable().meta({
      description: 'the latest warning, suspension or verification change',
    }),
  })
  .meta({ id: 'AdminCompany' });

const HistoryEntry = z
  .object({
    id: IdText,
    action: z.enum(COMPANY_ACTIONS),
    reason: z.string(),
    admin: z.object({ id: IdText, name: z.string() }).nullable(),
    before: Standing,
    after: Standing,
    createdAt: DateTime,
  })
  .meta({ id: 'CompanyHistoryEntry' });

const CompanyList = pageAnswer(AdminCompany);

const CompanyDetail = successWith(
  z.object({
    company: AdminCompany,
    history: z.array(HistoryEntry).meta({ description: 'newest first' }),
  }),
);

const ActionResult = successWith(
  z.object({
    companyId: IdText,
    action: z.enum(COMPANY_ACTIONS),
    reason: z.string(),
    before: Standing,
    after: Standing,
    historyId: IdText.meta({ description: "the entry in the company's history" }),
    endedRequests: z
      .object({
        cancelled: z.array(IdText),
        alreadyClosed: z.array(IdText),
        leftToDeadline: z.array(IdText),
      })
      .nullable()
      .meta({
        description:
          'suspend only: one confirmation request id per journey (or order) still waiting with a leg on the ' +
          "company's trips: the company's own pending request, else (its leg automatic or approved) another " +
          "company's pending request of that journey (the journey is ended through it, or through another request " +
          'still open should that company approve meanwhile)',
      }),
  }),
);

const ACTION_RULES: Record<CompanyAction, string> = {
  WARN:
    "Records a warning with its reason in the company's history; the standing does not change. The company's OWNER " +
    'sees the warning (GET /dashboard/api/company/warnings).',
  SUSPEND:
    'ACTIVE → SUSPENDED (409 COMPANY_ALREADY_SUSPENDED otherwise), at once everywhere: the company leaves every ' +
    'inventory scope (search, trips, quote, hold, seat locks, bookings; a hold placed before cannot be confirmed), ' +
    'every dashboard write of its staff answers 403 COMPANY_SUSPENDED (only the session routes under /auth/ stay), ' +
    'and neither its staff nor its drivers may issue or revoke document shares. A trip schedule still committing ' +
    'creates no trip after the suspension: it ends FAILED with failure_reason COMPANY_SUSPENDED (a batch in flight ' +
    'commits first; the suspension waits for it). Every journey (or order) still waiting for decisions with a leg on ' +
    "its trips is ended explicitly, whether the company's own request is pending or its leg confirmed automatically " +
    'or it approved: each is cancelled through its confirmation workflow with failure_reason COMPANY_SUSPENDED ' +
    '(pending requests CANCELLED with reason COMPANY_SUSPENDED, never this reason; seats released, tickets ' +
    'cancelled), after the suspension has committed; ' +
    'endedRequests lists one request per journey. A journey that cannot be ended then keeps ' +
    'its deadline, and neither the suspended company nor the last other company can approve it (403 ' +
    'COMPANY_SUSPENDED, 409 TRIP_NOT_BOOKABLE); once an unsuspension has committed meanwhile, the requests not yet ' +
    'ended stay pending (leftToDeadline). ' +
    'The OWNER sees the suspension and its reason.',
  UNSUSPEND:
    'SUSPENDED → ACTIVE (409 COMPANY_NOT_SUSPENDED otherwise): the company is back in the inventory scopes and its ' +
    'staff may write again. Requests ended by the suspension stay cancelled.',
  VERIFY:
    'Not verified → verified (409 COMPANY_ALREADY_VERIFIED otherwise); verification gates some dashboard writes.',
  UNVERIFY: 'Verified → not verified (409 COMPANY_NOT_VERIFIED otherwise).',
};

const MANAGE =
  'Needs companies.manage (else 403 PERMISSION_DENIED naming it), checked again inside the change: an account ' +
  'disabled or demoted while the request runs gets 401 INVALID_CREDENTIAL or 403 and the change writes nothing. ' +
  'Body {reason} (3-1000 characters; line breaks and tabs but no other control or bidirectional-override ' +
  'character: 400 VALIDATION_FAILED; unknown fields refused). 404 COMPANY_NOT_FOUND. The company row is locked; ' +
  'the change, its history entry and its audit row (actor, reason, before and after) commit together; a refused ' +
  'action writes nothing.';

const actionDoc = (action: CompanyAction) => ({
  summary: `${action[0]}${action.slice(1).toLowerCase()} a company`,
  description: `${MANAGE} ${ACTION_RULES[action]} Audit action companies.${action.toLowerCase()}.`,
  responses: answers(200, 'Done', ActionResult, [400, 401, 403, 404, 409]),
});

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  adminListCompanies: {
    summary: 'List companies with their standing and figures',
    description:
      'Needs companies.view (else 403 PERMISSION_DENIED). Filters: search (name, typed another way too: الاهلية ' +
      'finds الأهلية; or slug; empty: no filter), status, ' +
      'verified, scope; sorted by English name; limit (default 20, at most 100) and offset, with the total. Each company comes with ' +
      'its counts of trips, bookings and revenue (all time) and its number of warnings. The read is recorded in the ' +
      'audit log (companies.list).',
    responses: answers(200, 'A page of companies', CompanyList, [400, 401, 403]),
  },
  adminReadCompany: {
    summary: 'A company with its history of warnings, suspensions and verification changes',
    description:
      'Needs companies.view. The history names the administrator, the reason and the standing before and after of ' +
      'every action, newest first; the same changes are in the audit log (target = the company id). 404 ' +
      'COMPANY_NOT_FOUND. The read is recorded (companies.read).',
    responses: answers(200, 'The company and its history', CompanyDetail, [400, 401, 403, 404]),
  },
  adminWarnCompany: actionDoc('WARN'),
  adminSuspendCompany: actionDoc('SUSPEND'),
  adminUnsuspendCompany: actionDoc('UNSUSPEND'),
  adminVerifyCompany: actionDoc('VERIFY'),
  adminUnverifyCompany: actionDoc('UNVERIFY'),
});
