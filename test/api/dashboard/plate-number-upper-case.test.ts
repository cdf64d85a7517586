import { describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { dashboard } from '../../support/planning.js';

/**
 * A bus's plate_number is 2 to 20 letters, digits, spaces and dashes (the document's minLength,
 * maxLength and pattern) and is stored in upper case. A capital can be longer than its letter
 * (ß → SS) or carry a combining mark (ǰ → J̌, ΐ → Ϊ́), so the plate is checked again once upper-cased:
 * what is stored keeps the rule the request was checked against, and one that would not is refused.
 */

interface PlateRule {
  minLength: number;
  maxLength: number;
  pattern: string;
}

/** The rule GET /api/openapi.json states for POST /dashboard/api/buses's plate_number. */
async function documentedPlateRule(app: TestApp): Promise<PlateRule> {
  const document = (await app.request('/api/openapi.json')).body;
  const body = document.paths['/dashboard/api/buses'].post.requestBody.content['application/json'].schema;
  return body.properties.plate_number as PlateRule;
}

const follows = (rule: PlateRule, plate: string) =>
  [...plate].length >= rule.minLength &&
  [...plate].length <= rule.maxLength &&
  new RegExp(rule.pattern, 'u').test(plate);

describe('a plate number keeps its rule once upper-cased', () => {
  const app = useTestApp();

  async function owner() {
    const company = await createCompany(app.db);
    return { companyId: company.id, session: await staffSession(app.db, app.config, company.id, 'OWNER') };
  }

  const platesOf = async (companyId: string) =>
    (
      await app.db.query<{ plate_number: string }>('select plate_number from buses where company_id = $1', [
        companyId,
      ])
    ).map((row) => row.plate_number);

  it('refuses a plate whose capitals break the rule, storing no bus', async () => {
    const rule = await documentedPlateRule(app);
    const { companyId, session } = await owner();
    const plates = {
      'ß×19 and ΐ (20 characters; 41 in capitals)': 'ß'.repeat(19) + 'ΐ',
      'ß×11 (11 characters; SS×11 is 22)': 'ß'.repeat(11),
      'ǰ (its capital J̌ takes a combining mark)': 'AB ǰ1',
      'ΐ (its capital Ϊ́ takes two)': 'ΐ 12',
    };
    for (const [what, plate] of Object.entries(plates)) {
      // As typed, each follows the documented rule: only its capitals break it.
      expect(follows(rule, plate), what).toBe(true);
      const refused = await dashboard(app, session, 'POST', '/buses', { plate_number: plate });
      expect([refused.status, refused.body.errorCode], what).toEqual([400, 'VALIDATION_FAILED']);
      expect(refused.body.details.issues, what).toContainEqual(
        expect.objectContaining({ path: 'body.plate_number' }),
      );
    }
    expect(await platesOf(companyId)).toEqual([]);
  });

  it('stores a plate whose capitals keep the rule, ß as SS up to 20 characters', async () => {
    const rule = await documentedPlateRule(app);
    const { companyId, session } = await owner();
    for (const plate of ['ß'.repeat(10), 'straße 12-b', 'دمشق 123-45']) {
      const created = await dashboard(app, session, 'POST', '/buses', { plate_number: plate });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.bus.plate_number).toBe(plate.toUpperCase());
    }
    const stored = await platesOf(companyId);
    expect(stored.sort()).toEqual(['SS'.repeat(10), 'STRASSE 12-B', 'دمشق 123-45'].sort());
    for (const plate of stored) expect(follows(rule, plate), plate).toBe(true);
  });
});
