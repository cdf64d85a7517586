import { z } from 'zod';
import { MAX_FARE } from '../../domain/pricing.js';
import { DRIVER_ADMIN_ROLES, PLANNING_ROLES } from '../../domain/trip-planning.js';
import type { Context } from 'koa';
import type { StaffAct } from '../../db/writes/planning/act.js';
import type { CompanyRole, StaffPrincipal } from '../auth/staff-session.js';
import { requestOrigin } from '../http/request-origin.js';
import { created } from '../http/respond.js';
import type { Infer, OperationDoc, Surface } from '../http/route.js';
import { actingMember, authorize, requireActiveCompany, requireRole } from './guards.js';
import { staffRoute, type StaffGuardOf } from './staff-route.js';
import {
  DateTimeText as DateTime,
  IdText as UuidOut,
  pageWith,
  PaginationText,
  successWith,
} from '../http/answer-schemas.js';

/** Answer primitives shared by every surface, re-exported for this module's importers. */
export { DateTime, UuidOut };

/**
 * What the planning routes (fleet, network, trips, schedules) share: who may do what, the error
 * code a refused body gets, and the small schemas every one of them uses.
 */

/** A planning write: OWNER, ADMIN or DISPATCHER of an active (not suspended) company. */
export const planner = (ctx: Context): StaffPrincipal =>
  authorize(ctx, requireRole(...PLANNING_ROLES), requireActiveCompany);

/** Driver accounts: OWNER or ADMIN of an active company. */
export const driverManager = (ctx: Context): StaffPrincipal =>
  authorize(ctx, requireRole(...DRIVER_ADMIN_ROLES), requireActiveCompany);

/**
 * The acting company user and the request, as the planning writes record them; `roles`, those the
 * route's guard lets in (a `planner` by default), checked again under the company lock.
 */
export const staffAct = (
  ctx: Context,
  staff: StaffPrincipal,
  roles: readonly CompanyRole[] = PLANNING_ROLES,
): Required<StaffAct> => ({
  companyId: staff.companyId,
  staffUserId: staff.staffUserId,
  origin: requestOrigin(ctx),
  actor: actingMember(staff, roles),
});

/** Planning reads that only planners see (the schedules). */
export const planningReader = (ctx: Context): StaffPrincipal =>
  authorize(ctx, requireRole(...PLANNING_ROLES));

/** Another guard than `planner`, with the roles it lets in (checked again by the write). */
type PlanningGuard =
  { guard?: undefined; roles?: undefined } | { guard: StaffGuardOf; roles: readonly CompanyRole[] };

type PlanningRoute<B extends z.ZodType> = OperationDoc & { path: string; body: B } & PlanningGuard;

/**
 * POST `path`: a planning write, which `write` makes for the acting company user and answers.
 * The caller is a `planner` unless `guard` says otherwise; a refused body gets planningErrorCode.
 */
export function planningWriteRoute<B extends z.ZodType>(
  surface: Surface,
  route: PlanningRoute<B>,
  write: (ctx: Context, act: StaffAct, body: Infer<B>) => Promise<void>,
): void {
  const { guard = planner, roles = PLANNING_ROLES, ...declared } = route;
  staffRoute(surface, guard, {
    ...declared,
    method: 'post',
    errorCode: planningErrorCode,
    handler: async (ctx, staff, { body }) => write(ctx, staffAct(ctx, staff, roles), body),
  });
}

/** A planningWriteRoute that makes one record (201) and answers that record as read back. */
export function planningCreateRoute<B extends z.ZodType>(
  surface: Surface,
  route: PlanningRoute<B>,
  make: (act: StaffAct, body: Infer<B>) => Promise<unknown>,
): void {
  planningWriteRoute(surface, route, async (ctx, act, body) => {
    created(ctx, await make(act, body));
  });
}

/** Fields the server takes from the session; a body naming one is refused, not ignored. */
const SESSION_FIELDS = new Set(['companyId', 'company_id', 'createdBy', 'created_by', 'actorId', 'actor_id']);

/** The errorCode a refinement names (params.errorCode), if any. */
export function namedErrorCode(issues: z.core.$ZodIssue[]): string | undefined {
  for (const issue of issues) {
    if (issue.code === 'custom' && typeof issue.params?.errorCode === 'string') return issue.params.errorCode;
  }
  return undefined;
}

/**
 * The errorCode of a refused request: SESSION_FIELD_REFUSED for a body naming the company or the
 * actor, a rule's own code when a refinement names one (params.errorCode), else VALIDATION_FAILED.
 */
export function planningErrorCode(issues: z.core.$ZodIssue[], part: 'params' | 'query' | 'body'): string {
  if (
    part === 'body' &&
    issues.some(
      (issue) => issue.code === 'unrecognized_keys' && issue.keys.some((key) => SESSION_FIELDS.has(key)),
    )
  ) {
    return 'SESSION_FIELD_REFUSED';
  }
  return namedErrorCode(issues) ?? 'VALIDATION_FAILED';
}

export const Text = (min: number, max: number) => z.string().trim().min(min).max(max);
export const Latitude = z.number().min(-90).max(90);
export const Longitude = z.number().min(-180).max(180);
/** A trip's fare in Syrian pounds, at most MAX_FARE (which bounds a booking's subtotal). */
export const Money = z.int().min(0).max(MAX_FARE);
export const NamedRefOut = z.object({ id: UuidOut, name_ar: z.string(), name_en: z.string() });
/** A trip's operating date and times, as the planning board and the operations room answer them. */
export const TripTimesOut = {
  operating_date: z.string().meta({ format: 'date' }),
  departure_at: DateTime,
  arrival_at: DateTime,
  delay_minutes: z.int(),
  actual_departure_at: DateTime.nullable(),
  actual_arrival_at: DateTime.nullable(),
};

/** The answer envelopes (api/http/answer-schemas.ts) under the short names the planning docs use. */
export { successWith as ok, pageWith as page, PaginationText as PaginationOut };

export const WRITE_RULES =
  'Needs the X-CSRF-Token header (403 CSRF_TOKEN_INVALID), a role of OWNER, ADMIN or DISPATCHER (403 ROLE_NOT_ALLOWED) ' +
  "and an active company (403 COMPANY_SUSPENDED). The company is always the session's; a body naming company_id is " +
  '400 SESSION_FIELD_REFUSED. Unknown fields are 400 VALIDATION_FAILED, and a refused request changes nothing. ' +
  'The member is judged as they stand when the write is made, after any change committed while the request waited: ' +
  'signed out or deactivated 401 INVALID_CREDENTIAL, no longer of those roles 403 ROLE_NOT_ALLOWED, nothing changed.';
