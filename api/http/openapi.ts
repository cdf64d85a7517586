import { z } from 'zod';
import type { RegisteredRoute, Security } from './route.js';

const SECURITY_SCHEMES = {
  travellerBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Traveller access token (mobile clients)' },
  travellerCookie: { type: 'apiKey', in: 'cookie', name: 'bb_access', description: 'Traveller access token cookie (web); writes also need X-CSRF-Token' },
  companySession: { type: 'apiKey', in: 'cookie', name: 'bb_staff', description: 'Company dashboard session cookie' },
  adminSession: { type: 'apiKey', in: 'cookie', name: 'bb_admin', description: 'Administrator session cookie' },
  driverBearer: { type: 'http', scheme: 'bearer', description: 'Driver app token' },
  shareRecipient: { type: 'apiKey', in: 'cookie', name: 'bb_share', description: 'Document share recipient session' },
} as const;

const SECURITY_OF: Record<Security, Record<string, string[]>[]> = {
  public: [],
  optionalTraveller: [{}, { travellerBearer: [] }, { travellerCookie: [] }],
  traveller: [{ travellerBearer: [] }, { travellerCookie: [] }],
  companyStaff: [{ companySession: [] }],
  administrator: [{ adminSession: [] }],
  driver: [{ driverBearer: [] }],
  shareRecipient: [{ shareRecipient: [] }],
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

/** OpenAPI 3.1 generated from the routes' own zod schemas. */
export function buildOpenApi(routes: RegisteredRoute[], info: { title: string; version: string; description: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { base, spec } of routes) {
    const path = `${base}${spec.path}`;
    paths[path] ??= {};
    paths[path][spec.method] = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: spec.tags,
      security: SECURITY_OF[spec.security],
      parameters: [...parameters(spec.params, 'path'), ...parameters(spec.query, 'query')],
      ...(spec.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input') } } } }
        : {}),
      responses: Object.fromEntries(
        Object.entries(spec.responses).map(([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.schema
              ? { content: { [response.contentType ?? 'application/json']: { schema: jsonSchema(response.schema, 'output') } } }
              : {}),
          },
        ]),
      ),
    };
  }
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    components: { securitySchemes: SECURITY_SCHEMES },
    paths,
  };
}
