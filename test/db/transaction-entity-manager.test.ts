import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { Admin, AuditLogEntry } from '../../db/entities/index.js';
import { initDatabase, type Database } from '../../db/orm.js';
import { insertAdmin } from '../../db/writes/admins.js';

/**
 * `client.em` inside db.transaction: entity writes share the transaction of the plain SQL around
 * them (the rule for CRUD writes with an audit row, db/entities/index.ts).
 */
describe("the transaction's EntityManager", () => {
  let db: Database;

  beforeAll(async () => {
    db = await initDatabase({ ...loadConfig(), DATABASE_POOL_MAX: 2 });
  });

  afterAll(async () => {
    await db?.close();
  });

  const newAdmin = (email: string) => ({
    email,
    name: 'Entity Test',
    passwordHash: 'not-a-real-hash',
    role: 'SUPPORT' as const,
    grantedPermissions: [],
    totpRequired: false,
  });

  async function adminsWithEmail(email: string) {
    return db.query<{ id: string }>('select id from admins where lower(email) = lower($1)', [email]);
  }

  it('writes in the caller’s transaction: plain SQL sees the flush, and a rollback undoes both', async () => {
    const email = `rollback-${randomUUID()}@entities.test`;
    const failure = new Error('roll back');
    await expect(
      db.transaction(async (client) => {
        const admin = client.em.create(Admin, { email, passwordHash: 'x', role: 'ANALYST' });
        client.em.create(AuditLogEntry, { actorKind: 'SYSTEM', action: 'entities.test', targetId: admin.id });
        await client.em.flush();
        const { rows } = await client.query<{ id: string }>('select id from admins where email = $1', [
          email,
        ]);
        expect(rows).toEqual([{ id: admin.id }]);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await adminsWithEmail(email)).toEqual([]);
  });

  it('commits entity writes with the transaction, database defaults filled in', async () => {
    const email = `commit-${randomUUID()}@entities.test`;
    const created = await db.transaction(async (client) => {
      const admin = client.em.create(Admin, { email, passwordHash: 'x', role: 'ANALYST' });
      await client.em.flush();
      return admin;
    });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.updatedAt).toEqual(created.createdAt);
    expect(await adminsWithEmail(email)).toEqual([{ id: created.id }]);
  });

  it('answers a taken e-mail address with null and leaves the transaction usable', async () => {
    const email = `taken-${randomUUID()}@entities.test`;
    const [first, second, after] = await db.transaction(async (client) => {
      const row = await insertAdmin(client, newAdmin(email));
      const again = await insertAdmin(client, newAdmin(email.toUpperCase()));
      const { rows } = await client.query<{ count: number }>(
        'select count(*)::int as count from admins where lower(email) = lower($1)',
        [email],
      );
      return [row, again, rows[0]?.count];
    });
    expect(first).toMatchObject({ email, role: 'SUPPORT', permissions: [], totp_enabled: false });
    expect(second).toBeNull();
    expect(after).toBe(1);
  });
});
