import type { Context } from 'koa';
import type { z } from 'zod';
import type { StaffPrincipal } from '../auth/staff-session.js';
import { ok, page } from '../http/respond.js';
import { guardedRouteDeclarer } from '../http/guarded-route.js';
import type { OperationDoc, Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { authorize } from './guards.js';

/**
 * How the dashboard's route modules declare a route. Every dashboard route is `companyStaff` and
 * starts by letting a guard check the signed-in company user (`authorize` for any role, `planner`,
 * a role list...); `staffRoute` does both, so a declaration names its guard once and its handler
 * receives the company user the guard let through. The guard runs before the input is read, so a
 * role that may not use the route gets 403 whatever it sends (api/http/guarded-route.ts).
 */

/**
 * Checks the signed-in company user for a route and returns it (see guards.ts and planning-schemas.ts);
 * async for a guard that also counts or records the call (reports.ts).
 */
export type StaffGuardOf = (ctx: Context) => StaffPrincipal | Promise<StaffPrincipal>;

/** staffRoute(surface, guard, spec): a `companyStaff` route whose handler gets the company user `guard` let through. */
export const staffRoute = guardedRouteDeclarer('companyStaff', (ctx, guard: StaffGuardOf) => guard(ctx));

type PageQuery = z.ZodType<{ limit: number; offset: number }>;

/**
 * One page of the company's records under `key` (`{ buses, total }`...: companyListing's answer,
 * db/queries/company-records.ts) and how many there are in all.
 */
export type CompanyPage<Key extends string> = Promise<{ [K in Key]: unknown[] } & { total: number }>;

/**
 * What a company's records answer on every read: `private, no-store`. It is every answer's default
 * (api/http/middleware.ts responseHeaders); the company read routes state it, as their answers
 * must never be kept by a shared cache.
 */
const PRIVATE = 'private, no-store';

/**
 * GET `path`: one page of the session company's records (`{ success, data, pagination }`), for
 * any dashboard role unless `guard` says otherwise. `list` reads the page for the company, its
 * records under `key`.
 */
export function companyPageRoute<Q extends PageQuery, Key extends string>(
  surface: Surface,
  route: OperationDoc & { path: string; query: Q; guard?: StaffGuardOf },
  key: Key,
  list: (companyId: string, query: z.output<Q>) => CompanyPage<Key>,
): void {
  const { guard = authorize, ...declared } = route;
  staffRoute(surface, guard, {
    ...declared,
    method: 'get',
    handler: async (ctx, staff, input) => {
      // Infer<Q> of a Q that is known only as a page query: its output, as the route validated it.
      const query = input.query as z.output<Q>;
      const listed = await list(staff.companyId, query);
      ctx.set('Cache-Control', PRIVATE);
      page(ctx, listed[key], query, listed.total);
    },
  });
}

/**
 * GET `path`: what every company user reads alike, with no input and nothing of their company's
 * own (the cities, the bus templates, the payment settings).
 */
export function referenceReadRoute(
  surface: Surface,
  route: OperationDoc & { path: string },
  read: () => unknown,
): void {
  staffRoute(surface, authorize, {
    ...route,
    method: 'get',
    handler: async (ctx) => {
      ok(ctx, await read());
    },
  });
}

/**
 * GET `path` (which names `{id}`): one record of the session company, for the company users
 * `guard` lets through. `read` finds the record among the company's, or throws its 404; it also
 * gets the company user, for what the answer offers them.
 */
export function companyRecordRoute(
  surface: Surface,
  guard: StaffGuardOf,
  route: OperationDoc & { path: string },
  read: (companyId: string, id: string, staff: StaffPrincipal) => Promise<unknown>,
): void {
  staffRoute(surface, guard, {
    ...route,
    method: 'get',
    params: IdParams,
    handler: async (ctx, staff, { params }) => {
      ctx.set('Cache-Control', PRIVATE);
      ok(ctx, await read(staff.companyId, params.id, staff));
    },
  });
}
