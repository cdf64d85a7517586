import { z } from 'zod';
import { BODY_METHODS } from './middleware.js';
import { portableRequestSchema } from './openapi-portable.js';
import type { RegisteredRoute, ResponseSpec, Security } from './route.js';
import { errorResponses } from './schemas.js';

const SECURITY_SCHEMES = {
  travellerBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Traveller access token (mobile clients)',
  },
  travellerCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'bb_access',
    description:
      'Traveller access token cookie (web); writes, and the loyalty reads that may open an account, also need X-CSRF-Token',
  },
  companySession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'bb_staff',
    description:
      'Company dashboard session cookie; writes also need X-CSRF-Token, the csrfToken of the sign-in answer (also in the bb_staff_csrf cookie)',
  },
  adminSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'bb_admin',
    description:
      'Administrator session cookie; writes also need X-CSRF-Token, the csrfToken of the sign-in answer (also in the bb_admin_csrf cookie)',
  },
  driverBearer: { type: 'http', scheme: 'bearer', description: 'Driver app token' },
  shareRecipient: {
    type: 'apiKey',
    in: 'cookie',
    name: 'bb_share',
    description: 'Document share recipient session',
  },
  companyApiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Company API key (made by an OWNER or ADMIN in the dashboard, POST /dashboard/api/api-keys)',
  },
} as const;

const SECURITY_OF: Record<Security, Record<string, string[]>[]> = {
  public: [],
  optionalTraveller: [{}, { travellerBearer: [] }, { travellerCookie: [] }],
  traveller: [{ travellerBearer: [] }, { travellerCookie: [] }],
  travellerSignOut: [{}, { travellerBearer: [] }, { travellerCookie: [] }],
  companyStaff: [{ companySession: [] }],
  administrator: [{ adminSession: [] }],
  administratorFirstFactor: [{ adminSession: [] }],
  driver: [{ driverBearer: [] }],
  shareRecipient: [{ shareRecipient: [] }],
  shareIssuer: [
    { travellerBearer: [] },
    { travellerCookie: [] },
    { companySession: [] },
    { driverBearer: [] },
  ],
  companyApiKey: [{ companyApiKey: [] }],
};

type JsonObject = Record<string, unknown>;

/**
 * Turns zod schemas into JSON Schema for the document. zod puts schemas that carry a
 * `.meta({ id })` under a local `$defs` with `#/$defs/<id>` references; embedded in an OpenAPI
 * document those references would resolve against the document root and point nowhere, so the
 * definitions move to components.schemas and the references follow them.
 */
function schemaCatalogue() {
  const components: Record<string, JsonObject> = {};
  /** Each placed definition as zod wrote it (references still by id), to tell same from different. */
  const written = new Map<string, string>();

  /**
   * The components.schemas name for a definition: its id, or id + Input/Output when the request
   * and response sides differ. zod names recursive schemas without an id `__schemaN` per call, so
   * those get numbered names of their own.
   */
  function nameFor(id: string, definition: JsonObject, io: 'input' | 'output'): string {
    const text = JSON.stringify(definition);
    const candidates = id.startsWith('__schema')
      ? Array.from({ length: written.size + 1 }, (_, index) => `Recursive${index + 1}`)
      : [id, `${id}${io === 'input' ? 'Input' : 'Output'}`];
    for (const name of candidates) {
      if (!written.has(name)) written.set(name, text);
      if (written.get(name) === text) return name;
    }
    throw new Error(`OpenAPI: two different schemas share the id "${id}"`);
  }

  function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
    const {
      $schema: _dialect,
      $defs,
      ...body
    } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
    const definitions = Object.entries(($defs ?? {}) as Record<string, JsonObject>);
    // The request side states what the server reads before zod does (api/http/openapi-portable.ts).
    const portable = (value: JsonObject) => (io === 'input' ? portableRequestSchema(value) : value);
    const names = new Map(definitions.map(([id, definition]) => [id, nameFor(id, portable(definition), io)]));
    for (const [id, definition] of definitions)
      components[names.get(id)!] = retarget(portable(definition), names) as JsonObject;
    return retarget(portable(body), names) as JsonObject;
  }

  return { components, schemaOf };
}

/** Rewrites `#/$defs/<id>` references to `#/components/schemas/<name>`. */
function retarget(value: unknown, renamed: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => retarget(item, renamed));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
        const id = decodeURIComponent(inner.slice('#/$defs/'.length))
          .replaceAll('~1', '/')
          .replaceAll('~0', '~');
        return [key, `#/components/schemas/${encodeURIComponent(renamed.get(id) ?? id)}`];
      }
      return [key, retarget(inner, renamed)];
    }),
  );
}

function parameters(
  schemaOf: (schema: z.ZodType, io: 'input') => JsonObject,
  schema: z.ZodType | undefined,
  where: 'path' | 'query' | 'header',
) {
  if (!schema) return [];
  const object = schemaOf(schema, 'input') as {
    properties?: Record<string, JsonObject>;
    required?: string[];
  };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

/** The `content` of an answer: each content type it is given in, with its schema (none without a body schema). */
function responseContent(schemaOf: (schema: z.ZodType, io: 'output') => JsonObject, response: ResponseSpec) {
  const bodies =
    response.content ??
    (response.schema ? { [response.contentType ?? 'application/json']: response.schema } : {});
  const entries = Object.entries(bodies);
  if (!entries.length) return {};
  return {
    content: Object.fromEntries(
      entries.map(([type, schema]) => [type, { schema: schemaOf(schema, 'output') }]),
    ),
  };
}

/** OpenAPI 3.1 generated from the routes' own zod schemas. */
export function buildOpenApi(
  routes: RegisteredRoute[],
  info: { title: string; version: string; description: string },
) {
  const paths: Record<string, Record<string, unknown>> = {};
  const { components, schemaOf } = schemaCatalogue();
  for (const { base, spec } of routes) {
    const path = `${base}${spec.path}`;
    paths[path] ??= {};
    paths[path][spec.method] = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: spec.tags,
      security: SECURITY_OF[spec.security],
      parameters: [
        ...parameters(schemaOf, spec.params, 'path'),
        ...parameters(schemaOf, spec.query, 'query'),
        ...parameters(schemaOf, spec.headers, 'header'),
      ],
      ...(spec.body
        ? {
            requestBody: {
              // A body whose fields are all optional may be left out: the route reads it as {}.
              required: !spec.body.safeParse({}).success,
              content: { 'application/json': { schema: schemaOf(spec.body, 'input') } },
            },
          }
        : {}),
      responses: Object.fromEntries(
        Object.entries(withGlobalErrors(spec)).map(([status, response]) => [
          status,
          { description: response.description, ...responseContent(schemaOf, response) },
        ]),
      ),
    };
  }
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    components: { securitySchemes: SECURITY_SCHEMES, schemas: components },
    paths,
  };
}

/**
 * What the app answers before or beside any route's own rules, listed on each operation so a client
 * (or a fuzzer) finds it where it occurs: every operation 400 for U+0000 in its path or query string
 * (NUL_CHARACTER) or percent-encoded bytes that are not UTF-8 (INVALID_UNICODE) and 503
 * (SERVICE_UNAVAILABLE with Retry-After while PostgreSQL or Temporal does not answer,
 * api/http/unavailable.ts; MAINTENANCE on a write that a maintenance window refuses); every POST,
 * PUT, PATCH and DELETE also 400 for a body that is not JSON in UTF-8, 413 over 64 KiB and 415 for
 * another content type, charset or a content coding, since the JSON body reader reads the body of each of them (one
 * that takes no fields included) before its route runs. A route that leaves its request unread (the
 * payment webhook) is not checked at all: 503 only.
 */
function withGlobalErrors(spec: RegisteredRoute['spec']): RegisteredRoute['spec']['responses'] {
  const readsBody = BODY_METHODS.includes(spec.method.toUpperCase()) && !spec.unreadBody;
  const statuses = [...(spec.unreadBody ? [] : [400]), ...(readsBody ? [413, 415] : []), 503];
  return { ...errorResponses(...statuses), ...spec.responses };
}
