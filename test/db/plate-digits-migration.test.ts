import { describe, expect, it, vi } from 'vitest';
import { migratedPlate } from '../../db/migrations/Migration20261211000000_plate_digits.js';
import { migrationsList } from '../../db/orm.js';
import { plateForm } from '../../domain/trip-planning.js';
import { createCompany } from '../support/factories.js';
import { useTestApp } from '../support/harness.js';
import { staffSession } from '../support/journey-rows.js';
import { dashboard } from '../support/planning.js';
import { usePrivateDatabase } from '../support/private-database.js';

/**
 * README "Company planning" (Buses): one plate is one bus whatever the digits and the tatweel it is
 * typed with. Plates stored before in Arabic-Indic digits or with a tatweel are rewritten in the form
 * POST /buses stores, so the route refuses the same plate typed in Latin digits; a plate whose form
 * another bus of the company holds stays as typed and is reported, as does one the form would break.
 */
const MIGRATION = 'Migration20261211000000_plate_digits';
const names = migrationsList.map((migration) => migration.name);
/** The migration before this one: the database as the release before left it. */
const BEFORE = names[names.indexOf(MIGRATION) - 1]!;

describe(`${MIGRATION}: plates stored in other digits or with a tatweel`, () => {
  const database = usePrivateDatabase('plate_digits');
  const app = useTestApp({ DATABASE_URL: database.url });

  it('copies plateForm', () => {
    for (const plate of ['دمشق ١٢٣٤٥٦', 'حمـص ۰۱۲۳۴۵۶۷۸۹', ' A  ـB ', 'DM 123', 'ـــ']) {
      expect(migratedPlate(plate), plate).toBe(plateForm(plate));
    }
  });

  it('rewrites them in ASCII digits without tatweel, keeping a plate another bus holds as typed', async () => {
    const company = await createCompany(app.db);
    const other = await createCompany(app.db);
    await app.db.orm.migrator.down({ to: BEFORE });
    const stored: [string, string][] = [
      [company.id, 'دمشق ١٢٣٤٥٦'],
      [company.id, 'حمـص ۱۲۳'],
      [company.id, 'حلب 111'],
      [company.id, 'حـلب ١١١'],
      [company.id, 'ـ-12'],
      [other.id, 'دمشق ١٢٣٤٥٦'],
    ];
    const ids: string[] = [];
    for (const [index, [companyId, plate]] of stored.entries()) {
      const [row] = await app.db.query<{ id: string }>(
        `insert into buses (company_id, plate_number, created_at)
         values ($1, $2, now() - make_interval(mins => $3)) returning id`,
        [companyId, plate, stored.length - index],
      );
      ids.push(row!.id);
    }
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await app.db.orm.migrator.up();
      const plates = await app.db.query<{ id: string; plate_number: string }>(
        'select id, plate_number from buses where id = any($1::uuid[])',
        [ids],
      );
      const plateOf = new Map(plates.map((row) => [row.id, row.plate_number]));
      expect(ids.map((id) => plateOf.get(id))).toEqual([
        'دمشق 123456',
        'حمص 123',
        'حلب 111',
        'حـلب ١١١',
        'ـ-12',
        'دمشق 123456',
      ]);
      const report = warn.mock.calls.map((call) => String(call[0])).join('\n');
      expect(report).toContain(`${company.id} ${ids[3]} "حـلب ١١١" (حلب 111)`);
      expect(report).toContain(`${company.id} ${ids[4]} "ـ-12" (-12)`);
      expect(report).not.toContain(ids[0]);
    } finally {
      warn.mockRestore();
    }

    const owner = await staffSession(app.db, app.config, company.id, 'OWNER');
    for (const typed of ['دمشق 123456', 'حمص ١٢٣', 'حلب ۱۱۱']) {
      const again = await dashboard(app, owner, 'POST', '/buses', { plate_number: typed });
      expect([again.status, again.body.errorCode], typed).toEqual([409, 'BUS_PLATE_TAKEN']);
    }
    const [count] = await app.db.query<{ n: number }>(
      'select count(*)::int as n from buses where company_id = $1',
      [company.id],
    );
    expect(count!.n).toBe(5);
  });
});
