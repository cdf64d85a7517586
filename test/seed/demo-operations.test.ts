import { verify } from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { initDatabase, migrate, type Database } from '../../db/orm.js';
import { DEMO_DRIVERS } from '../../db/seed/demo-operations.js';
import { DEMO_STAFF_PASSWORD } from '../../db/seed/demo-staff.js';
import { seedDemo } from '../../db/seed/demo.js';
import { damascusDate } from '../../domain/time.js';
import { createDatabaseIfMissing, databaseUrl, dropDatabase } from '../../scripts/lib/services.js';

/** The operations room's demo data: a driver per full-team company, on its first departure of each day. */
describe('demo drivers', () => {
  const config = loadConfig();
  const serverUrl = databaseUrl(config.DATABASE_URL, 'postgres');
  const database = `${new URL(config.DATABASE_URL).pathname.slice(1)}_demo_operations`;
  let db: Database;
  // One first day for the seed and its rerun: the rerun is to change nothing, not seed a new day.
  let firstDate: string;

  const assignments = () =>
    db.query<{ email: string; operating_date: string; trips: number }>(
      `select u.email, t.operating_date::text, count(*)::int as trips
       from trips t join staff_users u on u.id = t.driver_id
       where u.email = any($1::text[])
       group by u.email, t.operating_date order by u.email, t.operating_date`,
      [DEMO_DRIVERS.map((driver) => driver.email)],
    );

  beforeAll(async () => {
    await createDatabaseIfMissing(serverUrl, database);
    db = await initDatabase({ ...config, DATABASE_URL: databaseUrl(config.DATABASE_URL, database) });
    await migrate(db);
    firstDate = damascusDate(new Date());
    await seedDemo(db, { firstDate, days: 2 });
  });

  afterAll(async () => {
    await db?.close();
    await dropDatabase(serverUrl, database);
  });

  it('gives every active, published production company a driver who signs in with the demo password', async () => {
    const drivers = await db.query<{ email: string; company_id: string; password_hash: string }>(
      `select u.email, m.company_id, u.password_hash from staff_users u
       join company_memberships m on m.staff_user_id = u.id and m.role = 'DRIVER' and m.active
       where u.email like 'driver@%'
       order by u.email`,
    );
    expect(drivers.map((driver) => [driver.email, driver.company_id])).toEqual(
      DEMO_DRIVERS.map((driver) => [driver.email, driver.companyId]).sort(),
    );
    expect(drivers.length).toBeGreaterThanOrEqual(4);
    expect(await verify(drivers[0]!.password_hash, DEMO_STAFF_PASSWORD)).toBe(true);
  });

  it("assigns each driver one trip a day, the company's first departure, and a rerun changes nothing", async () => {
    const first = await assignments();
    expect(first).toHaveLength(DEMO_DRIVERS.length * 2);
    expect(first.every((row) => row.trips === 1)).toBe(true);
    const [earliest] = await db.query<{ ok: boolean }>(
      `select bool_and(t.departure_at = (select min(x.departure_at) from trips x
                                          where x.company_id = t.company_id and x.operating_date = t.operating_date
                                            and x.schedule_id is null)) as ok
       from trips t where t.driver_id is not null and t.schedule_id is null`,
    );
    expect(earliest!.ok).toBe(true);
    await seedDemo(db, { firstDate, days: 2 });
    expect(await assignments()).toEqual(first);
  });
});
