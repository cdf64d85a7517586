import { WEBHOOK_LIMITS } from '../../domain/webhooks.js';
import { Refusal } from '../../domain/refusal.js';
import { CompanyApiKey } from '../entities/webhooks.js';
import type { Database } from '../orm.js';
import type { ApiKeyRecord } from '../queries/webhooks.js';
import type { ActingMember } from './acting-member.js';
import { companyTransaction } from './active-company.js';
import { recordStaffAct, type RequestOrigin } from './audit.js';

/**
 * Company API keys, made and revoked by a company's OWNER or ADMIN in the dashboard (dashboard CRUD
 * through the transaction's EntityManager, with the audit row in the same transaction). The key
 * itself never reaches this module: only its SHA-256 and its first characters.
 */

export interface NewApiKey {
  companyId: string;
  staffUserId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
}

/**
 * Makes the key. `actor`, the dashboard member making it (a script's key has none), is checked again
 * under the company lock: one deactivated, signed out or demoted while the request waited makes no
 * key (401 INVALID_CREDENTIAL, 403 ROLE_NOT_ALLOWED).
 */
export async function createApiKey(
  db: Database,
  key: NewApiKey,
  origin: RequestOrigin,
  actor?: ActingMember,
): Promise<ApiKeyRecord> {
  // Two creations at once take turns, so they cannot both pass the limit; none after a suspension.
  return companyTransaction(db, { companyId: key.companyId, actor }, 'update', async (client) => {
    const live = await client.em.count(CompanyApiKey, { companyId: key.companyId, revokedAt: null });
    if (live >= WEBHOOK_LIMITS.apiKeysPerCompany) {
      throw new Refusal(
        409,
        'API_KEY_LIMIT_REACHED',
        `A company may have ${WEBHOOK_LIMITS.apiKeysPerCompany} API keys; revoke one first`,
      );
    }
    const entity = client.em.create(CompanyApiKey, {
      companyId: key.companyId,
      name: key.name,
      keyPrefix: key.keyPrefix,
      keyHash: key.keyHash,
      createdBy: key.staffUserId,
    });
    await client.em.flush();
    const target = { kind: 'company_api_key', id: entity.id };
    const details = { name: key.name, prefix: key.keyPrefix };
    await recordStaffAct(
      client,
      { staffUserId: key.staffUserId, ...origin },
      'company.api_key.create',
      target,
      details,
    );
    const { rows } = await client.query<{ created_at: string }>(
      `select created_at from company_api_keys where id = $1`,
      [entity.id],
    );
    return {
      id: entity.id,
      name: key.name,
      prefix: key.keyPrefix,
      createdAt: new Date(rows[0]!.created_at).toISOString(),
      createdBy: key.staffUserId,
      lastUsedAt: null,
      revokedAt: null,
    };
  });
}

/**
 * Revokes one of the company's keys at once (the next request with it is 401). Revoking a revoked
 * key changes nothing; another company's key is 404. A company write like the key's own
 * (companyTransaction, the acting member checked again): the company row first, then the key's
 * row, which a webhook write made with the key holds for share until it commits
 * (db/writes/acting-member.ts lockActingKey): that write either ends first or sees the key revoked.
 */
export async function revokeApiKey(
  db: Database,
  change: { companyId: string; actor: ActingMember; keyId: string },
  origin: RequestOrigin,
): Promise<{ revokedAt: string }> {
  const staffUserId = change.actor.staffUserId;
  return companyTransaction(db, change, 'share', async (client) => {
    const key = await client.em.findOne(CompanyApiKey, { id: change.keyId, companyId: change.companyId });
    if (!key) throw new Refusal(404, 'NOT_FOUND', 'Not found');
    if (key.revokedAt) return { revokedAt: key.revokedAt.toISOString() };
    // Read without a lock: a revocation committed since then wins, and this one answers it.
    const { rows } = await client.query<{ revoked_at: string }>(
      `update company_api_keys set revoked_at = now(), revoked_by = $2 where id = $1 and revoked_at is null
       returning revoked_at`,
      [key.id, staffUserId],
    );
    const [revoked] = rows;
    if (!revoked) {
      const { rows: first } = await client.query<{ revoked_at: string }>(
        `select revoked_at from company_api_keys where id = $1`,
        [key.id],
      );
      return { revokedAt: new Date(first[0]!.revoked_at).toISOString() };
    }
    const target = { kind: 'company_api_key', id: key.id };
    const details = { prefix: key.keyPrefix };
    await recordStaffAct(client, { staffUserId, ...origin }, 'company.api_key.revoke', target, details);
    return { revokedAt: new Date(revoked.revoked_at).toISOString() };
  });
}

/** Notes that a key was used, at most once a minute per key (the list shows it). */
export async function touchApiKey(db: Database, keyId: string): Promise<void> {
  await db.transaction(async (client) => {
    await client.query(
      `update company_api_keys set last_used_at = now()
       where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
      [keyId],
    );
  });
}
