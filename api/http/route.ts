import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import { Refusal } from './errors.js';

/**
 * One declaration per route: the zod schemas that validate its input are the same ones the
 * OpenAPI document is generated from, so the reference can never drift from what is enforced.
 */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';

export type Security =
  | 'public'
  | 'optionalTraveller'
  | 'traveller'
  /**
   * Ending a traveller session (logout): the route reads the credential itself, so a session that
   * has expired or already ended elsewhere can still sign out (api/customer/logout.ts).
   */
  | 'travellerSignOut'
  | 'companyStaff'
  | 'administrator'
  /** An administrator session that may still owe its second factor: completing or setting it up, signing out. */
  | 'administratorFirstFactor'
  | 'driver'
  | 'shareRecipient'
  /** A traveller, a company user or an assigned driver who may share a booking document (api/auth/share-issuer.ts). */
  | 'shareIssuer'
  /** A company API key as `Authorization: Bearer` (api/auth/company-api-key.ts); no cookie, so no CSRF. */
  | 'companyApiKey';

/**
 * Resolves and checks the caller for a route's declared security before its input is read
 * (ctx.state.traveller / staff / admin). Each surface brings its own.
 */
export type Authenticator = (
  ctx: Context,
  route: { security: Security; method: Method; csrf: boolean; /** as declared: /trips/{id} */ path: string },
) => Promise<void>;

/**
 * One answer of a route: its body schema under one content type (application/json unless named), or,
 * for an answer given in several representations (a `format` parameter chooses), `content`: each
 * content type with its schema.
 */
export type ResponseSpec = { description: string } & (
  | { schema?: z.ZodType; contentType?: string; content?: never }
  | { content: Record<string, z.ZodType>; schema?: never; contentType?: never }
);

/** What an input schema parses to, as a route hands it to its handler (undefined without one). */
export type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * What a route's OpenAPI entry says about it beyond its inputs: the summary, prose, tags and the
 * answers it may give. Route modules keep these in their `.openapi.ts` sibling (see `operations`)
 * and spread them into the declaration, so a declaration shows method, path, security, inputs and
 * the handler.
 */
export interface OperationDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  responses: Record<number, ResponseSpec>;
}

/** One route: its operation's doc, and the method, path, security, inputs and handler that serve it. */
export interface RouteSpec<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  H extends z.ZodObject | undefined = undefined,
> extends OperationDoc {
  method: Method;
  /** Path relative to the surface base, in OpenAPI form: /trips/{id}. */
  path: string;
  security: Security;
  /**
   * Whether a cookie-authenticated call must carry X-CSRF-Token. Defaults to true for
   * state-changing methods; a read-only POST (journey search) sets false.
   */
  csrf?: boolean;
  /**
   * false: a GET route that never answers HEAD, because its GET makes, logs, numbers or counts
   * something for the body it sends (a render and its log, a receipt number, a nonce), which a HEAD
   * would do too and never receive. The router gives such a route no HEAD, so a HEAD runs nothing of
   * it (no guard of the surface's router.use, no authentication, no input, no handler): 405
   * METHOD_NOT_ALLOWED with Allow: GET, and the Allow of OPTIONS and of a 405 on its path leaves
   * HEAD out. Its OpenAPI prose says so and lists 405.
   */
  head?: false;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Request headers the route reads, by name as documented (Idempotency-Key): each is read from the
   * request case-insensitively and validated like the other inputs (400 VALIDATION_FAILED, issues at
   * `headers.<name>`); the OpenAPI document lists them as header parameters. Others are not read.
   */
  headers?: H;
  /**
   * The request body is never read: the JSON body reader skips this route and leaves the stream
   * untouched, so any payload (large, malformed, of any type) gets the route's own answer. Nor is
   * its query string: whatever a sender appends (a provider's notification) gets that answer too.
   */
  unreadBody?: true;
  /** Maps validation issues to a route-specific errorCode (SPEC names some); default VALIDATION_FAILED. */
  errorCode?: (issues: z.core.$ZodIssue[], part: 'params' | 'query' | 'body') => string;
  /**
   * Lets the authenticated caller in before any input is read: a role or permission check, a
   * per-caller limit (guarded-route.ts). A caller it refuses gets that answer (403, 429) whatever
   * the input, and learns nothing of the input's rules. What it returns reaches the handler.
   */
  admit?: (ctx: Context) => unknown;
  handler: (
    ctx: Context,
    input: { params: Infer<P>; query: Infer<Q>; body: Infer<B>; headers: Infer<H> },
    admitted: unknown,
  ) => Promise<void>;
}

/** The docs of a feature's routes keyed by operationId (each record gets its key as operationId). */
export function operations<const Docs extends Record<string, Omit<OperationDoc, 'operationId'>>>(
  docs: Docs,
): { [Id in keyof Docs & string]: Docs[Id] & { operationId: Id } } {
  return Object.fromEntries(
    Object.entries(docs).map(([operationId, doc]) => [operationId, { ...doc, operationId }]),
  ) as { [Id in keyof Docs & string]: Docs[Id] & { operationId: Id } };
}

export interface RegisteredRoute {
  base: string;
  spec: RouteSpec<
    z.ZodType | undefined,
    z.ZodType | undefined,
    z.ZodType | undefined,
    z.ZodObject | undefined
  >;
}

/** Validates one part of the request; a route's own errorCode names refusals of params, query and body. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: 'params' | 'query' | 'body' | 'headers',
  errorCode?: RouteSpec<undefined, undefined, undefined>['errorCode'],
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  throw new Refusal(
    400,
    (part === 'headers' ? undefined : errorCode?.(issues, part)) ?? 'VALIDATION_FAILED',
    `The request ${part} is not valid`,
    {
      issues: issues.map((issue) => ({
        path: [part, ...issue.path.map(String)].join('.'),
        code: issue.code,
        message: issue.message,
      })),
    },
  );
}

/**
 * The query of a route that declares none: strict like every declared one, so `?foo=1` is refused
 * (400, an `unrecognized_keys` issue at `query`) before the handler runs, not silently ignored.
 */
const NO_QUERY = z.strictObject({});

/**
 * The query string as a plain object. A key given twice with one value is read once; with different
 * values the request is refused (400 VALIDATION_FAILED): reading the first or the last would let a
 * proxy or a cache in front and this API act on two different requests.
 */
function flatQuery(ctx: Context): Record<string, string> {
  const conflicting = Object.entries(ctx.query).filter(
    ([, value]) => Array.isArray(value) && new Set(value).size > 1,
  );
  if (conflicting.length) {
    throw new Refusal(400, 'VALIDATION_FAILED', 'The request query is not valid', {
      issues: conflicting.map(([key]) => ({
        path: `query.${key}`,
        code: 'conflicting_values',
        message: 'Given more than once with different values',
      })),
    });
  }
  return Object.fromEntries(
    Object.entries(ctx.query).map(([key, value]) => [
      key,
      Array.isArray(value) ? value[value.length - 1]! : (value ?? ''),
    ]),
  );
}

/**
 * The route's query as its schema reads it; a route that declares none takes none (NO_QUERY) and
 * its handler gets undefined. A route that leaves its body unread leaves its query unread too.
 */
function readQuery(ctx: Context, spec: RegisteredRoute['spec']): unknown {
  if (spec.unreadBody) return undefined;
  const query = validate(spec.query ?? NO_QUERY, flatQuery(ctx), 'query', spec.errorCode);
  return spec.query ? query : undefined;
}

/** The headers a route declares, as sent (absent ones undefined), validated by its schema. */
function readHeaders(ctx: Context, schema: z.ZodObject): unknown {
  const sent = Object.fromEntries(
    Object.keys(schema.shape).map((name) => [name, ctx.req.headers[name.toLowerCase()]]),
  );
  return validate(schema, sent, 'headers');
}

/** A group of routes under one base path (a surface such as /api), with its OpenAPI records. */
export class Surface {
  readonly router: Router;
  readonly routes: RegisteredRoute[] = [];
  private readonly unreadBodyRoutes: { method: string; path: RegExp }[] = [];
  /** The methods of each path without parameters, such as /api/bookings/round-trip. */
  private readonly fixedPaths = new Map<string, Set<string>>();
  /** The fixed paths whose GET route answers no HEAD (`head: false`). */
  private readonly headlessPaths = new Set<string>();

  constructor(
    readonly base: string,
    private readonly authenticate?: Authenticator,
  ) {
    // Paths match exactly as written (case-sensitive), so every guard that compares ctx.path sees the
    // path the route answers to: /api/Document-Shares is no share route, and no route at all.
    this.router = new Router({ prefix: base, sensitive: true });
  }

  route<
    P extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
    H extends z.ZodObject | undefined = undefined,
  >(spec: RouteSpec<P, Q, B, H>): this {
    this.routes.push({ base: this.base, spec });
    if (spec.unreadBody) {
      // Matched as the router matches: a parameter is one segment, case-sensitive, optional trailing slash.
      const segments = `${this.base}${spec.path}`
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{\w+\}/g, '[^/]+');
      this.unreadBodyRoutes.push({
        method: spec.method.toUpperCase(),
        path: new RegExp(`^${segments}/?$`),
      });
    }
    if (!spec.path.includes('{')) {
      const path = `${this.base}${spec.path}`;
      this.fixedPaths.set(path, (this.fixedPaths.get(path) ?? new Set()).add(spec.method.toUpperCase()));
      if (spec.head === false) this.headlessPaths.add(path);
    }
    const koaPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const csrf = spec.csrf ?? ['post', 'put', 'patch', 'delete'].includes(spec.method);
    this.router[spec.method](koaPath, async (ctx) => {
      this.refuseOtherMethodOfFixedPath(ctx);
      await this.authenticate?.(ctx, { security: spec.security, method: spec.method, csrf, path: spec.path });
      const admitted = await spec.admit?.(ctx);
      const params = spec.params ? validate(spec.params, ctx.params, 'params', spec.errorCode) : undefined;
      const query = readQuery(ctx, spec);
      const headers = spec.headers ? readHeaders(ctx, spec.headers) : undefined;
      let body: unknown;
      if (spec.body) {
        // No body at all reads as {}; a JSON null is a body, and the schema refuses it.
        body = validate(
          spec.body,
          ctx.request.body === undefined ? {} : ctx.request.body,
          'body',
          spec.errorCode,
        );
      } else if (carriesFields(ctx.request.body)) {
        // Only the methods jsonBody reads (POST, PUT, PATCH, DELETE) can carry one: a DELETE that
        // takes no body must not act on one it was sent (seat numbers it would not honour).
        throw new Refusal(400, 'VALIDATION_FAILED', 'This route takes no request body');
      }
      await spec.handler(
        ctx,
        { params, query, body, headers } as Parameters<typeof spec.handler>[1],
        admitted,
      );
    });
    // The router adds HEAD to every GET it registers; this route's layer (the one just added) keeps GET only.
    if (spec.head === false) {
      const layer = this.router.stack.at(-1)!;
      layer.methods = layer.methods.filter((method) => method !== 'HEAD');
    }
    return this;
  }

  /**
   * GET /api/bookings/round-trip matches GET /bookings/{id} as the router sees it, but the path is
   * the round trip's, which only takes POST: 405 with its methods, not a 400 about an identifier.
   */
  private refuseOtherMethodOfFixedPath(ctx: Context): void {
    const path = ctx.path.replace(/(.)\/$/, '$1');
    const methods = this.fixedPaths.get(path);
    if (!methods) return;
    const method = ctx.method === 'HEAD' && !this.headlessPaths.has(path) ? 'GET' : ctx.method;
    if (methods.has(method)) return;
    ctx.set('Allow', [...methods].join(', '));
    throw new Refusal(405, 'METHOD_NOT_ALLOWED', 'This method is not allowed on this path');
  }

  /**
   * The router's OPTIONS and 405 answers, with the Allow header of a fixed path (such as
   * /dashboard/api/trips/bulk) naming its own methods, not also those of the `{id}` route beside it
   * (HEAD with its GET, unless that route answers no HEAD).
   */
  allowedMethods() {
    const answer = this.router.allowedMethods();
    return async (ctx: Context, next: Next) => {
      await answer(ctx as Parameters<typeof answer>[0], next);
      const fixed = this.fixedPathMethods(ctx.path);
      if (fixed && ctx.response.get('Allow')) ctx.set('Allow', fixed.join(', '));
    };
  }

  /**
   * The methods this surface answers on `path`, as its OPTIONS lists them; none when no route of
   * the surface has the path. The Allow of a method no route of the service knows (PROPFIND).
   */
  methodsAt(path: string): string[] {
    return this.fixedPathMethods(path) ?? routerMethodsAt(this.router, path);
  }

  /** The methods of a fixed path (HEAD with its GET, unless that route answers no HEAD). */
  private fixedPathMethods(requestPath: string): string[] | undefined {
    const path = requestPath.replace(/(.)\/$/, '$1');
    const methods = this.fixedPaths.get(path);
    if (!methods) return undefined;
    const head = methods.has('GET') && !this.headlessPaths.has(path);
    return [...(head ? ['HEAD'] : []), ...methods];
  }

  /** Whether the request is for a route declared with unreadBody (its body must stay unread). */
  leavesBodyUnread(method: string, path: string): boolean {
    return this.unreadBodyRoutes.some((route) => route.method === method && route.path.test(path));
  }
}

/** The methods the routes of `router` answer on `path` (HEAD with a GET), as its OPTIONS lists them. */
export function routerMethodsAt(router: Router, path: string): string[] {
  return [...new Set(router.match(path, 'GET').path.flatMap((layer) => layer.methods))];
}

/**
 * Whether a route without a body schema was sent something to act on. An empty JSON object is
 * taken as no body: many HTTP clients send `{}` with every POST.
 */
function carriesFields(body: unknown): boolean {
  if (body === undefined) return false;
  return !(
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    Object.keys(body).length === 0
  );
}
