import { verify } from 'argon2';
import { beforeAll, describe, expect, it } from 'vitest';
import { coachLayout } from '../../../domain/layout-templates.js';
import type { LayoutDocument, LayoutElement } from '../../../domain/seat-layout.js';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { bookingBody, lockSeats, postBooking, requestSeatLock } from '../../support/bookings.js';
import { atDamascus, createCompany, createTrip, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { decisionWindowRanOut, staffSession } from '../../support/journey-rows.js';
import { bookJourney, mobileTraveller, setConfirmation, webTraveller } from '../../support/journeys.js';
import { dashboard, planningSnapshot, planningWorld, type PlanningWorld } from '../../support/planning.js';
import { createStaffMember } from '../../support/staff.js';
import { demotedWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';

const layoutOf = (rows = 10) => coachLayout({ rows, pattern: '2+2' });
const seatElement = (document: LayoutDocument, seatId: string) =>
  document.elements.find((element) => element.seatId === seatId)!;

describe('fleet: bus templates, buses, layouts and drivers', () => {
  const app = useTestApp();
  let world: PlanningWorld;
  let other: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
    other = await planningWorld(app);
  });

  const owner = () => world.sessions.OWNER;
  const layoutPath = (busId: string) => `/buses/${busId}/layout`;
  const putLayout = (busId: string, body: unknown, session = owner()) =>
    dashboard(app, session, 'PUT', layoutPath(busId), body);

  /** A trip on the bus through the world's stops, `days` ahead. */
  const tripOnBus = async (busId: string, days = 4) =>
    createTrip(app.db, {
      companyId: world.companyId,
      busId,
      routeId: world.routeId,
      departAt: atDamascus(futureDay(days), '09:00'),
      calls: [
        { stop: world.originStop, at: 0 },
        { stop: world.destinationStop, at: 200 },
      ],
    });

  /** A new bus of the world's company with a 2+2 layout, through the API. */
  const newBus = async (templateId = 'standard-2x2') => {
    const created = await dashboard(app, owner(), 'POST', '/buses', {
      plate_number: `P ${Math.random().toString(36).slice(2, 8)}`,
      template_id: templateId,
    });
    expect(created.status, created.text).toBe(201);
    return created.body.data.bus.id as string;
  };

  describe('GET /bus-templates', () => {
    it('offers the standard, VIP, two-deck and lettered templates with their documents, to any role', async () => {
      const response = await dashboard(app, world.sessions.STAFF, 'GET', '/bus-templates');
      expect(response.status).toBe(200);
      const templates = response.body.data as {
        id: string;
        seat_count: number;
        decks: number;
        layoutDocument: LayoutDocument;
      }[];
      expect(templates.map((template) => [template.id, template.seat_count, template.decks])).toEqual([
        ['standard-2x2', 48, 1],
        ['vip-2x1', 30, 1],
        ['double-deck-2x2', 80, 2],
        ['lettered-2x2', 44, 1],
      ]);
      const lettered = templates[3]!.layoutDocument.elements.filter((element) => element.type === 'seat');
      expect(lettered.slice(0, 4).map((seat) => seat.seatNumber)).toEqual(['A1', 'A2', 'A3', 'A4']);
    });
  });

  describe('buses', () => {
    it("lists the company's buses with their active layout, never another company's", async () => {
      const response = await dashboard(app, world.sessions.ACCOUNTANT, 'GET', '/buses');
      expect(response.status).toBe(200);
      const ids = (response.body.data as { id: string }[]).map((bus) => bus.id);
      expect(ids).toContain(world.bus.id);
      expect(ids).not.toContain(other.bus.id);
      const bus = response.body.data.find((candidate: { id: string }) => candidate.id === world.bus.id);
      expect(bus).toMatchObject({ capacity: 40, layout: { seat_count: 40 }, status: 'ACTIVE' });
      const total = response.body.pagination.total as number;
      const past = await dashboard(app, world.sessions.ACCOUNTANT, 'GET', `/buses?offset=${total + 5}`);
      expect(past.body).toMatchObject({ data: [], pagination: { total } });
    });

    it('creates a bus with plate, model and amenities, its template as the active layout', async () => {
      const response = await dashboard(app, world.sessions.DISPATCHER, 'POST', '/buses', {
        plate_number: 'دمشق 123-45',
        model: 'Hyundai Universe',
        amenities: ['AC', 'WIFI'],
        template_id: 'vip-2x1',
      });
      expect(response.status, response.text).toBe(201);
      expect(response.body.data.bus).toMatchObject({
        plate_number: 'دمشق 123-45',
        model: 'Hyundai Universe',
        amenities: ['AC', 'WIFI'],
        capacity: 30,
      });
      expect(response.body.data.active).toMatchObject({
        status: 'active',
        validation_status: 'valid',
        seat_count: 30,
      });
    });

    it('takes a plate typed in any case as one plate, stored in upper case', async () => {
      const plate = `dm ${Math.random().toString(36).slice(2, 8)}-x`;
      const created = await dashboard(app, owner(), 'POST', '/buses', { plate_number: plate });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.bus.plate_number).toBe(plate.toUpperCase());
      const before = await planningSnapshot(app.db, world.companyId);
      for (const again of [plate, plate.toUpperCase(), `Dm${plate.slice(2)}`]) {
        const response = await dashboard(app, owner(), 'POST', '/buses', { plate_number: again });
        expect([response.status, response.body.errorCode], again).toEqual([409, 'BUS_PLATE_TAKEN']);
      }
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
      const elsewhere = await dashboard(app, other.sessions.OWNER, 'POST', '/buses', { plate_number: plate });
      expect(elsewhere.status, elsewhere.text).toBe(201);
    });

    it('refuses a plate the company already has, an unknown template or amenity, and changes nothing', async () => {
      const before = await planningSnapshot(app.db, world.companyId);
      const [bus] = await app.db.query<{ plate_number: string }>(
        'select plate_number from buses where id = $1',
        [world.bus.id],
      );
      const cases: [unknown, number, string][] = [
        [{ plate_number: bus!.plate_number }, 409, 'BUS_PLATE_TAKEN'],
        [{ plate_number: bus!.plate_number.toLowerCase() }, 409, 'BUS_PLATE_TAKEN'],
        [{ plate_number: 'NEW 1', template_id: 'bunk-bed' }, 400, 'TEMPLATE_NOT_FOUND'],
        [{ plate_number: 'NEW 1', amenities: ['JACUZZI'] }, 400, 'VALIDATION_FAILED'],
        [{ plate_number: 'NEW 1', seats: 50 }, 400, 'VALIDATION_FAILED'],
        [{ plate_number: 'NEW 1', company_id: other.companyId }, 400, 'SESSION_FIELD_REFUSED'],
        [{ plate_number: '' }, 400, 'VALIDATION_FAILED'],
        // Travellers read the model (a trip's bus.model): no bidirectional override or control character.
        [{ plate_number: 'NEW 1', model: 'Volvo \u202E9700' }, 400, 'VALIDATION_FAILED'],
        [{ plate_number: 'NEW 1', model: 'Volvo\u0007' }, 400, 'VALIDATION_FAILED'],
      ];
      for (const [body, status, code] of cases) {
        const response = await dashboard(app, owner(), 'POST', '/buses', body);
        expect([response.status, response.body.errorCode], JSON.stringify(body)).toEqual([status, code]);
      }
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });
  });

  describe('GET, PUT and DELETE /buses/{id}/layout', () => {
    it("reads the active layout whole, and answers 404 for another company's bus and 400 for a malformed id", async () => {
      const response = await dashboard(app, world.sessions.STAFF, 'GET', layoutPath(world.bus.id));
      expect(response.status).toBe(200);
      expect(response.body.data.active).toMatchObject({ status: 'active', seat_count: 40 });
      expect(response.body.data.active.layoutDocument).toEqual(layoutOf());
      const foreign = await dashboard(app, owner(), 'GET', layoutPath(other.bus.id));
      expect([foreign.status, foreign.body.errorCode]).toEqual([404, 'BUS_NOT_FOUND']);
      expect((await dashboard(app, owner(), 'GET', '/buses/not-a-uuid/layout')).status).toBe(400);
      const write = await putLayout(other.bus.id, { layoutDocument: layoutOf(), saveMode: 'active' });
      expect([write.status, write.body.errorCode]).toEqual([404, 'BUS_NOT_FOUND']);
    });

    it('saves a draft without touching the active layout, the capacity or what customers book on', async () => {
      const busId = await newBus();
      const draft = layoutOf(5);
      const response = await putLayout(busId, { layoutDocument: draft, saveMode: 'draft' });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.draft).toMatchObject({ status: 'draft', version: 2, seat_count: 20 });
      expect(response.body.data.active).toMatchObject({ version: 1, seat_count: 48 });
      expect(response.body.data.bus.capacity).toBe(48);
    });

    it('makes a layout active (sent as layout_document): capacity, seat projection and coming trips follow in one go', async () => {
      const busId = await newBus();
      const trip = await tripOnBus(busId);
      const response = await putLayout(busId, { layout_document: layoutOf(9), saveMode: 'active' });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.active).toMatchObject({ version: 2, seat_count: 36 });
      expect(response.body.data.bus.capacity).toBe(36);
      const [facts] = await app.db.query<{ seats_total: number; projected: number; archived: number }>(
        `select (select seats_total from trips where id = $2) as seats_total,
                (select count(*)::int from layout_seats s join bus_layouts l on l.id = s.layout_id
                 where l.bus_id = $1 and l.status = 'active') as projected,
                (select count(*)::int from bus_layouts where bus_id = $1 and status = 'archived') as archived`,
        [busId, trip.id],
      );
      expect(facts).toEqual({ seats_total: 36, projected: 36, archived: 1 });
    });

    it('sets the seat count of a trip still boarding after its planned departure too, on an active save and on archive', async () => {
      const busId = await newBus();
      const boarding = await createTrip(app.db, {
        companyId: world.companyId,
        busId,
        routeId: world.routeId,
        departAt: new Date(Date.now() - 10 * 60_000),
        status: 'BOARDING',
        calls: [
          { stop: world.originStop, at: 0 },
          { stop: world.destinationStop, at: 200 },
        ],
      });
      const seatsTotal = async () =>
        (
          await app.db.query<{ seats_total: number }>('select seats_total from trips where id = $1', [
            boarding.id,
          ])
        )[0]!.seats_total;
      const saved = await putLayout(busId, { layout_document: layoutOf(8), saveMode: 'active' });
      expect(saved.status, saved.text).toBe(200);
      expect(saved.body.data.bus.capacity).toBe(32);
      expect(await seatsTotal()).toBe(32);
      const archived = await dashboard(app, owner(), 'DELETE', layoutPath(busId));
      expect(archived.status, archived.text).toBe(200);
      expect(await seatsTotal()).toBe(0);
    });

    it('keeps held and sold seats when a seat is renamed: seatId stays, the new label is the one travellers see', async () => {
      const busId = await newBus();
      const trip = await tripOnBus(busId, 6);
      const traveller = await webTraveller(app);
      const lock = await lockSeats(app, traveller, trip.id, ['1']);
      expect(
        (
          await postBooking(
            app,
            traveller,
            bookingBody({ tripId: trip.id, seatNumbers: ['1'], seatLockSessionId: lock }),
          )
        ).status,
      ).toBe(201);
      const renamed = coachLayout({ rows: 12, pattern: '2+2' });
      seatElement(renamed, 'd1-r1-c1').seatNumber = '1A';
      expect((await putLayout(busId, { layoutDocument: renamed, saveMode: 'active' })).status).toBe(200);
      const allocations = await app.db.query(
        `select seat_id from seat_allocations where trip_id = $1 and status = 'CONFIRMED'`,
        [trip.id],
      );
      expect(allocations).toEqual([{ seat_id: 'd1-r1-c1' }]);
      const seats = await app.request(`/api/trips/${trip.id}/seats`);
      const seat = seats.body.data.seats.find(
        (candidate: { seat_id: string }) => candidate.seat_id === 'd1-r1-c1',
      );
      expect(seat).toMatchObject({ seat_number: '1A', available: false });

      const dropped = coachLayout({ rows: 12, pattern: '2+2' });
      dropped.elements = dropped.elements.filter((element) => element.seatId !== 'd1-r1-c1');
      const before = await planningSnapshot(app.db, world.companyId);
      const refused = await putLayout(busId, { layoutDocument: dropped, saveMode: 'active' });
      expect([refused.status, refused.body.errorCode]).toEqual([409, 'LAYOUT_SEATS_IN_USE']);
      expect(refused.body.details.seatIds).toEqual(['d1-r1-c1']);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);

      const archive = await dashboard(app, owner(), 'DELETE', layoutPath(busId));
      expect([archive.status, archive.body.errorCode]).toEqual([409, 'BUS_HAS_BOOKED_TRIPS']);
      expect(archive.body.details.tripIds).toEqual([trip.id]);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('refuses an active layout that drops or takes the seat label of a traveller on a DEPARTED trip, changing nothing', async () => {
      const busId = await newBus();
      const trip = await tripOnBus(busId, 3);
      const traveller = await webTraveller(app);
      const lock = await lockSeats(app, traveller, trip.id, ['1']);
      const booked = await postBooking(
        app,
        traveller,
        bookingBody({ tripId: trip.id, seatNumbers: ['1'], seatLockSessionId: lock }),
      );
      expect(booked.status, booked.text).toBe(201);
      // The coach has left with the traveller on board.
      await app.db.query(
        `update trips set status = 'DEPARTED', actual_departure_at = departure_at where id = $1`,
        [trip.id],
      );
      const before = await planningSnapshot(app.db, world.companyId);

      const dropped = coachLayout({ rows: 12, pattern: '2+2' });
      dropped.elements = dropped.elements.filter((element) => element.seatId !== 'd1-r1-c1');
      const refused = await putLayout(busId, { layoutDocument: dropped, saveMode: 'active' });
      expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'LAYOUT_SEATS_IN_USE']);
      expect(refused.body.details.seatIds).toEqual(['d1-r1-c1']);

      const taken = coachLayout({ rows: 12, pattern: '2+2' });
      seatElement(taken, 'd1-r1-c1').seatNumber = '1A';
      seatElement(taken, 'd1-r1-c2').seatNumber = '1';
      const moved = await putLayout(busId, { layoutDocument: taken, saveMode: 'active' });
      expect([moved.status, moved.body.errorCode], moved.text).toEqual([409, 'LAYOUT_SEAT_NUMBERS_IN_USE']);
      expect(moved.body.details.seatNumbers).toEqual(['1']);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);

      const journey = await app.request(`/api/journeys/${booked.body.data.booking.journey_id}`, {
        headers: traveller.headers,
      });
      expect(journey.body.data.legs[0].seat_numbers).toEqual(['1']);
    });

    it('stores seat labels without surrounding spaces: travellers lock a seat under the label the seat map shows', async () => {
      const busId = await newBus();
      const trip = await tripOnBus(busId, 6);
      const spaced = coachLayout({ rows: 12, pattern: '2+2' });
      seatElement(spaced, 'd1-r1-c1').seatNumber = ' 1A ';
      const saved = await putLayout(busId, { layoutDocument: spaced, saveMode: 'active' });
      expect(saved.status, saved.text).toBe(200);
      expect(seatElement(saved.body.data.active.layoutDocument, 'd1-r1-c1').seatNumber).toBe('1A');
      const seats = await app.request(`/api/trips/${trip.id}/seats`);
      const seat = seats.body.data.seats.find(
        (candidate: { seat_id: string }) => candidate.seat_id === 'd1-r1-c1',
      );
      expect(seat).toMatchObject({ seat_number: '1A', available: true });
      expect(seatElement(seats.body.data.layout, 'd1-r1-c1').seatNumber).toBe('1A');
      const locked = await requestSeatLock(app, await webTraveller(app), trip.id, ['1A']);
      expect([locked.status, locked.body.errorCode], locked.text).toEqual([201, undefined]);
    });

    it('never leaves two valid tickets of one trip with the same seat label: a sold label may not move to another seat', async () => {
      const busId = await newBus();
      const trip = await tripOnBus(busId, 8);
      const first = await webTraveller(app);
      const firstLock = await lockSeats(app, first, trip.id, ['1']);
      const firstBooking = await postBooking(
        app,
        first,
        bookingBody({ tripId: trip.id, seatNumbers: ['1'], seatLockSessionId: firstLock }),
      );
      expect(firstBooking.status, firstBooking.text).toBe(201);

      // Swap the labels of seats "1" and "2": their seatIds stay, no seat is dropped.
      const swapped = coachLayout({ rows: 12, pattern: '2+2' });
      seatElement(swapped, 'd1-r1-c1').seatNumber = '2';
      seatElement(swapped, 'd1-r1-c2').seatNumber = '1';
      const before = await planningSnapshot(app.db, world.companyId);
      const saved = await putLayout(busId, { layoutDocument: swapped, saveMode: 'active' });
      const afterSave = await planningSnapshot(app.db, world.companyId);

      const second = await webTraveller(app);
      const secondLock = await requestSeatLock(app, second, trip.id, ['1']);
      if (secondLock.status === 201) {
        const secondBooking = await postBooking(
          app,
          second,
          bookingBody({
            tripId: trip.id,
            seatNumbers: ['1'],
            seatLockSessionId: secondLock.body.data.seat_lock_session_id,
          }),
        );
        expect(secondBooking.status, secondBooking.text).toBe(201);
      }
      const tickets = await app.db.query<{ seat_id: string; seat_number: string; status: string }>(
        `select seat_id, seat_number, status from journey_tickets
         where trip_id = $1 and status in ('PENDING_CONFIRMATION', 'VALID', 'USED') order by seat_id`,
        [trip.id],
      );
      const labels = tickets.map((ticket) => ticket.seat_number);
      // Two travellers of one trip never hold valid (signed) tickets printed with the same seat label.
      expect(new Set(labels).size, JSON.stringify({ layoutSave: saved.status, tickets })).toBe(labels.length);
      expect([saved.status, saved.body.errorCode]).toEqual([409, 'LAYOUT_SEAT_NUMBERS_IN_USE']);
      expect(saved.body.details.seatNumbers).toEqual(['1']);
      expect(afterSave).toEqual(before);
    });

    it("frees a request's seat label and the bus's layout once its decision deadline passed, before any worker releases it", async () => {
      const manual = await planningWorld(app);
      await setConfirmation(app.db, manual.companyId, { mode: 'MANUAL_CONFIRM' });
      const bus = await dashboard(app, manual.sessions.OWNER, 'POST', '/buses', {
        plate_number: `P ${Math.random().toString(36).slice(2, 8)}`,
        template_id: 'standard-2x2',
      });
      expect(bus.status, bus.text).toBe(201);
      const busId = bus.body.data.bus.id as string;
      const trip = await createTrip(app.db, {
        companyId: manual.companyId,
        busId,
        routeId: manual.routeId,
        departAt: atDamascus(futureDay(5), '09:00'),
        calls: [
          { stop: manual.originStop, at: 0 },
          { stop: manual.destinationStop, at: 200 },
        ],
      });
      const booked = await bookJourney(app, await mobileTraveller(app), [
        {
          trip: {
            companyId: manual.companyId,
            tripId: trip.id,
            stopCallIds: trip.stopCallIds,
            seatCount: 48,
          },
        },
      ]);
      expect(booked.confirmed.body.data.confirmation.status).toBe('REQUESTED');
      const [ticket] = await app.db.query<{ seat_id: string; seat_number: string }>(
        `select seat_id, seat_number from journey_tickets where journey_id = $1`,
        [booked.journeyId],
      );
      // Another seat takes the request's printed label; its own seat gets a new one.
      const relabelled = coachLayout({ rows: 12, pattern: '2+2' });
      const other = relabelled.elements.find(
        (element) => element.seatId && element.seatId !== ticket!.seat_id,
      )!;
      const otherLabel = other.seatNumber;
      other.seatNumber = ticket!.seat_number;
      seatElement(relabelled, ticket!.seat_id).seatNumber = otherLabel;
      const relabel = () =>
        dashboard(app, manual.sessions.OWNER, 'PUT', `/buses/${busId}/layout`, {
          layoutDocument: relabelled,
          saveMode: 'active',
        });
      const archive = () => dashboard(app, manual.sessions.OWNER, 'DELETE', `/buses/${busId}/layout`);

      // Awaiting the company's decision, the request holds its seat and the label printed on its ticket.
      const before = await planningSnapshot(app.db, manual.companyId);
      const moved = await relabel();
      expect([moved.status, moved.body.errorCode]).toEqual([409, 'LAYOUT_SEAT_NUMBERS_IN_USE']);
      expect(moved.body.details.seatNumbers).toEqual([ticket!.seat_number]);
      const kept = await archive();
      expect([kept.status, kept.body.errorCode]).toEqual([409, 'BUS_HAS_BOOKED_TRIPS']);
      expect(await planningSnapshot(app.db, manual.companyId)).toEqual(before);

      // The company never decided: the window ran out a minute ago, and no worker has released it yet.
      await decisionWindowRanOut(app.db, [booked.journeyId]);
      const saved = await relabel();
      const archived = await archive();
      expect({
        relabel: [saved.status, saved.body.errorCode],
        archive: [archived.status, archived.body.errorCode],
      }).toEqual({ relabel: [200, undefined], archive: [200, undefined] });
    });

    it('never leaves a held seat outside the active layout when a seat lock meets a layout save or archive', async () => {
      /** Live seats of the trip that its bus's active layout does not have. */
      const seatsOutsideLayout = (tripId: string, busId: string) =>
        app.db.query(
          `select a.seat_id from seat_allocations a
           where a.trip_id = $1 and a.status in ('HELD', 'CONFIRMED')
             and not exists (select 1 from layout_seats s join bus_layouts l on l.id = s.layout_id
                             where l.bus_id = $2 and l.status = 'active' and s.seat_id = a.seat_id)`,
          [tripId, busId],
        );
      /**
       * Sends the layout change and stops it at `stopSql` (after its checks), sends a seat lock of
       * seat 1 meanwhile, then lets the change go; answers both answers.
       */
      const race = async (busId: string, tripId: string, change: () => Promise<any>, stopSql: string) => {
        const stop = await holdLock(app.db, stopSql);
        const changed = change();
        await waitersOf(app.db, stop.pid);
        const seatLock = requestSeatLock(app, await webTraveller(app), tripId, ['1']);
        // The seat lock is done, or (once the change holds the bus's trips) waits behind the change.
        await answeredOrWaiting(seatLock, app.db, stop.pid, 2);
        await stop.release();
        const answers = await Promise.all([changed, seatLock]);
        expect(await seatsOutsideLayout(tripId, busId)).toEqual([]);
        return answers.map((answer) => [answer.status, answer.body.errorCode]);
      };

      const savedBus = await newBus();
      const savedTrip = await tripOnBus(savedBus, 8);
      const dropped = coachLayout({ rows: 12, pattern: '2+2' });
      dropped.elements = dropped.elements.filter((element) => element.seatId !== 'd1-r1-c1');
      const afterSave = await race(
        savedBus,
        savedTrip.id,
        () => putLayout(savedBus, { layoutDocument: dropped, saveMode: 'active' }),
        'lock table layout_seats in share mode',
      );
      expect(afterSave).toEqual([
        [200, undefined],
        [400, 'SEAT_NOT_FOUND'],
      ]);

      const archivedBus = await newBus();
      const archivedTrip = await tripOnBus(archivedBus, 8);
      const afterArchive = await race(
        archivedBus,
        archivedTrip.id,
        () => dashboard(app, owner(), 'DELETE', layoutPath(archivedBus)),
        'lock table bus_layouts in share mode',
      );
      expect(afterArchive).toEqual([
        [200, undefined],
        [400, 'SEAT_NOT_FOUND'],
      ]);
    });

    it('never shows management notes to travellers, and books only on the active layout, not on a newer draft', async () => {
      const busId = await newBus();
      const trip = await tripOnBus(busId, 7);
      const noted = coachLayout({ rows: 12, pattern: '2+2' });
      seatElement(noted, 'd1-r2-c1').notes = 'broken recliner, sell last';
      expect((await putLayout(busId, { layoutDocument: noted, saveMode: 'active' })).status).toBe(200);
      const relabelled = coachLayout({ rows: 12, pattern: '2+2' });
      seatElement(relabelled, 'd1-r1-c1').seatNumber = 'DRAFT-1';
      expect((await putLayout(busId, { layoutDocument: relabelled, saveMode: 'draft' })).status).toBe(200);

      const customer = await app.request(`/api/trips/${trip.id}/seats`);
      expect(customer.status).toBe(200);
      expect(customer.text).not.toContain('broken recliner');
      expect(customer.text).not.toContain('DRAFT-1');
      const management = await dashboard(app, owner(), 'GET', layoutPath(busId));
      expect(seatElement(management.body.data.active.layoutDocument, 'd1-r2-c1').notes).toBe(
        'broken recliner, sell last',
      );
      expect(seatElement(management.body.data.draft.layoutDocument, 'd1-r1-c1').seatNumber).toBe('DRAFT-1');
    });

    it('refuses every invalid document with 400, the offending element by its path, and saves nothing', async () => {
      const busId = await newBus();
      const base = () => coachLayout({ rows: 3, pattern: '2+2' });
      const withElement = (element: Partial<LayoutElement> | Record<string, unknown>) => {
        const document = base();
        document.elements.push(element as LayoutElement);
        return { document, index: document.elements.length - 1 };
      };
      const seat = { type: 'seat', width: 1, height: 1, rotation: 0, deck: 1, seatClass: 'STANDARD' };
      const cases: [string, { document: unknown; index: number }, string, string][] = [
        [
          'overlapping seats',
          withElement({ ...seat, x: 0, y: 1, seatId: 'x', seatNumber: '99' }),
          'LAYOUT_INVALID',
          'ELEMENTS_OVERLAP',
        ],
        [
          'a seat off the grid',
          withElement({ ...seat, x: 5, y: 1, seatId: 'x', seatNumber: '99' }),
          'LAYOUT_INVALID',
          'ELEMENT_OUT_OF_GRID',
        ],
        [
          'a deck that does not exist',
          withElement({ ...seat, x: 0, y: 0, deck: 2, seatId: 'x', seatNumber: '99' }),
          'LAYOUT_INVALID',
          'DECK_NOT_FOUND',
        ],
        [
          'an unknown element kind',
          withElement({ ...seat, type: 'hot-tub', x: 0, y: 0 }),
          'LAYOUT_INVALID',
          'invalid_value',
        ],
      ];
      /** A seat on a new fourth row, free of every other element, with the given identity. */
      const onNewRow = (seatId: string, seatNumber: string) => {
        const document = base();
        document.grid.rows += 1;
        document.elements.push({ ...seat, type: 'seat', x: 0, y: 4, seatId, seatNumber } as LayoutElement);
        return { document, index: document.elements.length - 1 };
      };
      cases.push(
        ['a repeated seatNumber', onNewRow('new', '1'), 'LAYOUT_INVALID', 'SEAT_NUMBER_DUPLICATE'],
        ['a repeated seatId elsewhere', onNewRow('d1-r1-c1', '99'), 'LAYOUT_INVALID', 'SEAT_ID_DUPLICATE'],
        // "\u202E21" is shown as "12": two seats of one coach would print the same label on tickets.
        [
          'a seatNumber with a bidirectional override',
          onNewRow('new', '\u202E21'),
          'LAYOUT_INVALID',
          'invalid_format',
        ],
        [
          'a seatNumber with a control character',
          onNewRow('new', '9\u0007'),
          'LAYOUT_INVALID',
          'invalid_format',
        ],
      );
      const before = await planningSnapshot(app.db, world.companyId);
      for (const [name, { document, index }, errorCode, issueCode] of cases) {
        for (const saveMode of ['draft', 'active']) {
          const response = await putLayout(busId, { layoutDocument: document, saveMode });
          expect([response.status, response.body.errorCode], name).toEqual([400, errorCode]);
          expect(response.body.details.issues, name).toContainEqual(
            expect.objectContaining({
              path: expect.stringMatching(new RegExp(`^body\\.layoutDocument\\.elements\\.${index}(\\.|$)`)),
              code: issueCode,
            }),
          );
        }
      }
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('refuses a document in both fields or none, too many elements (400) or 10,000 of them (413), unchanged', async () => {
      const busId = await newBus();
      const before = await planningSnapshot(app.db, world.companyId);
      const both = await putLayout(busId, {
        layoutDocument: layoutOf(),
        layout_document: layoutOf(),
        saveMode: 'active',
      });
      expect([both.status, both.body.errorCode]).toEqual([400, 'LAYOUT_DOCUMENT_REQUIRED']);
      const none = await putLayout(busId, { saveMode: 'active' });
      expect([none.status, none.body.errorCode]).toEqual([400, 'LAYOUT_DOCUMENT_REQUIRED']);
      const element = { type: 'aisle', x: 0, y: 0, width: 1, height: 1, rotation: 0, deck: 1 };
      const many = (count: number) => ({
        layoutDocument: {
          schemaVersion: 1,
          grid: { columns: 20, rows: 40, decks: 1 },
          elements: Array(count).fill(element),
        },
        saveMode: 'draft',
      });
      const tooMany = await putLayout(busId, many(501));
      expect([tooMany.status, tooMany.body.errorCode]).toEqual([400, 'LAYOUT_TOO_LARGE']);
      expect(tooMany.body.details.issues[0].path).toBe('body.layoutDocument.elements');
      const huge = await putLayout(busId, many(10_000));
      expect([huge.status, huge.body.errorCode]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('archives the layout of a bus with no booked trips; the bus then takes no trip', async () => {
      const busId = await newBus();
      const response = await dashboard(app, world.sessions.ADMIN, 'DELETE', layoutPath(busId));
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.archivedVersions).toEqual([1]);
      const read = await dashboard(app, owner(), 'GET', layoutPath(busId));
      expect(read.body.data).toMatchObject({ active: null, draft: null, bus: { capacity: 0, layout: null } });
      const again = await dashboard(app, owner(), 'DELETE', layoutPath(busId));
      expect([again.status, again.body.errorCode]).toEqual([404, 'LAYOUT_NOT_FOUND']);
      const trip = await dashboard(app, owner(), 'POST', '/trips', {
        route_id: world.routeId,
        bus_id: busId,
        pickup_stop_id: world.originStop.id,
        departure_at: atDamascus(futureDay(9), '10:00').toISOString(),
        price_base: 20_000,
      });
      expect([trip.status, trip.body.errorCode]).toEqual([409, 'BUS_LAYOUT_REQUIRED']);
    });

    it('archiving the layout stops the coming trips of the bus offering seats (search, planning board)', async () => {
      const busId = await newBus();
      const day = futureDay(7);
      const planned = await dashboard(app, owner(), 'POST', '/trips', {
        route_id: world.routeId,
        bus_id: busId,
        pickup_stop_id: world.originStop.id,
        departure_at: atDamascus(day, '10:15').toISOString(),
        price_base: 20_000,
      });
      expect(planned.status, planned.text).toBe(201);
      const tripId = planned.body.data.id as string;

      const archived = await dashboard(app, owner(), 'DELETE', layoutPath(busId));
      expect(archived.status, archived.text).toBe(200);

      // The bus sells no seat any more: a seat lock on the trip finds no seat.
      const lock = await requestSeatLock(app, await webTraveller(app), tripId, ['1']);
      expect([lock.status, lock.body.errorCode], lock.text).toEqual([400, 'SEAT_NOT_FOUND']);
      const search = await app.request('/api/journeys/search', {
        method: 'POST',
        json: {
          origin_city_id: world.origin.id,
          destination_city_id: world.destination.id,
          departure_date: day,
          passengers: 1,
        },
      });
      expect(search.status, search.text).toBe(200);
      const legs = search.body.data.journeys.flatMap(
        (journey: { legs: { trip_id: string; free_seats?: number; seats_available?: number }[] }) =>
          journey.legs,
      ) as { trip_id: string; free_seats?: number; seats_available?: number }[];
      const offered = legs
        .filter((leg) => leg.trip_id === tripId)
        .map((leg) => ({ trip_id: leg.trip_id, free_seats: leg.free_seats ?? leg.seats_available }));
      const board = await dashboard(app, owner(), 'GET', `/trips?date=${day}&bus_id=${busId}`);
      const row = (board.body.data as { id: string; seats_total: number }[]).find((t) => t.id === tripId);
      expect(
        { offeredInSearch: offered, planningBoardSeatsTotal: row?.seats_total },
        'a bus whose layout is archived sells no seat, yet its coming trip is still offered with free seats',
      ).toEqual({ offeredInSearch: [], planningBoardSeatsTotal: 0 });
    });
  });

  describe('drivers', () => {
    it('lets an OWNER or ADMIN create a driver who can sign in: argon2id password, active DRIVER membership', async () => {
      const email = `driver-${Date.now()}@company.test`;
      const response = await dashboard(app, world.sessions.ADMIN, 'POST', '/drivers', {
        email: email.toUpperCase(),
        name: 'Khaled Driver',
        password: 'long enough secret',
      });
      expect(response.status, response.text).toBe(201);
      expect(response.body.data).toMatchObject({ email, name: 'Khaled Driver', active: true });
      const [stored] = await app.db.query<{ password_hash: string; role: string; active: boolean }>(
        `select u.password_hash, m.role, m.active from staff_users u join company_memberships m on m.staff_user_id = u.id
         where u.id = $1 and m.company_id = $2`,
        [response.body.data.id, world.companyId],
      );
      expect(stored).toMatchObject({ role: 'DRIVER', active: true });
      expect(stored!.password_hash).toMatch(/^\$argon2id\$/);
      expect(await verify(stored!.password_hash, 'long enough secret')).toBe(true);
      const list = await dashboard(app, world.sessions.STAFF, 'GET', '/drivers');
      expect(list.body.data.map((driver: { id: string }) => driver.id)).toEqual(
        expect.arrayContaining([response.body.data.id, world.driverId]),
      );
      const taken = await dashboard(app, owner(), 'POST', '/drivers', {
        email,
        name: 'Again',
        password: 'long enough secret',
      });
      expect([taken.status, taken.body.errorCode]).toEqual([409, 'EMAIL_TAKEN']);
    });

    it('refuses a DISPATCHER, STAFF or ACCOUNTANT, a short password and unknown fields, and creates nobody', async () => {
      const before = await planningSnapshot(app.db, world.companyId);
      const body = {
        email: `nobody-${Date.now()}@company.test`,
        name: 'Nobody',
        password: 'long enough secret',
      };
      for (const role of ['DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const) {
        const response = await dashboard(app, world.sessions[role], 'POST', '/drivers', body);
        expect([response.status, response.body.errorCode]).toEqual([403, 'ROLE_NOT_ALLOWED']);
      }
      for (const bad of [
        { ...body, password: 'short' },
        { ...body, role: 'OWNER' },
        { ...body, email: 'not-an-email' },
      ]) {
        expect((await dashboard(app, owner(), 'POST', '/drivers', bad)).status).toBe(400);
      }
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it("keeps the total of the company's drivers (DRIVER memberships, inactive ones too) on a page past the end", async () => {
      const companyId = (await createCompany(app.db)).id;
      const session = await staffSession(app.db, app.config, companyId, 'OWNER');
      await createStaffMember(app.db, companyId, 'DISPATCHER');
      await createStaffMember(app.db, companyId, 'DRIVER');
      await createStaffMember(app.db, companyId, 'DRIVER');
      await createStaffMember(app.db, companyId, 'DRIVER', { active: false });
      const first = await dashboard(app, session, 'GET', '/drivers?limit=2&offset=0');
      expect(first.body.pagination, first.text).toEqual({ limit: 2, offset: 0, total: 3 });
      const past = await dashboard(app, session, 'GET', '/drivers?limit=2&offset=4');
      expect(past.body, past.text).toMatchObject({ data: [], pagination: { limit: 2, offset: 4, total: 3 } });
    });
  });

  describe('who may change the fleet', () => {
    it('refuses STAFF and ACCOUNTANT, a missing CSRF header and a suspended company, changing nothing', async () => {
      const busId = await newBus();
      const before = await planningSnapshot(app.db, world.companyId);
      const body = { layoutDocument: layoutOf(8), saveMode: 'active' };
      for (const role of ['STAFF', 'ACCOUNTANT'] as const) {
        const response = await putLayout(busId, body, world.sessions[role]);
        expect([response.status, response.body.errorCode]).toEqual([403, 'ROLE_NOT_ALLOWED']);
        const create = await dashboard(app, world.sessions[role], 'POST', '/buses', { plate_number: 'X 1' });
        expect(create.status).toBe(403);
        expect((await dashboard(app, world.sessions[role], 'DELETE', layoutPath(busId))).status).toBe(403);
      }
      const noCsrf = await dashboard(app, owner(), 'PUT', layoutPath(busId), body, {
        Cookie: owner().cookie,
      });
      expect([noCsrf.status, noCsrf.body.errorCode]).toEqual([403, 'CSRF_TOKEN_INVALID']);
      const noCsrfDelete = await dashboard(app, owner(), 'DELETE', layoutPath(busId), undefined, {
        Cookie: owner().cookie,
      });
      expect(noCsrfDelete.status).toBe(403);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);

      const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
      const suspendedOwner = await staffSession(app.db, app.config, suspended.id, 'OWNER');
      const refused = await dashboard(app, suspendedOwner, 'POST', '/buses', { plate_number: 'X 2' });
      expect([refused.status, refused.body.errorCode]).toEqual([403, 'COMPANY_SUSPENDED']);
      const driver = await dashboard(app, suspendedOwner, 'POST', '/drivers', {
        email: `s-${Date.now()}@company.test`,
        name: 'Suspended Driver',
        password: 'long enough secret',
      });
      expect([driver.status, driver.body.errorCode]).toEqual([403, 'COMPANY_SUSPENDED']);
      expect((await dashboard(app, suspendedOwner, 'GET', '/buses')).status).toBe(200);
      expect(await planningSnapshot(app.db, suspended.id)).toMatchObject({
        buses: [],
        members: [expect.anything()],
      });
    });

    it('refuses a change that reaches the company after its suspension committed meanwhile (403 COMPANY_SUSPENDED), changing nothing', async () => {
      const company = await createCompany(app.db);
      const companyOwner = await staffSession(app.db, app.config, company.id, 'OWNER');
      const before = await planningSnapshot(app.db, company.id);
      const refused = await suspendedWhileWriting(app.db, company.id, () =>
        dashboard(app, companyOwner, 'POST', '/buses', { plate_number: 'X 3' }),
      );
      expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
      expect(await planningSnapshot(app.db, company.id)).toEqual(before);
    });

    it('refuses an ADMIN demoted to DISPATCHER while their driver account waits for the company 403 ROLE_NOT_ALLOWED, making none', async () => {
      const company = await createCompany(app.db);
      const admin = await staffSession(app.db, app.config, company.id, 'ADMIN');
      const before = await planningSnapshot(app.db, company.id);
      const refused = await demotedWhileWriting(app.db, company.id, admin.membershipId, 'DISPATCHER', () =>
        dashboard(app, admin, 'POST', '/drivers', {
          email: `demoted-${Date.now()}@company.test`,
          name: 'Late Driver',
          password: 'long enough secret',
        }),
      );
      expect([refused.status, refused.body?.errorCode, refused.body?.details], refused.text).toEqual([
        403,
        'ROLE_NOT_ALLOWED',
        { role: 'DISPATCHER', allowedRoles: ['OWNER', 'ADMIN'] },
      ]);
      const [member] = before.members as { role: string }[];
      expect(await planningSnapshot(app.db, company.id)).toEqual({
        ...before,
        members: [{ ...member, role: 'DISPATCHER' }],
      });
    });
  });
});
