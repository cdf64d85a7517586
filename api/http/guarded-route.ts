import type { Context } from 'koa';
import type { z } from 'zod';
import type { Infer, RouteSpec, Security, Surface } from './route.js';

/**
 * A route whose handler starts by letting a guard check the caller and then works with what the
 * guard let through (a company user, a company API key...). `guardedRoute` declares the route's
 * security and runs the guard, so a declaration names its guard once and its handler receives the
 * principal. The guard runs before the input is read (the route's `admit`, route.ts): a caller it
 * refuses gets that answer (403 for a role or permission, 429 for a limit) whatever the input. A
 * guard may be async, for one that also counts the call against a rate limit.
 */
export type GuardOf<Principal> = (ctx: Context) => Principal | Promise<Principal>;

type Input<P, Q, B, H> = { params: Infer<P>; query: Infer<Q>; body: Infer<B>; headers: Infer<H> };

/** A route's request-headers schema (Idempotency-Key); undefined where the route reads none. */
type HeaderPart = z.ZodObject | undefined;

export type GuardedRouteSpec<
  Principal,
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  H extends HeaderPart = undefined,
> = Omit<RouteSpec<P, Q, B, H>, 'security' | 'handler'> & {
  handler: (ctx: Context, principal: Principal, input: Input<P, Q, B, H>) => Promise<void>;
};

/** A `security` route whose handler gets the principal `guard` let through. */
export function guardedRoute<
  Principal,
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  H extends HeaderPart = undefined,
>(
  surface: Surface,
  security: Security,
  guard: GuardOf<Principal>,
  spec: GuardedRouteSpec<Principal, P, Q, B, H>,
): void {
  const { handler, ...route } = spec;
  surface.route<P, Q, B, H>({
    ...route,
    security,
    admit: guard,
    // What `admit` returned: the principal this guard let through.
    handler: async (ctx, input, admitted) => handler(ctx, admitted as Principal, input),
  });
}

/** A route's params, query or body schema; undefined where the route takes none. */
export type Part = z.ZodType | undefined;

/**
 * The route declaration of one surface: `declare(surface, rule, spec)` is a guardedRoute with the
 * surface's `security` whose guard is `admit(ctx, rule)`. The rule is what each declaration names:
 * a guard of the dashboard's (staffRoute), a permission of the administration's (adminRoute).
 */
export function guardedRouteDeclarer<Rule, Principal>(
  security: Security,
  admit: (ctx: Context, rule: Rule) => Principal | Promise<Principal>,
) {
  return <
    P extends Part = undefined,
    Q extends Part = undefined,
    B extends Part = undefined,
    H extends HeaderPart = undefined,
  >(
    surface: Surface,
    rule: Rule,
    spec: GuardedRouteSpec<Principal, P, Q, B, H>,
  ): void => guardedRoute(surface, security, (ctx) => admit(ctx, rule), spec);
}
