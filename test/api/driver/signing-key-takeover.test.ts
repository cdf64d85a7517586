import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { PoolClient } from 'pg';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  activeSigningKey,
  EXTERNAL_PRIVATE_KEY,
  keyIdOf,
  rotateSigningKey,
  signTicketsOf,
} from '../../../db/writes/boarding-credentials.js';
import { verifyCredential } from '../../../domain/boarding-credential.js';
import { createCorridor } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { createJourneyRows, journeyTripOf, type JourneyTrip } from '../../support/journey-rows.js';

interface KeyRow {
  key_id: string;
  public_key: string;
  private_key: string;
  status: 'ACTIVE' | 'RETIRED';
  retired_at: Date | null;
}

const newPrivateKeyPem = () =>
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/**
 * SIGNING_PRIVATE_KEY_PEM (README Production): boarding credentials are signed with the key from the
 * secret store and the database keeps only its public half, also on a database that first ran
 * without the setting. Every test runs in one transaction that is rolled back: the run's other files
 * keep signing with the shared generated key.
 */
describe('the signing key from SIGNING_PRIVATE_KEY_PEM', () => {
  const app = useTestApp();
  let trip: JourneyTrip;
  let ownerUserId: string;

  beforeAll(async () => {
    trip = journeyTripOf(await createCorridor(app.db));
    ownerUserId = (await app.signIn()).userId;
  });

  async function inRolledBackTransaction(work: (client: PoolClient) => Promise<void>): Promise<void> {
    const client = await app.db.pool.connect();
    try {
      await client.query('begin');
      await work(client);
    } finally {
      await client.query('rollback');
      client.release();
    }
  }

  const keyRows = async (client: PoolClient) =>
    (
      await client.query<KeyRow>(
        'select key_id, public_key, private_key, status, retired_at from signing_keys order by key_id',
      )
    ).rows;

  async function pendingJourney(): Promise<{ kind: 'JOURNEY'; id: string }> {
    const { journeyId } = await createJourneyRows(app.db, { ownerUserId, trip, travellers: ['Dana Issa'] });
    return { kind: 'JOURNEY', id: journeyId };
  }

  async function credentialOf(client: PoolClient, scope: { id: string }) {
    const { rows } = await client.query<{
      payload: Record<string, unknown>;
      signature: string;
      key_id: string;
    }>('select payload, signature, key_id from journey_tickets where journey_id = $1', [scope.id]);
    return rows[0]!;
  }

  /** Verifies a credential with the public key signing_keys publishes under its key id (GET /keys). */
  async function verifiesWithPublishedKey(client: PoolClient, scope: { id: string }): Promise<boolean> {
    const credential = await credentialOf(client, scope);
    const published = (await keyRows(client)).find((row) => row.key_id === credential.key_id)!;
    return verifyCredential(credential.payload, credential.signature, createPublicKey(published.public_key));
  }

  it('takes over on first use from a key generated in the database, whose private half is erased', async () => {
    const [before, after] = [await pendingJourney(), await pendingJourney()];
    const privateKeyPem = newPrivateKeyPem();
    const configuredKeyId = keyIdOf(createPublicKey(privateKeyPem));
    const logger = { info: vi.fn(), warn: vi.fn() };
    await inRolledBackTransaction(async (client) => {
      // The state of a database that ran without the setting (development, staging): a generated key.
      const active = (await keyRows(client)).find((row) => row.status === 'ACTIVE');
      if (!active || active.private_key === EXTERNAL_PRIVATE_KEY) await rotateSigningKey(client);
      const { keyId: generatedKeyId } = await signTicketsOf(client, before);

      expect(await signTicketsOf(client, after, { privateKeyPem, logger })).toEqual({
        signed: 1,
        keyId: configuredKeyId,
      });

      const rows = await keyRows(client);
      expect(rows.filter((row) => row.status === 'ACTIVE').map((row) => row.key_id)).toEqual([
        configuredKeyId,
      ]);
      expect(rows.find((row) => row.key_id === configuredKeyId)!.private_key).toBe(EXTERNAL_PRIVATE_KEY);
      expect(rows.find((row) => row.key_id === generatedKeyId)).toMatchObject({ status: 'RETIRED' });
      // The database keeps only public halves: no private key of any key is left in it.
      expect(rows.filter((row) => row.private_key.includes('PRIVATE KEY'))).toEqual([]);
      // Tickets signed before the take-over still verify with the published (retired) key.
      expect(await verifiesWithPublishedKey(client, before)).toBe(true);
      expect(await verifiesWithPublishedKey(client, after)).toBe(true);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn.mock.calls[0]![0]).toMatchObject({
        keyId: configuredKeyId,
        replacedKeyId: generatedKeyId,
      });

      // Later uses find the configured key active: no second rotation, nothing more logged.
      expect((await activeSigningKey(client, { privateKeyPem, logger })).keyId).toBe(configuredKeyId);
      expect(await keyRows(client)).toEqual(rows);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.info).not.toHaveBeenCalled();
    });
  });

  it('takes over from the previous configured key, and refuses that retired key afterwards, changing nothing', async () => {
    const [before, after, refused] = [await pendingJourney(), await pendingJourney(), await pendingJourney()];
    const previousPem = newPrivateKeyPem();
    const nextPem = newPrivateKeyPem();
    const logger = { info: vi.fn(), warn: vi.fn() };
    await inRolledBackTransaction(async (client) => {
      const previousKeyId = await rotateSigningKey(client, { privateKeyPem: previousPem });
      await signTicketsOf(client, before, { privateKeyPem: previousPem });

      const { keyId: nextKeyId } = await signTicketsOf(client, after, { privateKeyPem: nextPem, logger });
      expect(nextKeyId).toBe(keyIdOf(createPublicKey(nextPem)));
      expect(logger.info).toHaveBeenCalledTimes(1);
      expect(logger.info.mock.calls[0]![0]).toMatchObject({ keyId: nextKeyId, replacedKeyId: previousKeyId });
      expect(logger.warn).not.toHaveBeenCalled();
      expect(await verifiesWithPublishedKey(client, before)).toBe(true);
      expect(await verifiesWithPublishedKey(client, after)).toBe(true);

      // A process still holding the previous key does not take back over from the new one.
      const rows = await keyRows(client);
      await expect(signTicketsOf(client, refused, { privateKeyPem: previousPem, logger })).rejects.toThrow(
        /retired signing key/,
      );
      expect(await keyRows(client)).toEqual(rows);
      expect(rows.find((row) => row.status === 'ACTIVE')!.key_id).toBe(nextKeyId);
      expect((await credentialOf(client, refused)).signature).toBeNull();
      expect(logger.info).toHaveBeenCalledTimes(1);
    });
  });
});
