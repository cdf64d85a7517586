import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { nonceInvalid } from '../../../domain/traveller-identity.js';
import type { Database } from '../../orm.js';

/** The flows an identity-provider nonce is issued for. */
export type NonceChannel = 'web' | 'pwa' | 'link';

/** A nonce the caller presented: its flow, the SHA-256 of the token's nonce claim, the flow kind. */
export interface PresentedNonce {
  flowId: string;
  fingerprint: string;
  channel: NonceChannel;
}

interface IssuedNonceRow {
  /** Unix epoch seconds (cast in SQL). */
  expires_at: number;
}

/** Stores a new nonce (only its fingerprint) for one sign-in flow; returns the raw nonce once. */
export async function issueIdpNonce(
  db: Database,
  input: {
    channel: NonceChannel;
    fingerprintOf: (nonce: string) => string;
    nonce: string;
    ttlSeconds: number;
  },
): Promise<{ flowId: string; expiresAt: number }> {
  const flowId = randomUUID();
  // Expired flows are swept as new ones start, so the table stays small without a scheduled job.
  await db.query(
    `delete from idp_nonces where flow_id in (select flow_id from idp_nonces where expires_at < now() - interval '1 hour' limit 100)`,
  );
  const [row] = await db.query<IssuedNonceRow>(
    `insert into idp_nonces (flow_id, nonce_hash, channel, expires_at)
     values ($1, $2, $3, now() + make_interval(secs => $4)) returning floor(extract(epoch from expires_at))::int as expires_at`,
    [flowId, input.fingerprintOf(input.nonce), input.channel, input.ttlSeconds],
  );
  return { flowId, expiresAt: row!.expires_at };
}

/**
 * Marks the flow's nonce used, inside the caller's transaction: if the operation later fails the
 * rollback leaves the nonce usable, so only a successful attempt consumes it. A second attempt
 * with the same nonce, a nonce of another flow or kind, or an expired one is refused.
 */
export async function consumeNonce(client: PoolClient, nonce: PresentedNonce): Promise<void> {
  const { rowCount } = await client.query(
    `update idp_nonces set consumed_at = now()
     where flow_id = $1 and nonce_hash = $2 and channel = $3 and consumed_at is null and expires_at > now()`,
    [nonce.flowId, nonce.fingerprint, nonce.channel],
  );
  if (rowCount !== 1) throw nonceInvalid();
}
