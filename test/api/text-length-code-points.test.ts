import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PrintedProse, PrintedText } from '../../api/http/schemas.js';
import { createCompany } from '../support/factories.js';
import { useTestApp, type TestResponse } from '../support/harness.js';
import { staffSession } from '../support/journey-rows.js';
import { confirmJourney, holdForConfirm, journeyFacts, tripOf, webTraveller } from '../support/journeys.js';
import { expectError, signedInAdmin } from './admin/helpers.js';

/**
 * A text's length is counted in characters (Unicode code points), as the OpenAPI document's
 * minLength and maxLength and PostgreSQL's char_length count it, not in JavaScript's UTF-16 units.
 * A character outside the Basic Multilingual Plane (an emoji, a rarer CJK ideograph, a historic
 * script) is two UTF-16 units but one character: a text of exactly maxLength such characters is
 * taken and kept whole, one more is 400 VALIDATION_FAILED naming the limit, and fewer than
 * minLength is refused although its UTF-16 units would reach it. A refusal changes nothing.
 */

/** Astral characters: an emoji, a CJK Extension B ideograph, an Egyptian hieroglyph (2 UTF-16 units each). */
const ASTRAL = ['😀', '𠜎', '𓀀'];

/** A text of `count` characters, each outside the Basic Multilingual Plane. */
const astral = (count: number) => Array.from({ length: count }, (_, index) => ASTRAL[index % 3]).join('');

/** A 400 VALIDATION_FAILED whose issue at `path` names the bound that was broken. */
function expectLengthRefused(response: TestResponse, path: string, bound: RegExp) {
  expect([response.status, response.body.errorCode], response.text).toEqual([400, 'VALIDATION_FAILED']);
  expect(response.body.details.issues).toContainEqual(
    expect.objectContaining({ path, message: expect.stringMatching(bound) }),
  );
}

describe('text lengths count characters, as the OpenAPI document does', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  it('the customer API: a traveller name (PersonName, 1 to 120) of 120 emoji confirms and is printed whole; 121 is refused', async () => {
    const caller = await webTraveller(app);
    const trip = await tripOf(app.db);
    const { confirmBody, journeyId } = await holdForConfirm(app, caller, [{ trip }]);
    const confirmWith = (name: string) =>
      confirmJourney(app, caller, journeyId, { ...confirmBody, travellers: [{ name }] });

    const before = await journeyFacts(app.db, journeyId);
    expectLengthRefused(await confirmWith(astral(121)), 'body.travellers.0.name', /120/);
    expect(await journeyFacts(app.db, journeyId)).toEqual(before);

    const name = astral(120);
    expect(name).toHaveLength(240);
    const confirmed = await confirmWith(name);
    expect(confirmed.status, confirmed.text).toBe(200);
    const read = await app.request(`/api/journeys/${journeyId}`, { headers: caller.headers });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.tickets.map((ticket: { traveller_name: string }) => ticket.traveller_name)).toEqual(
      [name],
    );
  });

  it('the dashboard: a company name (2 to 120) of one emoji is refused, 120 are kept whole, 121 are refused', async () => {
    const company = await createCompany(app.db);
    const owner = await staffSession(app.db, app.config, company.id, 'OWNER');
    const patch = (json: object) =>
      app.request('/dashboard/api/settings', { method: 'PATCH', headers: owner.writeHeaders, json });
    const stored = () => app.db.query(`select name_ar, name_en from companies where id = $1`, [company.id]);

    const before = await stored();
    // One character is two UTF-16 units: enough for a count in units, under the document's minLength 2.
    expectLengthRefused(await patch({ nameEn: astral(1) }), 'body.nameEn', /2/);
    expectLengthRefused(await patch({ nameAr: astral(121) }), 'body.nameAr', /120/);
    expect(await stored()).toEqual(before);

    const name = astral(120);
    const changed = await patch({ nameAr: name, nameEn: astral(2) });
    expect(changed.status, changed.text).toBe(200);
    const read = await app.request('/dashboard/api/settings', { headers: { Cookie: owner.cookie } });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.company).toMatchObject({ nameAr: name, nameEn: astral(2) });
  });

  it("administration: a company action's reason (prose, 3 to 1000) of two emoji is refused, 1000 are kept whole, 1001 are refused", async () => {
    const company = await createCompany(app.db);
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const warn = (reason: string) => browser.send('POST', `/companies/${company.id}/warn`, { reason });
    const history = () =>
      app.db.query(`select reason from company_admin_actions where company_id = $1`, [company.id]);

    for (const [reason, bound] of [
      [astral(2), /3/],
      [astral(1001), /1000/],
    ] as const) {
      const refused = await warn(reason);
      expectError(refused, 400, 'VALIDATION_FAILED');
      expectLengthRefused(refused, 'body.reason', bound);
    }
    expect(await history()).toEqual([]);

    const reason = astral(1000);
    const warned = await warn(reason);
    expect(warned.status, warned.text).toBe(200);
    const read = await browser.get(`/companies/${company.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.history).toEqual([expect.objectContaining({ reason })]);
  });
});

describe('PrintedText and PrintedProse take exactly the astral texts their document takes', () => {
  // The document's reader: its pattern with Unicode semantics, its bounds in code points (JSON Schema's).
  const documentTakes = (schema: z.ZodType, text: string) => {
    const document = z.toJSONSchema(schema) as { pattern: string; minLength?: number; maxLength: number };
    const length = [...text].length;
    return (
      new RegExp(document.pattern, 'u').test(text) &&
      length >= (document.minLength ?? 0) &&
      length <= document.maxLength
    );
  };
  const samples = Array.from({ length: 15 }, (_, count) => [
    astral(count),
    ` ${astral(count)} `,
    `a${astral(count)}`,
    `${astral(count)}\u3000`,
  ]).flat();

  for (const [name, Text] of [
    ['PrintedText', PrintedText],
    ['PrintedProse', PrintedProse],
  ] as const) {
    for (const min of [0, 1, 2, 3, 5]) {
      it(`${name}(${min}, 12)`, () => {
        const schema = Text(min, 12);
        for (const text of samples) {
          expect(schema.safeParse(text).success, JSON.stringify(text)).toBe(documentTakes(schema, text));
        }
      });
    }
  }
});
