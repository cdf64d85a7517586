import { beforeAll, describe, expect, it } from 'vitest';
import { booked, cancelBooking, minutesFromNow, sameRouteTrip } from '../../support/booking-changes.js';
import { createCity, createCompany, createStop } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { mobileTraveller } from '../../support/journeys.js';
import { demotedWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';

const PATH = '/dashboard/api/settings';

describe('GET and PATCH /dashboard/api/settings', () => {
  const app = useTestApp();
  let companyId: string;
  let owner: Awaited<ReturnType<typeof staffSession>>;

  beforeAll(async () => {
    companyId = (await createCompany(app.db, { name: `Settings ${Date.now()}` })).id;
    owner = await staffSession(app.db, app.config, companyId, 'OWNER');
  });

  /** Everything the settings are stored as, to prove a refused change left it alone. */
  async function stored(id = companyId) {
    const [company] = await app.db.query(
      `select name_ar, name_en, phone, email from companies where id = $1`,
      [id],
    );
    const settings = await app.db.query(
      `select address_ar, address_en, cancellation_cutoff_minutes, default_pickup_location_id, updated_by
         from company_settings where company_id = $1`,
      [id],
    );
    const audit = await app.db.query(
      `select actor_id, details from audit_log where action = 'company.settings.update' and target_id = $1 order by created_at`,
      [id],
    );
    return { company, settings, audit };
  }

  /** A pickup point the company creates as its dashboard does; its id is the one the dashboard shows. */
  async function ownPickupPoint(session = owner) {
    const city = await createCity(app.db);
    const made = await app.request('/dashboard/api/pickup-locations', {
      method: 'POST',
      headers: session.writeHeaders,
      json: {
        city_id: city.id,
        name: 'موقف الشركة',
        nameEn: 'Company stop',
        address: 'عنوان الموقف',
        addressEn: 'Stop address',
        latitude: 33.51,
        longitude: 36.29,
      },
    });
    expect(made.status, made.text).toBe(201);
    return { id: made.body.data.id as string, city };
  }

  const patch = (headers: Record<string, string>, json: unknown) =>
    app.request(PATH, { method: 'PATCH', headers, json });

  it('shows the profile with the platform cut-off while the company has set none', async () => {
    const response = await app.request(PATH, { headers: { Cookie: owner.cookie } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      company: { id: companyId, status: 'ACTIVE', verified: true },
      contact: { phone: null, email: null, addressAr: '', addressEn: '' },
      operations: {
        cancellationCutoffMinutes: null,
        effectiveCancellationCutoffMinutes: 120,
        defaultPickupLocation: null,
      },
      updatedBy: null,
    });
    expect(response.headers.get('cache-control')).toContain('no-store');
  });

  it('changes names in both languages, contact, cut-off and default pickup point, and audits each change', async () => {
    const pickup = await ownPickupPoint();
    const response = await patch(owner.writeHeaders, {
      nameAr: 'شركة النجمة',
      nameEn: 'Star Lines',
      phone: '0944 123 456',
      email: 'Office@Star.example',
      addressAr: 'دمشق، شارع بغداد',
      addressEn: 'Baghdad Street, Damascus',
      cancellationCutoffMinutes: 240,
      defaultPickupLocationId: pickup.id.toUpperCase(),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      company: { nameAr: 'شركة النجمة', nameEn: 'Star Lines' },
      contact: {
        phone: '+963944123456',
        email: 'office@star.example',
        addressEn: 'Baghdad Street, Damascus',
      },
      operations: {
        cancellationCutoffMinutes: 240,
        effectiveCancellationCutoffMinutes: 240,
        defaultPickupLocation: { id: pickup.id, stopId: pickup.id, city: { id: pickup.city.id } },
      },
      updatedBy: owner.staffUserId,
    });
    const after = await stored();
    expect(after.company).toEqual({
      name_ar: 'شركة النجمة',
      name_en: 'Star Lines',
      phone: '+963944123456',
      email: 'office@star.example',
    });
    expect(after.audit).toHaveLength(1);
    expect(after.audit[0]).toMatchObject({
      actor_id: owner.staffUserId,
      details: {
        changes: {
          nameEn: { to: 'Star Lines' },
          cancellationCutoffMinutes: { from: null, to: 240 },
          defaultPickupLocationId: { from: null, to: pickup.id },
        },
      },
    });
    const read = await app.request(PATH, { headers: { Cookie: owner.cookie } });
    expect(read.body.data).toEqual(response.body.data);
  });

  it('takes as default the id the pickup-point listing shows, and answers that same id', async () => {
    const pickup = await ownPickupPoint();
    const listed = await app.request(`/dashboard/api/pickup-locations?city_id=${pickup.city.id}`, {
      headers: { Cookie: owner.cookie },
    });
    expect(listed.body.data.map((point: { id: string }) => point.id)).toContain(pickup.id);
    const set = await patch(owner.writeHeaders, { defaultPickupLocationId: pickup.id });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data.operations.defaultPickupLocation).toMatchObject({
      id: pickup.id,
      stopId: pickup.id,
    });
    // What GET answers is what PATCH takes: sending it back changes nothing.
    const read = await app.request(PATH, { headers: { Cookie: owner.cookie } });
    const again = await patch(owner.writeHeaders, {
      defaultPickupLocationId: read.body.data.operations.defaultPickupLocation.id,
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.operations.defaultPickupLocation.id).toBe(pickup.id);
    expect(((await stored()).audit.at(-1) as any).details.changes).toEqual({});
  });

  it('changes only the fields sent, and null clears the cut-off back to the platform default', async () => {
    const response = await patch(owner.writeHeaders, { cancellationCutoffMinutes: null, phone: null });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.operations.effectiveCancellationCutoffMinutes).toBe(120);
    expect(response.body.data.contact.phone).toBeNull();
    expect(response.body.data.company.nameEn).toBe('Star Lines');
    const audit = (await stored()).audit;
    expect((audit.at(-1) as any).details.changes).toEqual({
      cancellationCutoffMinutes: { from: 240, to: null },
      phone: { from: '+963944123456', to: null },
    });
  });

  it('refuses bad input with a clear code and changes nothing', async () => {
    const other = await createCompany(app.db);
    const foreignPickup = await ownPickupPoint(await staffSession(app.db, app.config, other.id, 'OWNER'));
    const publicStation = await createStop(app.db, (await createCity(app.db)).id);
    const disabledPickup = await ownPickupPoint();
    await app.db.query('update pickup_locations set enabled = false where stop_id = $1', [disabledPickup.id]);
    const before = await stored();
    const cases: [unknown, number, string][] = [
      [{}, 400, 'VALIDATION_FAILED'],
      [{ nameEn: 'x' }, 400, 'VALIDATION_FAILED'],
      // Printed on tickets: an override makes the name read as another ("\u202E" reverses what follows).
      [{ nameEn: '\u202Eseniltsub' }, 400, 'VALIDATION_FAILED'],
      [{ nameAr: 'حافلات\u0007' }, 400, 'VALIDATION_FAILED'],
      // The address is printed on the company's reports, as the names are on tickets.
      [{ addressEn: '12 \u202EBaghdad St' }, 400, 'VALIDATION_FAILED'],
      [{ addressAr: 'شارع\u0001بغداد' }, 400, 'VALIDATION_FAILED'],
      [{ nameEn: 'Fine', colour: 'red' }, 400, 'VALIDATION_FAILED'],
      [{ nameEn: 'Fine', companyId: other.id }, 400, 'SESSION_FIELD_REFUSED'],
      [{ phone: '12345' }, 400, 'VALIDATION_FAILED'],
      [{ email: 'not-an-address' }, 400, 'VALIDATION_FAILED'],
      [{ cancellationCutoffMinutes: -1 }, 400, 'VALIDATION_FAILED'],
      [{ cancellationCutoffMinutes: 10081 }, 400, 'VALIDATION_FAILED'],
      [{ cancellationCutoffMinutes: 12.5 }, 400, 'VALIDATION_FAILED'],
      [{ defaultPickupLocationId: 'pickup-1' }, 400, 'VALIDATION_FAILED'],
      [{ nameEn: 'Sneaky', defaultPickupLocationId: foreignPickup.id }, 422, 'PICKUP_LOCATION_NOT_OWNED'],
      [{ defaultPickupLocationId: publicStation.id }, 422, 'PICKUP_LOCATION_NOT_OWNED'],
      [{ defaultPickupLocationId: disabledPickup.id }, 422, 'PICKUP_LOCATION_NOT_OWNED'],
    ];
    for (const [body, status, errorCode] of cases) {
      const response = await patch(owner.writeHeaders, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.errorCode, JSON.stringify(body)).toBe(errorCode);
    }
    expect(await stored()).toEqual(before);
    expect((await stored(other.id)).settings).toEqual([]);
  });

  it('lets every role read; only OWNER and ADMIN change, with the CSRF header, of an active company', async () => {
    for (const role of ['ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const) {
      const member = await staffSession(app.db, app.config, companyId, role);
      const read = await app.request(PATH, { headers: { Cookie: member.cookie } });
      expect(read.status, role).toBe(200);
      expect(read.body.data.company.id).toBe(companyId);
      const before = await stored();
      const change = await patch(member.writeHeaders, { addressEn: `Changed by ${role}` });
      if (role === 'ADMIN') {
        expect(change.status, change.text).toBe(200);
        expect(change.body.data.updatedBy).toBe(member.staffUserId);
      } else {
        expect(change.status, role).toBe(403);
        expect(change.body.errorCode).toBe('ROLE_NOT_ALLOWED');
        expect(await stored()).toEqual(before);
      }
    }
    const before = await stored();
    const noCsrf = await patch({ Cookie: owner.cookie }, { addressEn: 'No token' });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    expect((await app.request(PATH)).status).toBe(401);
    expect(await stored()).toEqual(before);
  });

  it('moves updatedAt to the time of every change, also of one of the names or the contact alone', async () => {
    const company = await createCompany(app.db);
    const session = await staffSession(app.db, app.config, company.id, 'OWNER');
    expect((await patch(session.writeHeaders, { addressEn: 'First address' })).status).toBe(200);
    for (const change of [
      { nameEn: 'Renamed Lines' },
      { nameAr: 'خطوط جديدة' },
      { phone: '0944 555 666' },
      { email: 'desk@renamed.example' },
    ]) {
      // The change before is an hour old: the answer must not still show its time.
      await app.db.query(
        `update company_settings set updated_at = now() - interval '1 hour' where company_id = $1`,
        [company.id],
      );
      const response = await patch(session.writeHeaders, change);
      expect(response.status, response.text).toBe(200);
      const age = Date.now() - Date.parse(response.body.data.updatedAt);
      expect(age, JSON.stringify(change)).toBeLessThan(10 * 60_000);
      const read = await app.request(PATH, { headers: { Cookie: session.cookie } });
      expect(read.body.data.updatedAt).toBe(response.body.data.updatedAt);
    }
  });

  it('refuses a change that reaches the company after its suspension committed meanwhile, changing nothing', async () => {
    const company = await createCompany(app.db);
    const session = await staffSession(app.db, app.config, company.id, 'OWNER');
    const before = await stored(company.id);
    const refused = await suspendedWhileWriting(app.db, company.id, () =>
      patch(session.writeHeaders, { nameEn: 'Renamed while suspended', addressEn: 'Anywhere' }),
    );
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    expect(await stored(company.id)).toEqual(before);
  });

  it('refuses an ADMIN demoted to STAFF while the change waits for the company 403 ROLE_NOT_ALLOWED, changing nothing', async () => {
    const company = await createCompany(app.db);
    const admin = await staffSession(app.db, app.config, company.id, 'ADMIN');
    const before = await stored(company.id);
    const refused = await demotedWhileWriting(app.db, company.id, admin.membershipId, 'STAFF', () =>
      patch(admin.writeHeaders, { nameEn: 'Renamed by a demoted admin', addressEn: 'Anywhere' }),
    );
    expect([refused.status, refused.body.errorCode, refused.body.details], refused.text).toEqual([
      403,
      'ROLE_NOT_ALLOWED',
      { role: 'STAFF', allowedRoles: ['OWNER', 'ADMIN'] },
    ]);
    expect(await stored(company.id)).toEqual(before);
  });

  it('refuses a suspended company, and lets a company not yet verified complete its profile', async () => {
    const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
    const suspendedOwner = await staffSession(app.db, app.config, suspended.id, 'OWNER');
    expect((await app.request(PATH, { headers: { Cookie: suspendedOwner.cookie } })).status).toBe(200);
    const refused = await patch(suspendedOwner.writeHeaders, { addressEn: 'Anything' });
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('COMPANY_SUSPENDED');
    expect((await stored(suspended.id)).settings).toEqual([]);

    const unverified = await createCompany(app.db, { verified: false });
    const newOwner = await staffSession(app.db, app.config, unverified.id, 'OWNER');
    const saved = await patch(newOwner.writeHeaders, { addressAr: 'حلب' });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.data.contact.addressAr).toBe('حلب');
  });
});

describe("the company's cancellation cut-off decides when its travellers may cancel", () => {
  const app = useTestApp();

  it('uses the company cut-off when set, and the platform default of 120 minutes otherwise', async () => {
    const caller = await mobileTraveller(app);
    // Departs in 5 hours: inside a 6-hour company cut-off, outside the platform's 2 hours.
    const first = await booked(app, caller, { departAt: minutesFromNow(300) });
    const owner = await staffSession(app.db, app.config, first.trip.companyId, 'OWNER');
    const set = await app.request(PATH, {
      method: 'PATCH',
      headers: owner.writeHeaders,
      json: { cancellationCutoffMinutes: 360 },
    });
    expect(set.status, set.text).toBe(200);

    const refused = await cancelBooking(app, caller, first.booking.id);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({
      errorCode: 'CANCELLATION_TOO_LATE',
      details: { cutoff_minutes: 360 },
    });

    const cleared = await app.request(PATH, {
      method: 'PATCH',
      headers: owner.writeHeaders,
      json: { cancellationCutoffMinutes: null },
    });
    expect(cleared.status).toBe(200);
    const second = await booked(app, caller, {
      trip: await sameRouteTrip(app.db, first.trip, minutesFromNow(300)),
    });
    const allowed = await cancelBooking(app, caller, second.booking.id);
    expect(allowed.status, allowed.text).toBe(200);
  });
});
