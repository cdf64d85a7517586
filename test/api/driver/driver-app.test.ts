import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  advance,
  anotherTrip,
  bookSeats,
  createDriver,
  dispatch,
  operationsWorld,
  scan,
  setTripStatus,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';
import { createCompany } from '../../support/factories.js';
import { addMembership, createStaffMember, staffLogin, STAFF_PASSWORD } from '../../support/staff.js';
import {
  demotedWhileWriting,
  signedOutWhileWriting,
  suspendedWhileWriting,
} from '../../support/suspension.js';

/** The driver app: sign-in, assigned trips, manifest, the scan at the door, and position reports feeding tracking. */
describe('the driver app (/driver/api)', () => {
  const app = useTestApp();
  let world: OperationsWorld;
  let rami: BookedTraveller;
  let lina: BookedTraveller;

  beforeAll(async () => {
    world = await operationsWorld(app, { seats: 8 });
    rami = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    lina = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
  });

  const checkIns = (ticketId: string) =>
    app.db.query(`select 1 from trip_operation_events where manifest_item_id = $1 and action = 'CHECK_IN'`, [
      ticketId,
    ]);

  /** When the booking was made, as the API writes instants (ISO 8601 UTC, milliseconds). */
  const bookedAt = async (bookingId: string) => {
    const [row] = await app.db.query<{ created_at: Date }>('select created_at from bookings where id = $1', [
      bookingId,
    ]);
    return new Date(row!.created_at).toISOString();
  };

  /** A driver's POST of a JSON body written as text, as a client sends it (JSON.stringify cannot write 1e400). */
  const postText = (path: string, body: string) =>
    app.request(path, {
      method: 'POST',
      token: world.driver.token,
      headers: { 'Content-Type': 'application/json' },
      body,
    });

  describe('signing in', () => {
    it('gives a driver a bearer token that lists their assigned trips only', async () => {
      const unassigned = await anotherTrip(app, world);
      await app.db.query('update trips set driver_id = null where id = $1', [unassigned]);
      const me = await app.request('/driver/api/auth/me', { token: world.driver.token });
      expect(me.body.data).toMatchObject({
        user: { id: world.driver.staffUserId },
        membership: { companyId: world.companyId, role: 'DRIVER' },
      });
      const trips = await app.request('/driver/api/trips', { token: world.driver.token });
      expect(trips.status, trips.text).toBe(200);
      const ids = trips.body.data.map((trip: { id: string }) => trip.id);
      expect(ids).toContain(world.trip.tripId);
      expect(ids).not.toContain(unassigned);
      expect(trips.body.data.find((trip: { id: string }) => trip.id === world.trip.tripId)).toMatchObject({
        status: 'SCHEDULED',
        travellers: 2,
        checked_in: 0,
      });
    });

    it('refuses a wrong password, a dashboard-only role and a token after logout', async () => {
      const wrong = await app.request('/driver/api/auth/login', {
        method: 'POST',
        json: { email: world.driver.email, password: 'not the password' },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.errorCode).toBe('INVALID_CREDENTIALS');
      const clerk = await createStaffMember(app.db, world.companyId, 'STAFF');
      const staff = await app.request('/driver/api/auth/login', {
        method: 'POST',
        json: { email: clerk.email, password: clerk.password },
      });
      expect(staff.status).toBe(401);
      const driver = await createDriver(app, world.companyId);
      const out = await app.request('/driver/api/auth/logout', { method: 'POST', token: driver.token });
      expect(out.status).toBe(200);
      const after = await app.request('/driver/api/trips', { token: driver.token });
      expect(after.status).toBe(401);
      const dashboard = await app.request('/dashboard/api/auth/login', {
        method: 'POST',
        json: { email: driver.email, password: driver.password },
      });
      expect(dashboard.status).toBe(401);
    });

    it('records a sign-out sent several times at once (an app retrying) once: one DRIVER_SIGNED_OUT per session', async () => {
      // The duplicates that pass authentication before the first sign-out commits still answer
      // 200 (the session is ended), the later ones 401; only the one that ended it is recorded.
      // The race is run on several sessions: each must end with one row.
      const sessionIds: string[] = [];
      for (let round = 0; round < 5; round++) {
        const driver = await createDriver(app, world.companyId);
        sessionIds.push(driver.sessionId);
        const answers = await Promise.all(
          Array.from({ length: 8 }, () =>
            app.request('/driver/api/auth/logout', { method: 'POST', token: driver.token }),
          ),
        );
        expect(answers.map((answer) => answer.status)).toContain(200);
        for (const answer of answers) expect([200, 401]).toContain(answer.status);
      }
      const open = await app.db.query(
        'select id from staff_sessions where id = any($1::uuid[]) and revoked_at is null',
        [sessionIds],
      );
      expect(open).toEqual([]);
      const signOuts = await app.db.query<{ session_id: string; n: number }>(
        `select details->>'sessionId' as session_id, count(*)::int as n from audit_log
          where action = 'DRIVER_SIGNED_OUT' and details->>'sessionId' = any($1::text[]) group by 1`,
        [sessionIds],
      );
      expect(Object.fromEntries(signOuts.map((row) => [row.session_id, row.n]))).toEqual(
        Object.fromEntries(sessionIds.map((id) => [id, 1])),
      );
    });

    it("takes a dashboard session's token as the bearer token (README), while its own token opens no dashboard", async () => {
      const owner = await createStaffMember(app.db, world.companyId, 'OWNER');
      const browser = await staffLogin(app, { email: owner.email, password: owner.password });
      const dashboardToken = /bb_staff=([^;]+)/.exec(browser.cookie)![1]!;
      expect((await app.request('/driver/api/auth/me', { token: dashboardToken })).status).toBe(200);
      const login = await app.request('/driver/api/auth/login', {
        method: 'POST',
        json: { email: owner.email, password: owner.password },
      });
      const token = login.body.data.token as string;
      const dashboard = await app.request('/dashboard/api/auth/me', {
        headers: { Cookie: `bb_staff=${token}` },
      });
      expect({ status: dashboard.status, errorCode: dashboard.body.errorCode }).toEqual({
        status: 401,
        errorCode: 'INVALID_CREDENTIAL',
      });
      // Each surface's logout ends the session it was given, and only that one.
      expect((await app.request('/driver/api/auth/logout', { method: 'POST', token })).status).toBe(200);
      expect((await app.request('/driver/api/auth/me', { token })).status).toBe(401);
      expect(
        (await app.request('/dashboard/api/auth/me', { headers: { Cookie: browser.cookie } })).status,
      ).toBe(200);
      const out = await app.request('/dashboard/api/auth/logout', {
        method: 'POST',
        headers: browser.writeHeaders,
      });
      expect(out.status).toBe(200);
      expect((await app.request('/driver/api/auth/me', { token: dashboardToken })).status).toBe(401);
    });

    it('sets no cookie, opens the DRIVER membership first and audits the sign-in and sign-out as DRIVER', async () => {
      const dispatcher = await createStaffMember(app.db, world.companyId, 'DISPATCHER');
      const otherCompany = (await createCompany(app.db)).id;
      await addMembership(app.db, dispatcher.userId, otherCompany, 'DRIVER');
      const login = await app.request('/driver/api/auth/login', {
        method: 'POST',
        json: { email: dispatcher.email, password: dispatcher.password },
      });
      expect(login.status, login.text).toBe(200);
      expect(login.headers.get('set-cookie')).toBeNull();
      expect(login.headers.get('cache-control')).toBe('private, no-store');
      expect(login.body.data.membership).toEqual({ companyId: otherCompany, role: 'DRIVER' });
      const token = login.body.data.token as string;
      expect((await app.request('/driver/api/auth/logout', { method: 'POST', token })).status).toBe(200);
      const audit = await app.db.query(
        `select actor_kind, action, target_id from audit_log where actor_id = $1 order by id`,
        [dispatcher.userId],
      );
      expect(audit).toEqual([
        { actor_kind: 'DRIVER', action: 'DRIVER_SIGNED_IN', target_id: otherCompany },
        { actor_kind: 'DRIVER', action: 'DRIVER_SIGNED_OUT', target_id: otherCompany },
      ]);
    });
  });

  describe('the manifest', () => {
    it("shows the trip's travellers to its driver", async () => {
      const response = await app.request(`/driver/api/trips/${world.trip.tripId}/manifest`, {
        token: world.driver.token,
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.counters).toMatchObject({ total: 2, pending: 2 });
      expect(
        response.body.data.manifest.map((item: { manifest_item_id: string }) => item.manifest_item_id),
      ).toEqual([rami.ticketIds[0], lina.ticketIds[0]]);
    });

    it('counts legacy bookings in the trip list and the manifest header as the manifest counters do', async () => {
      const fresh = await operationsWorld(app, { seats: 8 });
      const modern = await bookSeats(app, fresh.trip, [fresh.trip.seatNumbers[0]!]);
      const [source] = await app.db.query<{ passenger_id: string | null }>(
        'select passenger_id from bookings where id = $1',
        [modern.bookingId],
      );
      // Imported legacy rows (bookings without journey tickets): two travelled, one no-show, one cancelled.
      const statuses = ['CHECKED_IN', 'COMPLETED', 'NO_SHOW', 'CANCELLED'];
      for (const [index, status] of statuses.entries()) {
        await app.db.query(
          `insert into bookings (booking_code, company_id, trip_id, passenger_id, passenger_name, passenger_phone,
                                 seats_count, seat_numbers, status, payment_status, total_price, discount)
           values ('BK-LEGACY-' || substr(md5(random()::text), 1, 6), $1, $2, $3, 'Legacy Traveller',
                   '+963944000001', 1, array[$4], $5, 'PAID', 10000, 0)`,
          [
            fresh.companyId,
            fresh.trip.tripId,
            source!.passenger_id,
            fresh.trip.seatNumbers[index + 1]!,
            status,
          ],
        );
      }
      const manifest = await app.request(`/driver/api/trips/${fresh.trip.tripId}/manifest`, {
        token: fresh.driver.token,
      });
      expect(manifest.status, manifest.text).toBe(200);
      expect(manifest.body.data.counters).toMatchObject({ total: 4, checked_in: 2, no_show: 1, pending: 1 });
      expect(manifest.body.data.trip).toMatchObject({ travellers: 4, checked_in: 2 });
      const list = await app.request('/driver/api/trips?limit=100', { token: fresh.driver.token });
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.find((trip: { id: string }) => trip.id === fresh.trip.tripId)).toMatchObject({
        travellers: 4,
        checked_in: 2,
      });
    });

    it("keeps a driver out of other drivers' trips and other companies' trips", async () => {
      const other = await createDriver(app, world.companyId);
      const notMine = await app.request(`/driver/api/trips/${world.trip.tripId}/manifest`, {
        token: other.token,
      });
      expect(notMine.status).toBe(403);
      expect(notMine.body.errorCode).toBe('TRIP_NOT_ASSIGNED');
      const scanned = await scan(app, other.token, world.trip.tripId, rami.credentials[0]!);
      expect(scanned.status).toBe(403);
      const foreign = await operationsWorld(app, { seats: 4 });
      const elsewhere = await app.request(`/driver/api/trips/${foreign.trip.tripId}/manifest`, {
        token: world.driver.token,
      });
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body.errorCode).toBe('TRIP_NOT_FOUND');
    });
  });

  describe('the scan at the door', () => {
    it('refuses while the trip is not boarding, and records the answer', async () => {
      const response = await scan(app, world.driver.token, world.trip.tripId, rami.credentials[0]!);
      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toMatchObject({
        outcome: 'REFUSED',
        reason: 'TRIP_NOT_BOARDING',
        replayed: false,
      });
      expect(await checkIns(rami.ticketIds[0]!)).toHaveLength(0);
      const started = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'START_BOARDING' });
      expect(started.status).toBe(200);
    });

    it('checks in once however often the same scan is replayed', async () => {
      const clientScanId = randomUUID();
      // Queued offline between the sale and now (a check-in is never dated before its booking).
      const sold = Date.parse(await bookedAt(rami.bookingId));
      const scannedAt = new Date(Math.round((sold + Date.now()) / 2)).toISOString();
      const first = await scan(app, world.driver.token, world.trip.tripId, rami.credentials[0]!, {
        clientScanId,
        deviceId: 'door-1',
        scannedAt,
      });
      expect(first.status, first.text).toBe(200);
      expect(first.body.data).toMatchObject({
        outcome: 'CHECKED_IN',
        replayed: false,
        ticket: { ticketId: rami.ticketIds[0], status: 'USED', seatNumber: world.trip.seatNumbers[0] },
        checkedIn: {
          at: scannedAt,
          byStaffUserId: world.driver.staffUserId,
          source: 'DRIVER_APP',
          deviceId: 'door-1',
        },
        booking: { bookingCode: rami.bookingCode, paymentStatus: 'UNPAID' },
      });
      const replays = await Promise.all(
        [1, 2, 3].map(() =>
          scan(app, world.driver.token, world.trip.tripId, rami.credentials[0]!, {
            clientScanId,
            deviceId: 'door-1',
            scannedAt,
          }),
        ),
      );
      for (const replay of replays) {
        expect(replay.body.data).toEqual({ ...first.body.data, replayed: true });
      }
      expect(await checkIns(rami.ticketIds[0]!)).toHaveLength(1);
      const reused = await scan(app, world.driver.token, world.trip.tripId, lina.credentials[0]!, {
        clientScanId,
      });
      expect(reused.status).toBe(409);
      expect(reused.body.errorCode).toBe('SCAN_ID_REUSED');
    });

    describe('a scan the app resends more than 48 hours after it scanned', () => {
      afterEach(() => {
        vi.useRealTimers();
      });

      it('answers the stored answer, replayed, however late; a new scan that old is refused 400, storing nothing', async () => {
        const local = await operationsWorld(app, { seats: 4 });
        const [first, second] = [
          await bookSeats(app, local.trip, [local.trip.seatNumbers[0]!]),
          await bookSeats(app, local.trip, [local.trip.seatNumbers[1]!]),
        ];
        await advance(app, local.dispatcher, local.trip.tripId, 'START_BOARDING');
        const scannedAt = new Date().toISOString();
        const options = { clientScanId: randomUUID(), deviceId: 'door-1', scannedAt };
        // Checked in and answered, but the answer never reached the phone.
        const scanned = await scan(
          app,
          local.driver.token,
          local.trip.tripId,
          first.credentials[0]!,
          options,
        );
        expect(scanned.status, scanned.text).toBe(200);
        expect(scanned.body.data).toMatchObject({ outcome: 'CHECKED_IN', replayed: false });

        // The phone is back online two days later and sends its queue again.
        vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 49 * 3_600_000 });
        const replay = await scan(app, local.driver.token, local.trip.tripId, first.credentials[0]!, options);
        const reused = await scan(
          app,
          local.driver.token,
          local.trip.tripId,
          second.credentials[0]!,
          options,
        );
        const newScanId = randomUUID();
        const stale = await scan(app, local.driver.token, local.trip.tripId, second.credentials[0]!, {
          clientScanId: newScanId,
          deviceId: 'door-1',
          scannedAt,
        });
        vi.useRealTimers();

        expect(replay.status, replay.text).toBe(200);
        expect(replay.body.data).toEqual({ ...scanned.body.data, replayed: true });
        expect([reused.status, reused.body?.errorCode], reused.text).toEqual([409, 'SCAN_ID_REUSED']);
        expect([stale.status, stale.body?.errorCode], stale.text).toEqual([400, 'SCANNED_AT_OUT_OF_RANGE']);
        expect(await checkIns(first.ticketIds[0]!)).toHaveLength(1);
        expect(await checkIns(second.ticketIds[0]!)).toHaveLength(0);
        const stored = await app.db.query('select 1 from boarding_scans where client_scan_id = $1', [
          newScanId,
        ]);
        expect(stored).toHaveLength(0);
      });
    });

    it('dates a check-in queued offline with a clock set back no earlier than the booking was made', async () => {
      const late = await bookSeats(app, world.trip, [world.trip.seatNumbers[3]!]);
      const scannedAt = new Date(Date.now() - 47 * 3_600_000).toISOString();
      const response = await scan(app, world.driver.token, world.trip.tripId, late.credentials[0]!, {
        deviceId: 'door-1',
        scannedAt,
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toMatchObject({ outcome: 'CHECKED_IN', replayed: false });
      const [stored] = await app.db.query<{ at: Date; after_sale: boolean }>(
        `select k.attendance_at as at, k.attendance_at >= b.created_at and k.attendance_at >= k.issued_at as after_sale
         from journey_tickets k join bookings b on b.journey_id = k.journey_id where k.id = $1`,
        [late.ticketIds[0]],
      );
      expect(stored!.after_sale).toBe(true);
      expect(response.body.data.checkedIn.at).toBe(new Date(stored!.at).toISOString());
      expect(Date.parse(response.body.data.checkedIn.at)).toBeLessThanOrEqual(Date.now());
    });

    it('answers a second device ALREADY_CHECKED_IN with who and when', async () => {
      // The station dispatcher scans with the driver app too (any trip of the company).
      const response = await scan(app, world.dispatcher.token, world.trip.tripId, rami.credentials[0]!, {
        deviceId: 'station-2',
      });
      expect(response.body.data).toMatchObject({
        outcome: 'ALREADY_CHECKED_IN',
        replayed: false,
        checkedIn: { byStaffUserId: world.driver.staffUserId, source: 'DRIVER_APP', deviceId: 'door-1' },
      });
      expect(await checkIns(rami.ticketIds[0]!)).toHaveLength(1);
    });

    it("refuses another trip's ticket, a re-issued one and a forged one with the reason", async () => {
      const otherTrip = await anotherTrip(app, world);
      await setTripStatus(app.db, otherTrip, 'BOARDING');
      const wrongTrip = await scan(app, world.driver.token, otherTrip, lina.credentials[0]!);
      expect(wrongTrip.body.data).toMatchObject({ outcome: 'REFUSED', reason: 'WRONG_TRIP' });

      const forged = {
        ...lina.credentials[0]!,
        payload: { ...lina.credentials[0]!.payload, seatNumber: '99' },
      };
      const forgedScan = await scan(app, world.driver.token, world.trip.tripId, forged);
      expect(forgedScan.body.data).toMatchObject({ outcome: 'REFUSED', reason: 'SIGNATURE_INVALID' });
      expect(forgedScan.body.data.ticket).toBeUndefined();

      const reissued = await app.request('/api/tickets', {
        method: 'POST',
        headers: lina.caller.headers,
        json: { ticket_id: lina.ticketIds[0], reason: 'LOST_DEVICE' },
      });
      expect(reissued.status, reissued.text).toBe(201);
      const old = await scan(app, world.driver.token, world.trip.tripId, lina.credentials[0]!);
      expect(old.body.data).toMatchObject({ outcome: 'REFUSED', reason: 'TICKET_REISSUED' });
      const [fresh] = await app.db.query<{ payload: object; signature: string; id: string }>(
        `select id, payload, signature from journey_tickets where journey_id = (select journey_id from journey_tickets where id = $1)
         and status = 'VALID'`,
        [lina.ticketIds[0]],
      );
      const boarded = await scan(app, world.driver.token, world.trip.tripId, fresh!);
      expect(boarded.body.data).toMatchObject({ outcome: 'CHECKED_IN', ticket: { ticketId: fresh!.id } });
    });

    it('refuses EXPIRED, checking nobody in, a credential /verify calls EXPIRED: first stop once DEPARTED, any once ARRIVED', async () => {
      const local = await operationsWorld(app, { seats: 4 });
      const [first, second] = [
        await bookSeats(app, local.trip, [local.trip.seatNumbers[0]!]),
        await bookSeats(app, local.trip, [local.trip.seatNumbers[1]!]),
      ];
      const state = async (ticketId: string) =>
        app.db.query(
          `select k.status, k.attendance, k.attendance_at, k.boarding_authorized,
                  (select count(*)::int from trip_operation_events e where e.manifest_item_id = k.id) as events
           from journey_tickets k where k.id = $1`,
          [ticketId],
        );
      const atTheDoor = async (traveller: BookedTraveller) => {
        const credential = traveller.credentials[0]!;
        const verdict = await app.request('/driver/api/verify', {
          method: 'POST',
          token: local.driver.token,
          json: { payload: credential.payload, signature: credential.signature, tripId: local.trip.tripId },
        });
        expect(verdict.body.data, verdict.text).toMatchObject({ valid: false, reason: 'EXPIRED' });
        const before = await state(traveller.ticketIds[0]!);
        const clientScanId = randomUUID();
        const scanned = await scan(app, local.driver.token, local.trip.tripId, credential, { clientScanId });
        expect(scanned.status, scanned.text).toBe(200);
        expect(scanned.body.data).toMatchObject({
          outcome: 'REFUSED',
          reason: 'EXPIRED',
          replayed: false,
          ticket: { ticketId: traveller.ticketIds[0], status: 'VALID' },
          booking: { bookingCode: traveller.bookingCode, paymentStatus: 'UNPAID' },
        });
        expect(scanned.body.data.checkedIn).toBeUndefined();
        expect(await state(traveller.ticketIds[0]!)).toEqual(before);
        const [stored] = await app.db.query(
          'select outcome, reason from boarding_scans where company_id = $1 and client_scan_id = $2',
          [local.companyId, clientScanId],
        );
        expect(stored).toEqual({ outcome: 'REFUSED', reason: 'EXPIRED' });
      };
      await advance(app, local.dispatcher, local.trip.tripId, 'START_BOARDING', 'DEPART');
      // DEPARTED: the bus left the first stop, where this leg boards.
      await atTheDoor(first);
      await advance(app, local.dispatcher, local.trip.tripId, 'ARRIVE');
      await atTheDoor(second);
      expect(await checkIns(first.ticketIds[0]!)).toHaveLength(0);
      expect(await checkIns(second.ticketIds[0]!)).toHaveLength(0);
    });

    it('judges a scan queued offline at its scanned_at: scanned while boarding it checks in after DEPART, scanned after DEPART it is EXPIRED', async () => {
      const local = await operationsWorld(app, { seats: 4 });
      const [atTheDoor, afterDeparture] = [
        await bookSeats(app, local.trip, [local.trip.seatNumbers[0]!]),
        await bookSeats(app, local.trip, [local.trip.seatNumbers[1]!]),
      ];
      const tripId = local.trip.tripId;
      /** Just after `at` (the database's clock by default), as the API writes instants (ISO 8601 UTC, milliseconds). */
      const justAfter = async (at = 'clock_timestamp()') => {
        const [row] = await app.db.query<{ at: Date }>(`select ${at} + interval '1 millisecond' as at`);
        return new Date(row!.at).toISOString();
      };
      const verify = (traveller: BookedTraveller) =>
        app.request('/driver/api/verify', {
          method: 'POST',
          token: local.driver.token,
          json: {
            payload: traveller.credentials[0]!.payload,
            signature: traveller.credentials[0]!.signature,
            tripId,
          },
        });
      await advance(app, local.dispatcher, tripId, 'START_BOARDING');
      const whileBoarding = await justAfter();
      await advance(app, local.dispatcher, tripId, 'DEPART');
      const [departed] = await app.db.query<{ at: string }>(
        `select created_at::text as at from trip_operation_events where trip_id = $1 and action = 'DEPART'`,
        [tripId],
      );
      const afterDepart = await justAfter(`'${departed!.at}'::timestamptz`);
      // Both credentials are EXPIRED now: the bus left the first stop, where both legs board.
      for (const traveller of [atTheDoor, afterDeparture]) {
        expect((await verify(traveller)).body.data).toMatchObject({ valid: false, reason: 'EXPIRED' });
      }

      // Scanned at the door while boarding, the bus without signal; the queue syncs after DEPART.
      const synced = await scan(app, local.driver.token, tripId, atTheDoor.credentials[0]!, {
        deviceId: 'door-1',
        scannedAt: whileBoarding,
      });
      expect(synced.status, synced.text).toBe(200);
      expect(synced.body.data).toMatchObject({
        outcome: 'CHECKED_IN',
        replayed: false,
        ticket: { ticketId: atTheDoor.ticketIds[0], status: 'USED' },
        checkedIn: { at: whileBoarding, byStaffUserId: local.driver.staffUserId, source: 'DRIVER_APP' },
      });
      expect(await checkIns(atTheDoor.ticketIds[0]!)).toHaveLength(1);

      // Scanned after the bus left the stop: as /verify answered then.
      const ticketState = () =>
        app.db.query('select status, attendance, attendance_at from journey_tickets where id = $1', [
          afterDeparture.ticketIds[0],
        ]);
      const before = await ticketState();
      const clientScanId = randomUUID();
      const tooLate = await scan(app, local.driver.token, tripId, afterDeparture.credentials[0]!, {
        clientScanId,
        scannedAt: afterDepart,
      });
      expect(tooLate.status, tooLate.text).toBe(200);
      expect(tooLate.body.data).toMatchObject({
        outcome: 'REFUSED',
        reason: 'EXPIRED',
        ticket: { ticketId: afterDeparture.ticketIds[0], status: 'VALID' },
      });
      expect(tooLate.body.data.checkedIn).toBeUndefined();
      expect(await ticketState()).toEqual(before);
      expect(await checkIns(afterDeparture.ticketIds[0]!)).toHaveLength(0);
      const [stored] = await app.db.query(
        'select outcome, reason from boarding_scans where company_id = $1 and client_scan_id = $2',
        [local.companyId, clientScanId],
      );
      expect(stored).toEqual({ outcome: 'REFUSED', reason: 'EXPIRED' });
    });

    it("refuses a suspended company's scans", async () => {
      const suspended = await operationsWorld(app, { seats: 4 });
      await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [suspended.companyId]);
      const response = await scan(app, suspended.driver.token, suspended.trip.tripId, rami.credentials[0]!);
      expect(response.status).toBe(403);
      expect(response.body.errorCode).toBe('COMPANY_SUSPENDED');
    });

    describe('a scan whose driver changes while it waits for the company row', () => {
      /** A boarding trip of its own with one traveller, and the ticket's check-ins and stored scans. */
      const boardingWorld = async () => {
        const local = await operationsWorld(app, { seats: 4 });
        const traveller = await bookSeats(app, local.trip, [local.trip.seatNumbers[0]!]);
        const started = await dispatch(app, local.dispatcher, local.trip.tripId, {
          action: 'START_BOARDING',
        });
        expect(started.status, started.text).toBe(200);
        const written = async () => ({
          checkIns: await checkIns(traveller.ticketIds[0]!),
          scans: await app.db.query('select 1 from boarding_scans where trip_id = $1', [local.trip.tripId]),
        });
        return { local, traveller, written };
      };

      it('refuses a driver signed out meanwhile 401 INVALID_CREDENTIAL, checking nobody in and storing no answer', async () => {
        const { local, traveller, written } = await boardingWorld();
        const refused = await signedOutWhileWriting(app.db, local.companyId, local.driver.sessionId, () =>
          scan(app, local.driver.token, local.trip.tripId, traveller.credentials[0]!),
        );
        expect([refused.status, refused.body?.errorCode], refused.text).toEqual([401, 'INVALID_CREDENTIAL']);
        expect(await written()).toEqual({ checkIns: [], scans: [] });
      });

      it('refuses a driver whose membership became STAFF meanwhile 403 ROLE_NOT_ALLOWED, checking nobody in', async () => {
        const { local, traveller, written } = await boardingWorld();
        const refused = await demotedWhileWriting(
          app.db,
          local.companyId,
          local.driver.membershipId,
          'STAFF',
          () => scan(app, local.driver.token, local.trip.tripId, traveller.credentials[0]!),
        );
        expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'ROLE_NOT_ALLOWED']);
        expect(await written()).toEqual({ checkIns: [], scans: [] });
      });
    });

    it('refuses a malformed scan before doing anything', async () => {
      for (const body of [
        { payload: rami.credentials[0]!.payload, signature: 'x' },
        { client_scan_id: 'scan-1', payload: {}, signature: 'x' },
        { client_scan_id: randomUUID(), payload: {}, signature: 'x', extra: true },
      ]) {
        const response = await app.request(`/driver/api/trips/${world.trip.tripId}/scan`, {
          method: 'POST',
          token: world.driver.token,
          json: body,
        });
        expect(response.status).toBe(400);
      }
      const future = await scan(app, world.driver.token, world.trip.tripId, lina.credentials[0]!, {
        scannedAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect(future.status).toBe(400);
      expect(future.body.errorCode).toBe('SCANNED_AT_OUT_OF_RANGE');
    });

    it('refuses a deeply nested scan or verify body with 400, not 500', async () => {
      const depth = 5000;
      const nested = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      const payload = `{"keyId":"x","deep":${nested}}`;
      const scanned = await postText(
        `/driver/api/trips/${world.trip.tripId}/scan`,
        `{"client_scan_id":"${randomUUID()}","signature":"abc","payload":${payload}}`,
      );
      const verified = await postText(
        '/driver/api/verify',
        `{"tripId":"${world.trip.tripId}","signature":"abc","payload":${payload}}`,
      );
      const statuses = { scan: scanned.status, verify: verified.status };
      expect(statuses, `${scanned.text} | ${verified.text}`).toEqual({ scan: 400, verify: 400 });
      expect(scanned.body.errorCode).toBe('INVALID_JSON');

      // Nesting a schema would never need, but within the limit, gets the usual verdict.
      const shallow = `{"keyId":"x","deep":${'['.repeat(60)}1${']'.repeat(60)}}`;
      const answered = await postText(
        '/driver/api/verify',
        `{"tripId":"${world.trip.tripId}","signature":"abc","payload":${shallow}}`,
      );
      expect(answered.body.data, answered.text).toEqual({ valid: false, reason: 'UNKNOWN_KEY' });
    });

    it('answers a scan whose payload holds a number JSON.parse reads as Infinity without a 500', async () => {
      const response = await postText(
        `/driver/api/trips/${world.trip.tripId}/scan`,
        `{"client_scan_id":"${randomUUID()}","signature":"abc","payload":{"keyId":"nope","n":1e400}}`,
      );
      expect(response.status, response.text).toBeLessThan(500);

      // Under a published key it is refused as /verify refuses it, and a replay gets the stored answer.
      const credential = lina.credentials[0]!;
      const payload = `${JSON.stringify(credential.payload).slice(0, -1)},"n":1e400}`;
      const body = `{"client_scan_id":"${randomUUID()}","signature":"${credential.signature}","payload":${payload}}`;
      const scanned = await postText(`/driver/api/trips/${world.trip.tripId}/scan`, body);
      expect(scanned.body.data, scanned.text).toMatchObject({
        outcome: 'REFUSED',
        reason: 'SIGNATURE_INVALID',
        replayed: false,
      });
      const replayed = await postText(`/driver/api/trips/${world.trip.tripId}/scan`, body);
      expect(replayed.body.data).toEqual({ ...scanned.body.data, replayed: true });
      const verified = await postText(
        '/driver/api/verify',
        `{"tripId":"${world.trip.tripId}","signature":"${credential.signature}","payload":${payload}}`,
      );
      expect(verified.body.data).toEqual({ valid: false, reason: 'SIGNATURE_INVALID' });
    });
  });

  describe('positions and tracking', () => {
    const report = (tripId: string, positions: unknown[], token = world.driver.token) =>
      app.request(`/driver/api/trips/${tripId}/positions`, { method: 'POST', token, json: { positions } });
    const tracking = async (tripId: string) => {
      const response = await app.request('/dashboard/api/tracking/active-trips?limit=100', {
        headers: { Cookie: world.sessions.STAFF.cookie },
      });
      expect(response.status, response.text).toBe(200);
      return response.body.data.find((trip: { trip_id: string }) => trip.trip_id === tripId);
    };

    it('stores a batch once and shows the trip live', async () => {
      const now = Date.now();
      const batch = [
        { lat: 33.51, lon: 36.29, speed: 0, time: new Date(now - 90_000).toISOString() },
        {
          lat: 33.52,
          lon: 36.3,
          speed: 42.5,
          heading: 10,
          accuracy: 8,
          time: new Date(now - 30_000).toISOString(),
        },
      ];
      const first = await report(world.trip.tripId, batch);
      expect(first.status, first.text).toBe(200);
      expect(first.body.data).toEqual({ accepted: 2, duplicates: 0 });
      const again = await report(world.trip.tripId, batch);
      expect(again.body.data).toEqual({ accepted: 0, duplicates: 2 });
      expect(await tracking(world.trip.tripId)).toMatchObject({
        status: 'BOARDING',
        tracking: {
          state: 'LIVE',
          source: 'DRIVER_APP',
          last_update_at: batch[1]!.time,
          position: { latitude: 33.52, longitude: 36.3, speed_kmh: 42.5, heading: 10 },
        },
      });
    });

    describe('a batch the app resends more than 48 hours after its positions were taken', () => {
      afterEach(() => {
        vi.useRealTimers();
      });

      it('counts the positions already stored as duplicates however old; a new one that old refuses the batch 400', async () => {
        const tripId = await anotherTrip(app, world);
        await setTripStatus(app.db, tripId, 'DEPARTED');
        const stored = async () =>
          (
            await app.db.query<{ at: Date }>(
              'select recorded_at as at from trip_positions where trip_id = $1 order by recorded_at',
              [tripId],
            )
          ).map((row) => new Date(row.at).toISOString());
        const taken = new Date(Date.now() - 60_000).toISOString();
        const first = await report(tripId, [{ lat: 33.5, lon: 36.3, time: taken }]);
        expect(first.body.data, first.text).toEqual({ accepted: 1, duplicates: 0 });

        vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 49 * 3_600_000 });
        const fresh = new Date(Date.now() - 3_600_000).toISOString();
        const replay = await report(tripId, [{ lat: 33.5, lon: 36.3, time: taken }]);
        const staleNew = await report(tripId, [
          { lat: 33.5, lon: 36.3, time: taken },
          { lat: 33.6, lon: 36.4, time: new Date(Date.parse(taken) + 1000).toISOString() },
          { lat: 33.7, lon: 36.5, time: fresh },
        ]);
        const withNew = await report(tripId, [
          { lat: 33.5, lon: 36.3, time: taken },
          { lat: 33.7, lon: 36.5, time: fresh },
        ]);
        vi.useRealTimers();

        expect(replay.status, replay.text).toBe(200);
        expect(replay.body.data).toEqual({ accepted: 0, duplicates: 1 });
        expect([staleNew.status, staleNew.body?.errorCode], staleNew.text).toEqual([
          400,
          'POSITION_TIME_OUT_OF_RANGE',
        ]);
        expect(withNew.body.data, withNew.text).toEqual({ accepted: 1, duplicates: 1 });
        expect(await stored()).toEqual([taken, fresh]);
      });
    });

    it('refuses a batch that reaches the company after its suspension committed meanwhile (403 COMPANY_SUSPENDED), storing nothing', async () => {
      const local = await operationsWorld(app, { seats: 4 });
      const batch = [{ lat: 33.51, lon: 36.29, time: new Date(Date.now() - 30_000).toISOString() }];
      const refused = await suspendedWhileWriting(app.db, local.companyId, () =>
        report(local.trip.tripId, batch, local.driver.token),
      );
      expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
      expect(
        await app.db.query('select 1 from trip_positions where trip_id = $1', [local.trip.tripId]),
      ).toEqual([]);
    });

    it('refuses a batch whose driver signed out while it waited (401 INVALID_CREDENTIAL), storing nothing', async () => {
      const local = await operationsWorld(app, { seats: 4 });
      const batch = [{ lat: 33.51, lon: 36.29, time: new Date(Date.now() - 30_000).toISOString() }];
      const refused = await signedOutWhileWriting(app.db, local.companyId, local.driver.sessionId, () =>
        report(local.trip.tripId, batch, local.driver.token),
      );
      expect([refused.status, refused.body?.errorCode], refused.text).toEqual([401, 'INVALID_CREDENTIAL']);
      expect(
        await app.db.query('select 1 from trip_positions where trip_id = $1', [local.trip.tripId]),
      ).toEqual([]);
    });

    it('classes an old report delayed and a trip without reports unavailable', async () => {
      const stale = await anotherTrip(app, world);
      const silent = await anotherTrip(app, world);
      await setTripStatus(app.db, stale, 'DEPARTED');
      await setTripStatus(app.db, silent, 'DELAYED');
      await report(stale, [{ lat: 35, lon: 36, time: new Date(Date.now() - 10 * 60_000).toISOString() }]);
      expect((await tracking(stale)).tracking).toMatchObject({ state: 'DELAYED', source: 'DRIVER_APP' });
      expect((await tracking(silent)).tracking).toEqual({
        state: 'UNAVAILABLE',
        source: 'NONE',
        last_update_at: null,
        age_seconds: null,
        position: null,
      });
      const scheduled = await anotherTrip(app, world);
      expect(await tracking(scheduled)).toBeUndefined();
    });

    it('never answers a last update later than now when the phone clock runs ahead', async () => {
      const tripId = await anotherTrip(app, world);
      await setTripStatus(app.db, tripId, 'DEPARTED');
      const ahead = new Date(Date.now() + 4 * 60_000).toISOString();
      const reported = await report(tripId, [{ lat: 33.6, lon: 36.4, time: ahead }]);
      expect(reported.status, reported.text).toBe(200);
      const readAt = Date.now();
      const { tracking: shown } = await tracking(tripId);
      expect(shown.state).toBe('LIVE');
      expect(Date.parse(shown.last_update_at)).toBeLessThanOrEqual(readAt);
    });

    it('judges freshness from when a fast-clocked report arrived, not from its stamp', async () => {
      const tripId = await anotherTrip(app, world);
      await setTripStatus(app.db, tripId, 'DEPARTED');
      const ahead = new Date(Date.now() + 4.5 * 60_000).toISOString();
      expect((await report(tripId, [{ lat: 33.6, lon: 36.4, time: ahead }])).status).toBe(200);
      // As if it had arrived three minutes ago and the app had been silent since.
      await app.db.query(
        `update trip_positions set recorded_at = recorded_at - interval '3 minutes',
                received_at = received_at - interval '3 minutes' where trip_id = $1`,
        [tripId],
      );
      const { tracking: shown } = await tracking(tripId);
      expect(shown.state).toBe('DELAYED');
      expect(shown.age_seconds).toBeGreaterThanOrEqual(180);
    });

    it('shows the position that arrived last after a fast clock is put right', async () => {
      const tripId = await anotherTrip(app, world);
      await setTripStatus(app.db, tripId, 'DEPARTED');
      const ahead = new Date(Date.now() + 4 * 60_000).toISOString();
      expect((await report(tripId, [{ lat: 33.6, lon: 36.4, time: ahead }])).status).toBe(200);
      // That report arrived a minute ago; the phone's clock has been put right since.
      await app.db.query(
        `update trip_positions set recorded_at = recorded_at - interval '1 minute',
                received_at = received_at - interval '1 minute' where trip_id = $1`,
        [tripId],
      );
      const corrected = new Date().toISOString();
      expect((await report(tripId, [{ lat: 33.7, lon: 36.5, time: corrected }])).status).toBe(200);
      expect((await tracking(tripId)).tracking).toMatchObject({
        state: 'LIVE',
        last_update_at: corrected,
        position: { latitude: 33.7, longitude: 36.5 },
      });
    });

    it('refuses bad positions, and positions of a finished trip, storing nothing', async () => {
      const count = async () =>
        (await app.db.query('select 1 from trip_positions where trip_id = $1', [world.trip.tripId])).length;
      const before = await count();
      const now = new Date().toISOString();
      const bad = [
        [{ lat: 91, lon: 36, time: now }],
        [{ lat: 33, lon: 36 }],
        [{ lat: 33, lon: 36, time: now, altitude: 700 }],
        [],
      ];
      for (const positions of bad) {
        const response = await report(world.trip.tripId, positions);
        expect(response.status, JSON.stringify(positions)).toBe(400);
      }
      const old = await report(world.trip.tripId, [
        { lat: 33, lon: 36, time: now },
        { lat: 33, lon: 36, time: new Date(Date.now() - 72 * 3_600_000).toISOString() },
      ]);
      expect(old.body.errorCode).toBe('POSITION_TIME_OUT_OF_RANGE');
      expect(await count()).toBe(before);
      const done = await anotherTrip(app, world);
      await setTripStatus(app.db, done, 'COMPLETED');
      const finished = await report(done, [{ lat: 33, lon: 36, time: now }]);
      expect(finished.status).toBe(409);
      expect(finished.body.errorCode).toBe('TRIP_NOT_TRACKED');
    });
  });
});

describe('the driver app sign-in: per-IP limit for a depot behind one address', () => {
  const app = useTestApp({ STAFF_LOGIN_MAX_PER_IP: 3, TRUSTED_PROXY_HOPS: 1 });

  it('signs in more drivers than the limit from one address, as successes never count; wrong passwords still use it up', async () => {
    const depot = `10.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}.9`;
    const signIn = (email: string, password: string) =>
      app.request('/driver/api/auth/login', {
        method: 'POST',
        headers: { 'X-Forwarded-For': depot },
        json: { email, password },
      });
    const companyId = (await createCompany(app.db)).id;
    const drivers = [];
    for (let n = 0; n < 6; n++) drivers.push(await createDriver(app, companyId));
    const statuses: number[] = [];
    for (const driver of drivers.slice(0, 5))
      statuses.push((await signIn(driver.email, driver.password)).status);
    expect(statuses).toEqual(Array(5).fill(200));
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await signIn(`guess-${attempt}-${randomUUID()}@depot.test`, 'guess')).status).toBe(401);
    }
    const late = await signIn(drivers[5]!.email, drivers[5]!.password);
    expect([late.status, late.body.errorCode]).toEqual([429, 'RATE_LIMITED']);
  });
});

describe('the driver app sign-in: per-e-mail limit', () => {
  // Its own client-IP budget: the guesses below must meet the per-e-mail limit, not the per-IP one.
  const app = useTestApp({ STAFF_LOGIN_MAX_PER_IP: 10_000 });

  it('answers at most 10 wrong-password guesses for one driver, even when they arrive together', async () => {
    const driver = await createDriver(app, (await createCompany(app.db)).id);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, attempt) =>
        app.request('/driver/api/auth/login', {
          method: 'POST',
          json: { email: driver.email, password: `wrong ${attempt} ${randomUUID()}` },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect({
      checked: statuses.filter((status) => status === 401).length,
      limited: statuses.filter((status) => status === 429).length,
    }).toEqual({ checked: 10, limited: 20 });
  });

  it("shares one account's failures with the dashboard: 10 wrong guesses on either leave none on the other", async () => {
    const company = await createCompany(app.db);
    const guess = (path: string, email: string, password: string) =>
      app.request(path, { method: 'POST', json: { email, password } });
    const statusesOf = async (path: string, email: string) => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 10; attempt += 1) {
        statuses.push((await guess(path, email, `wrong ${attempt} ${randomUUID()}`)).status);
      }
      return statuses;
    };
    const surfaces = ['/dashboard/api/auth/login', '/driver/api/auth/login'] as const;
    for (const [first, second] of [surfaces, [...surfaces].reverse()]) {
      // An OWNER may sign in on both.
      const owner = await createStaffMember(app.db, company.id, 'OWNER');
      expect(await statusesOf(first, owner.email)).toEqual(Array(10).fill(401));
      // The other surface signs in the same account with the same password: no new guesses there.
      const after = [
        await guess(second, owner.email, 'one more wrong'),
        await guess(second, owner.email, STAFF_PASSWORD),
      ];
      expect(after.map((answer) => [answer.status, answer.body.errorCode])).toEqual(
        Array(2).fill([429, 'RATE_LIMITED']),
      );
    }
  });

  it('counts only failures: 12 right passwords of one driver sent together all sign in', async () => {
    const driver = await createDriver(app, (await createCompany(app.db)).id);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        app.request('/driver/api/auth/login', {
          method: 'POST',
          json: { email: driver.email, password: driver.password },
        }),
      ),
    );
    expect(answers.map((answer) => [answer.status, answer.body.errorCode ?? null])).toEqual(
      Array.from({ length: 12 }, () => [200, null]),
    );
  });
});
