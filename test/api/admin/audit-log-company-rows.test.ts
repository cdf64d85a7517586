import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AUDIT_ROW_KINDS } from '../../../db/migrations/Migration20261208000000_audit_row_kinds.js';
import { useTestApp } from '../../support/harness.js';
import { advance, bookSeats, operationsWorld, scan } from '../../support/operations.js';
import { createStaffMember, staffLogin } from '../../support/staff.js';
import { signedInAdmin } from './helpers.js';

type Item = { action: string; actorKind: string; actorId: string; targetKind: string; targetId: string };

/**
 * What an administrator finds in the audit log about a company's people: every row about the
 * company names its kind the same way (company), whichever path wrote it, so the targetKind filter
 * finds the staff's and drivers' sign-ins and sign-outs with the rest; and what a driver does in the
 * driver app is filed under the driver (actorKind DRIVER), as their sign-in is.
 */
describe("GET /audit-log: a company's staff and drivers as the filters find them", () => {
  const app = useTestApp({
    STAFF_LOGIN_MAX_PER_IP: 10_000,
    STAFF_LOGIN_MAX_PER_EMAIL: 10_000,
    ADMIN_LOGIN_MAX_PER_IP: 10_000,
  });

  const items = (answer: { body: { data: { items: Item[] } } }) => answer.body.data.items;
  const rowsOf = (answer: { body: { data: { items: Item[] } } }) =>
    items(answer)
      .map((row) => [row.action, row.targetKind])
      .sort();

  it('files sign-ins and sign-outs of the dashboard and the driver app under targetKind company, as a settings change', async () => {
    const { browser } = await signedInAdmin(app);
    const world = await operationsWorld(app, { seats: 4 });
    const owner = await createStaffMember(app.db, world.companyId, 'OWNER');
    const signedIn = await staffLogin(app, { email: owner.email, password: owner.password });
    expect(signedIn.response.status, signedIn.response.text).toBe(200);
    const changed = await app.request('/dashboard/api/settings', {
      method: 'PATCH',
      headers: signedIn.writeHeaders,
      json: { addressEn: 'Baghdad Street' },
    });
    expect(changed.status, changed.text).toBe(200);
    const signedOut = await app.request('/dashboard/api/auth/logout', {
      method: 'POST',
      headers: signedIn.writeHeaders,
    });
    expect(signedOut.status, signedOut.text).toBe(200);
    const driverIn = await app.request('/driver/api/auth/login', {
      method: 'POST',
      json: { email: world.driver.email, password: world.driver.password },
    });
    expect(driverIn.status, driverIn.text).toBe(200);
    const driverOut = await app.request('/driver/api/auth/logout', {
      method: 'POST',
      token: driverIn.body.data.token,
    });
    expect(driverOut.status, driverOut.text).toBe(200);
    // A refused sign-in (wrong password) writes no row at all.
    const refused = await staffLogin(app, { email: owner.email, password: 'not the password' });
    expect(refused.response.status).toBe(401);

    const expected = [
      ['DRIVER_SIGNED_IN', 'company'],
      ['DRIVER_SIGNED_OUT', 'company'],
      ['STAFF_SIGNED_IN', 'company'],
      ['STAFF_SIGNED_OUT', 'company'],
      ['company.settings.update', 'company'],
    ];
    const all = await browser.get(`/audit-log?target=${world.companyId}&limit=100`);
    expect(all.status, all.text).toBe(200);
    expect(rowsOf(all)).toEqual(expected);
    const byKind = await browser.get(`/audit-log?target=${world.companyId}&targetKind=company&limit=100`);
    expect(byKind.status, byKind.text).toBe(200);
    expect(rowsOf(byKind)).toEqual(expected);
    const upper = await browser.get(`/audit-log?target=${world.companyId}&targetKind=COMPANY`);
    expect(upper.status, upper.text).toBe(200);
    expect(items(upper)).toEqual([]);
  });

  it("files a driver's cash collection under actorKind DRIVER with their sign-in, and not under STAFF", async () => {
    const { browser } = await signedInAdmin(app);
    const world = await operationsWorld(app, { seats: 8 });
    const rami = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const scanned = await scan(app, world.driver.token, world.trip.tripId, rami.credentials[0]!);
    expect(scanned.body.data).toMatchObject({ outcome: 'CHECKED_IN' });
    const collect = () =>
      app.request(`/driver/api/trips/${world.trip.tripId}/bookings/${rami.bookingId}/cash-collection`, {
        method: 'POST',
        token: world.driver.token,
      });
    const collected = await collect();
    expect(collected.status, collected.text).toBe(201);
    // Sent again (an offline queue), it answers the same line and records nothing more.
    const again = await collect();
    expect(again.status, again.text).toBe(200);
    const paymentId: string = collected.body.data.id;
    const login = await app.request('/driver/api/auth/login', {
      method: 'POST',
      json: { email: world.driver.email, password: world.driver.password },
    });
    expect(login.status, login.text).toBe(200);

    const byDriver = await browser.get(`/audit-log?actor=${world.driver.staffUserId}&actorKind=DRIVER`);
    expect(byDriver.status, byDriver.text).toBe(200);
    expect(
      items(byDriver)
        .map((row) => [row.action, row.targetKind, row.targetId])
        .sort(),
    ).toEqual([
      ['DRIVER_SIGNED_IN', 'company', world.companyId],
      ['payments.driver_collection', 'payment', paymentId],
    ]);
    const asStaff = await browser.get(`/audit-log?actor=${world.driver.staffUserId}&actorKind=STAFF`);
    expect(asStaff.status, asStaff.text).toBe(200);
    expect(items(asStaff)).toEqual([]);
    // The company stays the first fact of the row's details, for the companies.view reader.
    const [row] = await app.db.query<{ details: Record<string, unknown> }>(
      `select details from audit_log where action = 'payments.driver_collection' and target_id = $1`,
      [paymentId],
    );
    expect(row!.details).toMatchObject({ companyId: world.companyId, bookingId: rami.bookingId });
  });

  it('the migration files the rows written before this release as the new rows are, and touches no other row', async () => {
    const { browser } = await signedInAdmin(app);
    const companyId = randomUUID();
    const staffId = randomUUID();
    const driverId = randomUUID();
    const paymentId = randomUUID();
    // As the sign-ins, sign-outs and driver collections before this release wrote them, and a
    // dashboard verification of that line (a staff member's act, which stays STAFF).
    await app.db.query(
      `insert into audit_log (actor_kind, actor_id, action, target_kind, target_id, details) values
         ('STAFF', $2, 'STAFF_SIGNED_IN', 'COMPANY', $1, '{}'),
         ('STAFF', $2, 'STAFF_SIGNED_OUT', 'COMPANY', $1, '{}'),
         ('DRIVER', $3, 'DRIVER_SIGNED_IN', 'COMPANY', $1, '{}'),
         ('DRIVER', $3, 'DRIVER_SIGNED_OUT', 'COMPANY', $1, '{}'),
         ('STAFF', $3, 'payments.driver_collection', 'payment', $4, jsonb_build_object('companyId', $1::text)),
         ('STAFF', $2, 'payments.verify', 'payment', $4, jsonb_build_object('companyId', $1::text))`,
      [companyId, staffId, driverId, paymentId],
    );
    const byKind = () => browser.get(`/audit-log?target=${companyId}&targetKind=company`);
    expect((await byKind()).body.data.items).toEqual([]);

    for (const statement of AUDIT_ROW_KINDS) await app.db.query(statement);

    const companyRows = await byKind();
    expect(companyRows.status, companyRows.text).toBe(200);
    expect(rowsOf(companyRows)).toEqual([
      ['DRIVER_SIGNED_IN', 'company'],
      ['DRIVER_SIGNED_OUT', 'company'],
      ['STAFF_SIGNED_IN', 'company'],
      ['STAFF_SIGNED_OUT', 'company'],
    ]);
    const driver = await browser.get(`/audit-log?actor=${driverId}&actorKind=DRIVER`);
    expect(
      items(driver)
        .map((row) => row.action)
        .sort(),
    ).toEqual(['DRIVER_SIGNED_IN', 'DRIVER_SIGNED_OUT', 'payments.driver_collection']);
    const staff = await browser.get(`/audit-log?actor=${staffId}&actorKind=STAFF`);
    expect(
      items(staff)
        .map((row) => row.action)
        .sort(),
    ).toEqual(['STAFF_SIGNED_IN', 'STAFF_SIGNED_OUT', 'payments.verify']);
  });
});
