import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { initDatabase } from '../../db/orm.js';

/** DATABASE_URL with parameters: a deployment's sslmode or application_name is not dropped on the way to pg. */
describe('DATABASE_URL parameters', () => {
  const urlWith = (name: string, value: string) => {
    const url = new URL(loadConfig().DATABASE_URL);
    url.searchParams.set(name, value);
    return url.toString();
  };

  it('application_name names the connections in pg_stat_activity', async () => {
    const db = await initDatabase({
      DATABASE_URL: urlWith('application_name', 'busbooking-url-test'),
      DATABASE_POOL_MAX: 1,
    });
    try {
      const [row] = await db.query<{ name: string }>(
        `select application_name as name from pg_stat_activity where pid = pg_backend_pid()`,
      );
      expect(row?.name).toBe('busbooking-url-test');
    } finally {
      await db.close();
    }
  });

  it('sslmode=require refuses a server without TLS instead of connecting in the clear', async () => {
    // The test server has no TLS: a deployment that asks for it must not get a plain connection.
    await expect(
      initDatabase({ DATABASE_URL: urlWith('sslmode', 'require'), DATABASE_POOL_MAX: 1 }),
    ).rejects.toThrow(/does not support SSL/);
  });
});
