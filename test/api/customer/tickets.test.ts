import { beforeAll, describe, expect, it } from 'vitest';
import {
  booked,
  minutesFromNow,
  modifyBooking,
  moveTo,
  sameRouteTrip,
} from '../../support/booking-changes.js';
import { atDamascus, createCorridor } from '../../support/factories.js';
import { webTraveller } from '../../support/journeys.js';
import { announceDelay, assignDriver } from '../../support/operations.js';
import { useTestApp, type SignedInTraveller } from '../../support/harness.js';
import {
  confirmedJourneyRows,
  createJourneyRows,
  firstCallDueAgo,
  journeyTripOf,
  staffSession,
  type JourneyTrip,
} from '../../support/journey-rows.js';

describe('tickets: GET /tickets, GET /tickets/{id}, POST /tickets (re-issue)', () => {
  const app = useTestApp();
  let trip: JourneyTrip;
  let traveller: SignedInTraveller;
  let driverToken: string;

  const bearer = (who: SignedInTraveller) => ({ Authorization: `Bearer ${who.token}` });

  const confirmedJourney = (travellers = ['Rami Haddad'], owner = traveller) =>
    confirmedJourneyRows(app.db, { ownerUserId: owner.userId, trip, travellers });

  function verifyAtDoor(qrText: string) {
    return app.request('/driver/api/verify', {
      method: 'POST',
      token: driverToken,
      json: { ...JSON.parse(qrText), tripId: trip.id },
    });
  }

  async function ticketRows(journeyId: string) {
    return app.db.query<{ id: string; status: string }>(
      `select id, status from journey_tickets where journey_id = $1 order by created_at, id`,
      [journeyId],
    );
  }

  beforeAll(async () => {
    const corridor = await createCorridor(app.db);
    trip = journeyTripOf(corridor);
    traveller = await app.signIn();
    const driver = await staffSession(app.db, app.config, corridor.company.id, 'DRIVER');
    await assignDriver(app.db, trip.id, driver.staffUserId);
    driverToken = driver.token;
  });

  it('lists the caller’s tickets with booking, trip summary, seat and a QR text the driver app accepts', async () => {
    const rows = await confirmedJourney(['Rami Haddad', 'Lina Haddad']);
    const response = await app.request('/api/tickets?limit=100', { headers: bearer(traveller) });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    const mine = response.body.data.tickets.filter((ticket: any) => ticket.journey_id === rows.journeyId);
    expect(mine).toHaveLength(2);
    expect(mine.map((ticket: any) => ticket.traveller_name)).toEqual(['Rami Haddad', 'Lina Haddad']);
    const [first] = mine;
    expect(first).toMatchObject({
      id: rows.ticketIds[0],
      booking: { id: rows.bookingId },
      seat_number: '1A',
      status: 'VALID',
      boarding_authorized: true,
      trip: { id: trip.id, company: { id: trip.companyId } },
    });
    expect(first.signature).toEqual(expect.any(String));
    const verdict = await verifyAtDoor(first.qr_text);
    expect(verdict.body.data).toMatchObject({ valid: true, ticket: { ticketId: rows.ticketIds[0] } });
  });

  it('pages with limit and offset and counts the total', async () => {
    const other = await app.signIn();
    await confirmedJourney(['A One', 'B Two', 'C Three'], other);
    const page = await app.request('/api/tickets?limit=2&offset=1', { headers: bearer(other) });
    expect(page.body.data.pagination).toEqual({ limit: 2, offset: 1, total: 3 });
    expect(page.body.data.tickets).toHaveLength(2);
    const bad = await app.request('/api/tickets?limit=0', { headers: bearer(other) });
    expect(bad.status).toBe(400);
  });

  it('shows no payload or signature while the request awaits the company', async () => {
    const requested = await createJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip,
      travellers: ['Waiting Person'],
      requestDeadline: new Date(Date.now() + 3_600_000),
    });
    const response = await app.request(`/api/tickets/${requested.ticketIds[0]}`, {
      headers: bearer(traveller),
    });
    expect(response.status).toBe(200);
    expect(response.body.data.ticket).toMatchObject({
      status: 'PENDING_CONFIRMATION',
      boarding_authorized: false,
      payload: null,
      signature: null,
      qr_text: null,
    });
  });

  it("answers 404 for another traveller's ticket, and requires a session", async () => {
    const rows = await confirmedJourney();
    const stranger = await app.signIn();
    const response = await app.request(`/api/tickets/${rows.ticketIds[0]}`, { headers: bearer(stranger) });
    expect(response.status).toBe(404);
    expect(response.body.errorCode).toBe('TICKET_NOT_FOUND');
    const anonymous = await app.request('/api/tickets');
    expect(anonymous.status).toBe(401);
  });

  it('re-issues a lost ticket: the old QR is refused and revoked, the new one verifies', async () => {
    const rows = await confirmedJourney(['Rami Haddad']);
    const before = await app.request(`/api/tickets/${rows.ticketIds[0]}`, { headers: bearer(traveller) });
    const oldQr: string = before.body.data.ticket.qr_text;

    const response = await app.request('/api/tickets', {
      method: 'POST',
      headers: traveller.writeHeaders,
      json: { ticket_id: rows.ticketIds[0], reason: 'LOST_DEVICE' },
    });
    expect(response.status, response.text).toBe(201);
    const fresh = response.body.data.ticket;
    expect(response.body.data.replaced_ticket_id).toBe(rows.ticketIds[0]);
    expect(fresh.id).not.toBe(rows.ticketIds[0]);
    expect(fresh).toMatchObject({ status: 'VALID', boarding_authorized: true, seat_number: '1A' });
    expect(fresh.qr_text).not.toBe(oldQr);

    expect((await verifyAtDoor(oldQr)).body.data).toMatchObject({ valid: false, reason: 'REVOKED' });
    expect((await verifyAtDoor(fresh.qr_text)).body.data.valid).toBe(true);
    const revocations = await app.request('/driver/api/revocations', { token: driverToken });
    expect(revocations.body.data.revocations.map((r: any) => r.ticketId)).toContain(rows.ticketIds[0]);

    const old = await app.request(`/api/tickets/${rows.ticketIds[0]}`, { headers: bearer(traveller) });
    expect(old.body.data.ticket).toMatchObject({
      status: 'REISSUED',
      boarding_authorized: false,
      qr_text: null,
    });
    const list = await app.request('/api/tickets?limit=100', { headers: bearer(traveller) });
    const ids = list.body.data.tickets.map((ticket: any) => ticket.id);
    expect(ids).toContain(fresh.id);
    expect(ids).not.toContain(rows.ticketIds[0]);
  });

  it('refuses to re-issue what is not an own valid ticket of a confirmed booking before departure, writing nothing', async () => {
    const stranger = await app.signIn();
    const rows = await confirmedJourney();
    const attempt = (who: SignedInTraveller, ticketId: string, extra: Record<string, unknown> = {}) =>
      app.request('/api/tickets', {
        method: 'POST',
        headers: who.writeHeaders,
        json: { ticket_id: ticketId, ...extra },
      });

    const foreign = await attempt(stranger, rows.ticketIds[0]!);
    expect([foreign.status, foreign.body.errorCode]).toEqual([404, 'TICKET_NOT_FOUND']);

    const pending = await createJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip,
      travellers: ['Waiting Person'],
      requestDeadline: new Date(Date.now() + 3_600_000),
    });
    const unconfirmed = await attempt(traveller, pending.ticketIds[0]!);
    expect([unconfirmed.status, unconfirmed.body.errorCode]).toEqual([409, 'BOOKING_NOT_CONFIRMED']);

    const used = await confirmedJourney();
    await app.db.query(`update journey_tickets set status = 'USED' where id = $1`, [used.ticketIds[0]]);
    const consumed = await attempt(traveller, used.ticketIds[0]!);
    expect([consumed.status, consumed.body.errorCode]).toEqual([409, 'TICKET_NOT_VALID']);

    const badReason = await attempt(traveller, rows.ticketIds[0]!, { reason: 'BORED' });
    expect([badReason.status, badReason.body.errorCode]).toEqual([400, 'VALIDATION_FAILED']);

    const noCsrf = await app.request('/api/tickets', {
      method: 'POST',
      headers: { Cookie: traveller.cookie },
      json: { ticket_id: rows.ticketIds[0] },
    });
    expect(noCsrf.status).toBe(403);

    for (const journeyId of [rows.journeyId, pending.journeyId, used.journeyId]) {
      expect(await ticketRows(journeyId)).toHaveLength(1);
    }
    const [revoked] = await app.db.query<{ count: string }>(
      `select count(*) from credential_revocations where ticket_id = any($1::uuid[])`,
      [[rows.ticketIds[0], pending.ticketIds[0], used.ticketIds[0]]],
    );
    expect(revoked!.count).toBe('0');
  });

  it('refuses to re-issue once the trip has departed', async () => {
    const corridor = await createCorridor(app.db);
    const departed = journeyTripOf(corridor);
    const rows = await confirmedJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip: departed,
      travellers: ['Late'],
    });
    await app.db.query(`update trips set status = 'DEPARTED' where id = $1`, [departed.id]);
    const response = await app.request('/api/tickets', {
      method: 'POST',
      headers: bearer(traveller),
      json: { ticket_id: rows.ticketIds[0] },
    });
    expect([response.status, response.body.errorCode]).toEqual([409, 'TRIP_ALREADY_DEPARTED']);
    expect(await ticketRows(rows.journeyId)).toEqual([{ id: rows.ticketIds[0], status: 'VALID' }]);
  });

  it("shows the delay the company announced on the ticket's trip and the departure it announced from the ticket's boarding stop, as the booking does", async () => {
    const corridor = await createCorridor(app.db);
    const ownTrip = journeyTripOf(corridor);
    const dispatcher = await staffSession(app.db, app.config, ownTrip.companyId, 'DISPATCHER');
    const book = (stopCallIds: string[]) =>
      confirmedJourneyRows(app.db, {
        ownerUserId: traveller.userId,
        trip: { ...ownTrip, stopCallIds },
        travellers: ['Rami Haddad'],
      });
    const atFirstStop = await book(ownTrip.stopCallIds);
    // Boards at the origin's parking point, due to leave 25 minutes after the first stop.
    const further = await book(ownTrip.stopCallIds.slice(1));
    const firstStopPlanned = atDamascus(corridor.date, '08:00');
    const furtherPlanned = new Date(firstStopPlanned.getTime() + 25 * 60_000);

    /** The ticket's trip as GET /tickets/{id} and GET /tickets show it, beside its booking's (GET /bookings/{id}). */
    async function tripShown(rows: { ticketIds: string[]; bookingId: string }) {
      const headers = bearer(traveller);
      const one = await app.request(`/api/tickets/${rows.ticketIds[0]}`, { headers });
      expect(one.status, one.text).toBe(200);
      const listed = (await app.request('/api/tickets?limit=100', { headers })).body.data.tickets.find(
        (ticket: any) => ticket.id === rows.ticketIds[0],
      );
      const booking = (await app.request(`/api/bookings/${rows.bookingId}`, { headers })).body.data;
      const pick = (trip: any) => ({
        status: trip.status,
        departure_at: trip.departure_at,
        delay_minutes: trip.delay_minutes,
        expected_departure_at: trip.expected_departure_at,
      });
      return {
        ticket: pick(one.body.data.ticket.trip),
        listed: pick(listed.trip),
        booking: {
          delay_minutes: booking.trip.delay_minutes,
          expected_departure_at: booking.trip.expected_departure_at,
        },
      };
    }
    const expectShown = async (
      rows: { ticketIds: string[]; bookingId: string },
      planned: Date,
      status: string,
      delay: number,
    ) => {
      const trip = {
        status,
        departure_at: planned.toISOString(),
        delay_minutes: delay,
        expected_departure_at: new Date(planned.getTime() + delay * 60_000).toISOString(),
      };
      expect(await tripShown(rows)).toEqual({
        ticket: trip,
        listed: trip,
        booking: { delay_minutes: delay, expected_departure_at: trip.expected_departure_at },
      });
    };

    // On time: no delay, the announced departure is the planned one.
    await expectShown(atFirstStop, firstStopPlanned, 'SCHEDULED', 0);
    await expectShown(further, furtherPlanned, 'SCHEDULED', 0);

    // A delay the operations room refuses (no delay_minutes) announces nothing; then 90 minutes.
    await announceDelay(app, dispatcher, ownTrip.id, 90, async () => {
      await expectShown(atFirstStop, firstStopPlanned, 'SCHEDULED', 0);
      await expectShown(further, furtherPlanned, 'SCHEDULED', 0);
    });
    // Each ticket counts from its own boarding stop; the planned departure_at stays the plan.
    await expectShown(atFirstStop, firstStopPlanned, 'DELAYED', 90);
    await expectShown(further, furtherPlanned, 'DELAYED', 90);
  });

  describe('re-issue on a delayed trip, and for a traveller boarding after the first stop', () => {
    const reissue = (ticketId: string) =>
      app.request('/api/tickets', {
        method: 'POST',
        headers: bearer(traveller),
        json: { ticket_id: ticketId, reason: 'LOST_DEVICE' },
      });

    it('a DELAYED trip past its planned departure re-issues until the departure plus the delay has passed', async () => {
      const ownTrip = journeyTripOf(await createCorridor(app.db));
      const book = () =>
        confirmedJourneyRows(app.db, { ownerUserId: traveller.userId, trip: ownTrip, travellers: ['Late'] });
      const waiting = await book();
      const tooLate = await book();
      // Planned to leave an hour ago; the bus has not left, announced 10 hours late.
      await firstCallDueAgo(app.db, ownTrip.id, 60);
      await app.db.query(`update trips set status = 'DELAYED', delay_minutes = 600 where id = $1`, [
        ownTrip.id,
      ]);
      const reissued = await reissue(waiting.ticketIds[0]!);
      expect(reissued.status, reissued.text).toBe(201);

      // Announced 30 minutes late instead: the planned departure plus the delay passed half an hour ago.
      await app.db.query(`update trips set delay_minutes = 30 where id = $1`, [ownTrip.id]);
      const refused = await reissue(tooLate.ticketIds[0]!);
      expect([refused.status, refused.body.errorCode]).toEqual([409, 'TRIP_ALREADY_DEPARTED']);
      expect(await ticketRows(tooLate.journeyId)).toEqual([{ id: tooLate.ticketIds[0], status: 'VALID' }]);
    });

    it('after the bus leaves its first stop, a traveller boarding at a later stop re-issues until the bus leaves theirs', async () => {
      const ownTrip = journeyTripOf(await createCorridor(app.db));
      // Boards at the origin's parking point, due to leave 25 minutes after the first stop.
      const later = { ...ownTrip, stopCallIds: ownTrip.stopCallIds.slice(1) };
      const book = () =>
        confirmedJourneyRows(app.db, { ownerUserId: traveller.userId, trip: later, travellers: ['Late'] });
      const onTheWay = await book();
      const missed = await book();
      // The bus left its first stop on time 10 minutes ago.
      await firstCallDueAgo(app.db, ownTrip.id, 10);
      await app.db.query(
        `update trips set status = 'DEPARTED', actual_departure_at = now() - interval '10 minutes' where id = $1`,
        [ownTrip.id],
      );
      const reissued = await reissue(onTheWay.ticketIds[0]!);
      expect(reissued.status, reissued.text).toBe(201);

      // 20 minutes on, the bus has left the parking point too (on time).
      await firstCallDueAgo(app.db, ownTrip.id, 30);
      await app.db.query(
        `update trips set actual_departure_at = now() - interval '30 minutes' where id = $1`,
        [ownTrip.id],
      );
      const refused = await reissue(missed.ticketIds[0]!);
      expect([refused.status, refused.body.errorCode]).toEqual([409, 'TRIP_ALREADY_DEPARTED']);
      expect(await ticketRows(missed.journeyId)).toEqual([{ id: missed.ticketIds[0], status: 'VALID' }]);
    });
  });

  describe('what the reads show once the bus has left, and of a superseded ticket', () => {
    /** The ticket as GET /tickets/{id}, its booking as GET /bookings/{id} and its journey as GET /journeys/{id} show it. */
    async function shown(rows: { journeyId: string; bookingId: string; ticketIds: string[] }) {
      const headers = bearer(traveller);
      const ticket = (await app.request(`/api/tickets/${rows.ticketIds[0]}`, { headers })).body.data.ticket;
      const booking = (await app.request(`/api/bookings/${rows.bookingId}`, { headers })).body.data;
      const journey = (await app.request(`/api/journeys/${rows.journeyId}`, { headers })).body.data;
      const credentialOf = (shownTicket: any) => ({
        boarding_authorized: shownTicket.boarding_authorized,
        signed: shownTicket.payload !== null && shownTicket.signature !== null,
      });
      return {
        ticket: { ...credentialOf(ticket), qr: ticket.qr_text !== null },
        booking: {
          boarding_authorized: booking.boarding_authorized,
          ticket: credentialOf(booking.tickets[0]),
        },
        journey: credentialOf(journey.tickets[0]),
      };
    }

    it('after the bus left its first stop, no read shows the QR of a traveller boarding there; one boarding further on keeps it', async () => {
      const ownTrip = journeyTripOf(await createCorridor(app.db));
      const book = (stopCallIds: string[]) =>
        confirmedJourneyRows(app.db, {
          ownerUserId: traveller.userId,
          trip: { ...ownTrip, stopCallIds },
          travellers: ['Rami Haddad'],
        });
      const atFirstStop = await book(ownTrip.stopCallIds);
      // Boards at the origin's parking point, due to leave 25 minutes after the first stop.
      const further = await book(ownTrip.stopCallIds.slice(1));
      await firstCallDueAgo(app.db, ownTrip.id, 10);
      await app.db.query(
        `update trips set status = 'DEPARTED', actual_departure_at = now() - interval '10 minutes' where id = $1`,
        [ownTrip.id],
      );

      const none = { boarding_authorized: false, signed: false };
      expect(await shown(atFirstStop)).toEqual({
        ticket: { ...none, qr: false },
        booking: { boarding_authorized: false, ticket: none },
        journey: none,
      });
      const boards = { boarding_authorized: true, signed: true };
      expect(await shown(further)).toEqual({
        ticket: { ...boards, qr: true },
        booking: { boarding_authorized: true, ticket: boards },
        journey: boards,
      });
      // What is stored stays: the dashboard may still check a late traveller in from the manifest.
      const stored = await app.db.query(
        `select status, boarding_authorized from journey_tickets where id = $1`,
        [atFirstStop.ticketIds[0]],
      );
      expect(stored).toEqual([{ status: 'VALID', boarding_authorized: true }]);
    });

    it('a ticket superseded by a modification describes its own trip and its booking, without its credential', async () => {
      const caller = await webTraveller(app);
      const { trip: oldTrip, booking } = await booked(app, caller, { seats: ['1'] });
      const later = await sameRouteTrip(app.db, oldTrip, minutesFromNow(72 * 60), { price: 12_000 });
      const [oldTicket] = (await app.request('/api/tickets', { headers: caller.headers })).body.data.tickets;
      const moved = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7']));
      expect(moved.status, moved.text).toBe(200);

      const response = await app.request(`/api/tickets/${oldTicket.id}`, { headers: caller.headers });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.ticket).toEqual({
        ...oldTicket,
        status: 'REISSUED',
        boarding_authorized: false,
        payload: null,
        signature: null,
        key_id: null,
        qr_text: null,
      });
      expect(oldTicket.trip.id).toBe(oldTrip.tripId);
      expect(oldTicket.booking).toEqual({ id: booking.id, code: booking.booking_code });
    });
  });
});
