import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/harness.js';
import { bookableTrip, bookingBody, lockSeats, postBooking } from '../support/bookings.js';
import {
  confirmJourney,
  holdJourney,
  journeyFacts,
  mobileTraveller,
  quote,
  tripOf,
  type Caller,
} from '../support/journeys.js';
import { dashboard, planningSnapshot, planningWorld } from '../support/planning.js';

/**
 * A person's name is what a ticket, the signed boarding credential, the manifest and the driver's
 * screen show to tell a passenger by. A name of diacritics, tatweel or invisible format characters
 * alone prints blank, so every field that takes one needs a letter, as a city's name does
 * (api/http/schemas.ts LetteredName); a refused name changes nothing.
 */

/** Names with no letter: each prints nothing at all. */
const LETTERLESS_NAMES = {
  'a right-to-left mark': '\u200F',
  'a zero-width space': '\u200B',
  'tatweel alone': '\u0640\u0640\u0640',
  'vowel marks alone': '\u064B\u064E\u0650\u0652',
  'tatweel carrying marks, between direction marks': '\u200F\u0640\u064E \u0640\u0651\u200F',
  'a compatibility letter made of marks (isolated fathatan)': '\uFE70',
};

/** An Arabic name written with its vowel marks and a direction mark: a name with letters. */
const MARKED_NAME = '\u200Fسَارَة الحَلَبِي';

async function lockFacts(app: TestApp, lockId: string) {
  const [batch] = await app.db.query(`select status from hold_batches where id = $1`, [lockId]);
  const allocations = await app.db.query(
    `select status, owner_kind from seat_allocations where hold_batch_id = $1 order by seat_id`,
    [lockId],
  );
  const bookings = await app.db.query(`select id from bookings where seat_lock_session_id = $1`, [lockId]);
  return { batch, allocations, bookings };
}

async function heldJourney(app: TestApp, caller: Caller) {
  const trip = await tripOf(app.db);
  const quoted = await quote(app, caller, [{ trip }], 1);
  const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
  expect(held.status, held.text).toBe(200);
  return { quoted, holdBatchId: held.body.data.holdBatchId as string };
}

describe('a person name with no letter', () => {
  const app = useTestApp();

  it('POST /bookings: refused as INVALID_PASSENGER_NAME, the lock untouched; a marked Arabic name books', async () => {
    const trip = await bookableTrip(app.db);
    const caller = await mobileTraveller(app);
    const lockId = await lockSeats(app, caller, trip.tripId, ['2']);
    const valid = bookingBody({ tripId: trip.tripId, seatNumbers: ['2'], seatLockSessionId: lockId });
    const before = await lockFacts(app, lockId);
    for (const [what, name] of Object.entries(LETTERLESS_NAMES)) {
      const refused = await postBooking(app, caller, { ...valid, passenger_name: name });
      expect([refused.status, refused.body.errorCode], what).toEqual([400, 'INVALID_PASSENGER_NAME']);
    }
    expect(await lockFacts(app, lockId)).toEqual(before);

    const booked = await postBooking(app, caller, { ...valid, passenger_name: MARKED_NAME });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body.data.booking.passenger_name).toBe(MARKED_NAME);
  });

  it('POST /journeys/{id}/confirm: refused with VALIDATION_FAILED at the traveller, nothing confirmed', async () => {
    const caller = await mobileTraveller(app);
    const { quoted, holdBatchId } = await heldJourney(app, caller);
    const body = (name: string, key: string) => ({
      quote_id: quoted.quote_id,
      hold_batch_id: holdBatchId,
      travellers: [{ name }],
      idempotency_key: key,
    });
    const before = await journeyFacts(app.db, quoted.journey_id);
    for (const [index, [what, name]] of Object.entries(LETTERLESS_NAMES).entries()) {
      const refused = await confirmJourney(app, caller, quoted.journey_id, body(name, `blank-name-${index}`));
      expect([refused.status, refused.body.errorCode], what).toEqual([400, 'VALIDATION_FAILED']);
      expect(refused.body.details.issues, what).toContainEqual(
        expect.objectContaining({ path: 'body.travellers.0.name' }),
      );
    }
    expect(await journeyFacts(app.db, quoted.journey_id)).toEqual(before);
    expect(before.tickets).toEqual([]);

    const confirmed = await confirmJourney(app, caller, quoted.journey_id, body(MARKED_NAME, 'marked-name'));
    expect(confirmed.status, confirmed.text).toBe(200);
    const tickets = await app.db.query(`select traveller_name from journey_tickets where journey_id = $1`, [
      quoted.journey_id,
    ]);
    expect(tickets).toEqual([{ traveller_name: MARKED_NAME }]);
  });

  it("a driver's name (printed on the manifest): refused with VALIDATION_FAILED, nobody created", async () => {
    const world = await planningWorld(app);
    const createDriver = (name: string) =>
      dashboard(app, world.sessions.OWNER, 'POST', '/drivers', {
        email: `driver-${Math.random().toString(36).slice(2, 10)}@company.test`,
        name,
        password: 'long enough secret',
      });
    const rows = async () => ({
      fleet: await planningSnapshot(app.db, world.companyId),
      users: await app.db.query(`select id from staff_users where email like 'driver-%@company.test'`),
    });
    const before = await rows();
    for (const [what, name] of Object.entries(LETTERLESS_NAMES)) {
      // A driver's name is at least 2 characters: pad the one-character names with another mark.
      const refused = await createDriver(`${name}\u200B`);
      expect([refused.status, refused.body.errorCode], what).toEqual([400, 'VALIDATION_FAILED']);
      expect(refused.body.details.issues, what).toContainEqual(
        expect.objectContaining({ path: 'body.name' }),
      );
    }
    expect(await rows()).toEqual(before);
  });

  it('the OpenAPI document states the letter rule on every such name field', async () => {
    const response = await app.request('/api/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body;
    const resolve = (schema: any): any =>
      schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;
    const body = (path: string) =>
      resolve(document.paths[path].post.requestBody.content['application/json'].schema);
    const traveller = resolve(body('/api/journeys/{bookingId}/confirm').properties.travellers.items);
    const fields: [string, any][] = [
      ['passenger_name', body('/api/bookings').properties.passenger_name],
      ['round trip passenger_name', body('/api/bookings/round-trip').properties.passenger_name],
      ['traveller name', traveller.properties.name],
      ['verify-otp name', body('/api/auth/customer/verify-otp').properties.name],
      ['driver name', body('/dashboard/api/drivers').properties.name],
    ];
    for (const [what, schema] of fields) {
      const patterns = [schema.pattern, ...(schema.allOf ?? []).map((part: any) => part.pattern)]
        .filter(Boolean)
        .map((pattern: string) => new RegExp(pattern, 'u'));
      const takes = (name: string) => patterns.every((pattern) => pattern.test(name));
      expect(takes(MARKED_NAME), what).toBe(true);
      for (const [blank, name] of Object.entries(LETTERLESS_NAMES))
        if (blank !== 'a compatibility letter made of marks (isolated fathatan)')
          expect(takes(name), `${what}: ${blank}`).toBe(false);
      expect(schema.description, what).toContain('needs a letter');
    }
  });
});
