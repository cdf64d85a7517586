import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { initDatabase, type Database } from '../../db/orm.js';
import { DEMO_COMPANY_ID, DEMO_TRAVELLERS } from '../../db/seed/demo-identities.js';
import { seedDemoTravellers } from '../../db/seed/demo-travellers.js';

describe('demo traveller accounts', () => {
  let db: Database;
  beforeAll(async () => {
    db = await initDatabase(loadConfig());
  });
  afterAll(() => db.close());

  /** Seeds and reads in one transaction: the seed's row locks keep other test files' sign-ins out meanwhile. */
  const seedAndRead = () =>
    db.transaction(async (client) => {
      await seedDemoTravellers(client);
      const { rows } = await client.query(
        `select u.phone, u.app_metadata, p.phone as passenger_phone
         from users u left join passengers p on p.id = u.passenger_id
         where u.phone = any($1::text[]) order by u.phone`,
        [DEMO_TRAVELLERS.map((traveller) => traveller.phone)],
      );
      return rows;
    });

  it('exist once each, with a traveller profile and their persona scope in server-side metadata, however often seeded', async () => {
    await seedAndRead();
    expect(await seedAndRead()).toEqual([
      {
        phone: '+963900000001',
        app_metadata: { inventory_scope: 'PRODUCTION' },
        passenger_phone: '+963900000001',
      },
      {
        phone: '+963900000002',
        app_metadata: { inventory_scope: 'INTERNAL' },
        passenger_phone: '+963900000002',
      },
      {
        phone: '+963900000003',
        app_metadata: { inventory_scope: 'DEMO', demo_company_id: DEMO_COMPANY_ID },
        passenger_phone: '+963900000003',
      },
    ]);
  });
});
