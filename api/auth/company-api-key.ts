import { companySuspended } from '../../domain/company-moderation.js';
import { apiKeyInvalid } from '../../domain/company-actor.js';
import type { Context } from 'koa';
import type { Database } from '../../db/orm.js';
import { liveApiKey } from '../../db/queries/webhooks.js';
import { touchApiKey } from '../../db/writes/api-keys.js';
import { PUBLIC_SCOPE } from '../../domain/inventory-scope.js';
import { Refusal } from '../http/errors.js';
import type { Authenticator } from '../http/route.js';
import { hashSecret } from './secrets.js';

/**
 * The 'companyApiKey' security of /api/webhooks (SPEC "Webhook set-up": `Authorization: Bearer`):
 * the key's SHA-256 must name an unrevoked key. The company is the key's, never one named in the
 * request. No cookie is read, so there is no CSRF to check. Writes of a suspended company are 403
 * COMPANY_SUSPENDED (checked by `requireActiveKeyCompany`).
 *   no Authorization header               → 401 AUTH_REQUIRED
 *   not `Bearer <key>`, unknown or revoked → 401 INVALID_CREDENTIAL
 */
declare module 'koa' {
  interface DefaultState {
    /** The company API key behind a 'companyApiKey' route. */
    apiKey?: { keyId: string; companyId: string; companyStatus: string } | null;
  }
}

export function currentApiKey(ctx: Context): { keyId: string; companyId: string; companyStatus: string } {
  const key = ctx.state.apiKey;
  if (!key) throw new Refusal(401, 'AUTH_REQUIRED', 'Send a company API key as Authorization: Bearer <key>');
  return key;
}

/** Writes need an active company (SPEC: writes check the company is active and not suspended). */
export function requireActiveKeyCompany(ctx: Context): { keyId: string; companyId: string } {
  const key = currentApiKey(ctx);
  if (key.companyStatus !== 'ACTIVE') {
    throw companySuspended();
  }
  return key;
}

/** The customer surface's authenticator with the 'companyApiKey' kind added. */
export function withCompanyApiKey(inner: Authenticator, deps: { db: Database }): Authenticator {
  return async (ctx, route) => {
    if (route.security !== 'companyApiKey') return inner(ctx, route);
    ctx.state.traveller = null;
    ctx.state.scope = PUBLIC_SCOPE;
    const authorization = ctx.get('Authorization');
    if (!authorization) {
      throw new Refusal(401, 'AUTH_REQUIRED', 'Send a company API key as Authorization: Bearer <key>');
    }
    const key = /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1];
    const holder = key ? await liveApiKey(deps.db, hashSecret(key)) : undefined;
    if (!holder) throw apiKeyInvalid();
    ctx.state.apiKey = holder;
    await touchApiKey(deps.db, holder.keyId);
  };
}
