import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import { API_KEY_SHOWN_CHARACTERS } from '../../domain/webhooks.js';
import { demoCompany, demoUuid } from './demo-identities.js';
import { DEMO_STAFF } from './demo-staff.js';

/**
 * A company API key of Al-Ahliah for trying the webhook set-up (POST /api/webhooks with
 * `Authorization: Bearer DEMO_WEBHOOK_API_KEY`). A real key is shown once and never stored; this
 * one is fixed so the README can name it. Development data only: it is made by its OWNER, stored
 * as its SHA-256 like any key, and a rerun changes nothing (a revoked demo key stays revoked).
 */
export const DEMO_WEBHOOK_API_KEY = 'bbk_demo-ahliah-webhooks-key-development-only';

export async function seedDemoWebhooks(client: PoolClient): Promise<void> {
  const company = demoCompany('ahliah');
  const owner = DEMO_STAFF.find((member) => member.companyId === company.id && member.role === 'OWNER')!;
  await client.query(
    `insert into company_api_keys (id, company_id, name, key_prefix, key_hash, created_by)
     values ($1, $2, 'Demo webhooks', $3, $4, $5) on conflict do nothing`,
    [
      demoUuid('company-api-key', company.id, 'demo'),
      company.id,
      DEMO_WEBHOOK_API_KEY.slice(0, API_KEY_SHOWN_CHARACTERS),
      createHash('sha256').update(DEMO_WEBHOOK_API_KEY).digest('hex'),
      owner.id,
    ],
  );
}
