import { describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { dashboard } from '../../support/planning.js';

/**
 * README "Company planning" (Buses): a plate is unique per company, one plate one bus whatever the case,
 * the digits and the tatweel it is typed with. Syrian plates print their number in Arabic-Indic (١٢٣)
 * and Latin (123) digits and Arabic or Persian keyboards type either (۱۲۳); a tatweel (دمـشق) only
 * stretches a letter. The plate is stored in ASCII digits without tatweel, so the unique plate of the
 * company refuses the same plate typed the other way: 409 BUS_PLATE_TAKEN, no second bus.
 */
describe('a bus plate typed with other digits or a tatweel is the same plate', () => {
  const app = useTestApp();

  async function ownerOfNewCompany() {
    const company = await createCompany(app.db);
    const session = await staffSession(app.db, app.config, company.id, 'OWNER');
    const createBus = (plate_number: string) => dashboard(app, session, 'POST', '/buses', { plate_number });
    const plates = async () =>
      (
        await app.db.query<{ plate_number: string }>(
          'select plate_number from buses where company_id = $1 order by created_at, id',
          [company.id],
        )
      ).map((row) => row.plate_number);
    return { createBus, plates };
  }

  it('refuses a second bus whose plate differs only in its digits: Arabic-Indic or Persian', async () => {
    const { createBus, plates } = await ownerOfNewCompany();
    const first = await createBus('دمشق 123456');
    expect(first.status, first.text).toBe(201);
    for (const typed of ['دمشق ١٢٣٤٥٦', 'دمشق ۱۲۳۴۵۶', 'دمشق ١٢٣456']) {
      const second = await createBus(typed);
      expect([second.status, second.body.errorCode], typed).toEqual([409, 'BUS_PLATE_TAKEN']);
    }
    expect(await plates()).toEqual(['دمشق 123456']);
  });

  it('refuses a second bus whose plate differs only by a tatweel or doubled spaces', async () => {
    const { createBus, plates } = await ownerOfNewCompany();
    const first = await createBus('دمشق 654321');
    expect(first.status, first.text).toBe(201);
    for (const typed of ['دمـشق 654321', 'دمــشق   654321']) {
      const second = await createBus(typed);
      expect([second.status, second.body.errorCode], typed).toEqual([409, 'BUS_PLATE_TAKEN']);
    }
    expect(await plates()).toEqual(['دمشق 654321']);
  });

  it('stores and answers a plate typed in Arabic-Indic digits with a tatweel in ASCII digits without it', async () => {
    const { createBus, plates } = await ownerOfNewCompany();
    const created = await createBus('حـلب  ٧٧٨٨٩٩');
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.bus.plate_number).toBe('حلب 778899');
    expect(await plates()).toEqual(['حلب 778899']);
    const again = await createBus('حلب 778899');
    expect([again.status, again.body.errorCode]).toEqual([409, 'BUS_PLATE_TAKEN']);
    expect(await plates()).toEqual(['حلب 778899']);
  });

  it('refuses a plate left under 2 characters once its tatweel is dropped: no bus added', async () => {
    const { createBus, plates } = await ownerOfNewCompany();
    const refused = await createBus('ـ1');
    expect([refused.status, refused.body.errorCode]).toEqual([400, 'VALIDATION_FAILED']);
    expect(refused.body.details.issues).toContainEqual(
      expect.objectContaining({ path: 'body.plate_number' }),
    );
    expect(await plates()).toEqual([]);
  });
});
