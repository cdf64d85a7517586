import { z } from 'zod';
import { WEBHOOK_LIMITS } from '../../domain/webhooks.js';
import { Instant, PrintedText } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/** OpenAPI of the company API keys (api-keys.ts): schemas and rules. */

const TAGS = ['Dashboard: API keys'];

export const ApiKeyBody = z
  .object({
    name: PrintedText(1, 100).meta({
      description: 'what the key is for, shown in the list; no control or bidirectional-override characters',
    }),
  })
  .strict();

const ApiKey = z
  .object({
    id: IdText,
    name: z.string(),
    prefix: z.string().meta({ description: 'the first 12 characters of the key, to tell keys apart' }),
    createdAt: Instant,
    createdBy: IdText.meta({ description: 'the company user who made it' }),
    lastUsedAt: Instant.nullable().meta({ description: 'last request with the key (to the minute)' }),
    revokedAt: Instant.nullable(),
  })
  .meta({ id: 'CompanyApiKey' });

const Created = successWith(
  ApiKey.extend({
    key: z.string().meta({ description: 'the key itself: shown this once, only its SHA-256 is stored' }),
  }),
);
const List = successWith(z.array(ApiKey));
const Revoked = z.object({ success: z.literal(true), data: z.object({ revokedAt: Instant }) });

const WHO =
  "OWNER or ADMIN of the session's company only (403 ROLE_NOT_ALLOWED); changes need an active company (403 " +
  'COMPANY_SUSPENDED) and the X-CSRF-Token header (403 CSRF_TOKEN_INVALID); recorded in the audit log. A change ' +
  'checks the member again as it is made: one deactivated or signed out while the request waited is 401 ' +
  'INVALID_CREDENTIAL, one no longer OWNER or ADMIN 403 ROLE_NOT_ALLOWED, nothing changed.';

export const docs = taggedOperations(TAGS, {
  listCompanyApiKeys: {
    summary: "The company's API keys (never the keys themselves)",
    description: `Unrevoked first, newest first. ${WHO}`,
    responses: answers(200, 'Keys', List, [401, 403]),
  },
  createCompanyApiKey: {
    summary: 'Make an API key for POST /api/webhooks',
    description:
      `The answer shows the key once (bbk_ + 43 characters); only its SHA-256 is stored, so a lost key is revoked ` +
      `and replaced. At most ${WEBHOOK_LIMITS.apiKeysPerCompany} unrevoked keys (409 API_KEY_LIMIT_REACHED). ${WHO}`,
    responses: answers(201, 'The new key', Created, [400, 401, 403, 409]),
  },
  revokeCompanyApiKey: {
    summary: 'Revoke an API key',
    description:
      `The next request with it is 401; subscriptions made with it keep working. Revoking a revoked key answers ` +
      `the same; another company's key is 404. ${WHO}`,
    responses: answers(200, 'Revoked', Revoked, [400, 401, 403, 404]),
  },
});
