import { coachLayout, type BusTemplate } from '../../../domain/layout-templates.js';
import {
  layoutSeats,
  seatLabelsMoved,
  validateLayout,
  type LayoutDocument,
  type SeatLabelInUse,
} from '../../../domain/seat-layout.js';
import { notFound, PlanningRefusal } from '../../../domain/trip-planning.js';
import { PG_UNIQUE_VIOLATION, pgCode } from '../../pg-errors.js';
import type { Database, TransactionClient } from '../../orm.js';
import { LIVE_ALLOCATION } from '../../queries/inventory.js';
import { tripHasBookingsSql } from '../../queries/planning.js';
import { ticketTravellerSql } from '../../queries/trip-manifest.js';
import { saveBusLayout, type SavedLayout } from '../catalogue.js';
import { companyTransaction } from '../active-company.js';
import { auditAct, type StaffAct } from './act.js';

/**
 * The company's fleet writes, one transaction each with its audit row: a new bus (optionally
 * from a template), a layout version (PUT /buses/{id}/layout), archiving the layout (DELETE),
 * and a driver account.
 */
/** The issues of a layout as a 400: each names the offending element's path. */
export function layoutRefusal(document: LayoutDocument, field: string): PlanningRefusal | null {
  const issues = validateLayout(document);
  if (issues.length === 0) return null;
  return new PlanningRefusal(400, 'LAYOUT_INVALID', 'The layout document is not valid', {
    issues: issues.map((issue) => ({
      path: issue.element === undefined ? `body.${field}` : `body.${field}.elements.${issue.element}`,
      code: issue.code,
      message: issue.message,
    })),
  });
}

const plateTaken = () =>
  new PlanningRefusal(409, 'BUS_PLATE_TAKEN', 'The company already has a bus with this plate number');

/**
 * A new bus; its plate comes in the form plates are stored in (api/dashboard/fleet.openapi.ts BusBody:
 * upper case, ASCII digits, no tatweel: domain/trip-planning.ts plateForm), so the unique
 * (company_id, plate_number) refuses the same plate typed in another case or with other digits, also
 * by two requests at once. Plates stored before in other digits or with tatweel were rewritten in that
 * form (Migration20261211000000_plate_digits); before upper case they may be in any case: one of them
 * is found by comparing upper case.
 */
export async function createBus(
  db: Database,
  act: StaffAct,
  bus: { plateNumber: string; model: string; amenities: string[]; template: BusTemplate | null },
): Promise<{ busId: string; layout: SavedLayout | null }> {
  return companyTransaction(db, act, 'share', async (client) => {
    const { rows: taken } = await client.query(
      'select 1 from buses where company_id = $1 and upper(plate_number) = upper($2)',
      [act.companyId, bus.plateNumber],
    );
    if (taken.length > 0) throw plateTaken();
    let busId: string;
    try {
      const { rows } = await client.query<{ id: string }>(
        `insert into buses (company_id, plate_number, model, amenities) values ($1, $2, $3, $4) returning id`,
        [act.companyId, bus.plateNumber, bus.model, JSON.stringify(bus.amenities)],
      );
      busId = rows[0]!.id;
    } catch (error) {
      if (pgCode(error) !== PG_UNIQUE_VIOLATION) throw error;
      throw plateTaken();
    }
    const layout = bus.template
      ? await saveBusLayout(client, {
          busId,
          document: coachLayout(bus.template.options),
          saveMode: 'active',
        })
      : null;
    await auditAct(client, act, 'company.bus.create', ['bus', busId], {
      plateNumber: bus.plateNumber,
      template: bus.template?.id ?? null,
    });
    return { busId, layout };
  });
}

async function lockCompanyBus(client: TransactionClient, act: StaffAct, busId: string): Promise<void> {
  const { rows } = await client.query<{ company_id: string }>(
    'select company_id from buses where id = $1 for update',
    [busId],
  );
  if (rows[0]?.company_id !== act.companyId) throw notFound('BUS');
}

/**
 * Locks the bus's trips still to run, after the bus (the planning order: bus, then its trips). Seat
 * locks, holds and bookings lock a trip before they place seats on its layout, so a layout change
 * and a traveller taking a seat run one after the other: the change sees the seat, or the traveller
 * sees the new layout.
 */
async function lockComingTrips(client: TransactionClient, busId: string): Promise<void> {
  await client.query(
    `select id from trips where bus_id = $1 and status in ('SCHEDULED', 'BOARDING', 'DELAYED', 'DEPARTED')
     order by id for no key update`,
    [busId],
  );
}

/** The trips of the bus still to run that sell seats: the ones whose seat count a layout change sets. */
const SELLING_TRIP = `t.bus_id = $1 and t.status in ('SCHEDULED', 'BOARDING', 'DELAYED')`;

/**
 * The trips of the bus whose travellers a layout change reaches: the selling ones and a DEPARTED one
 * (its travellers are on board with their tickets and read their journey), the trips lockComingTrips
 * locks and archiveLayout counts.
 */
const RIDING_TRIP = `t.bus_id = $1 and t.status in ('SCHEDULED', 'BOARDING', 'DELAYED', 'DEPARTED')`;

/** Seat ids held or sold on the bus's trips still to run or on the road, that `document` no longer has. */
async function seatsStillSold(client: TransactionClient, busId: string, document: LayoutDocument) {
  const { rows } = await client.query<{ seat_id: string }>(
    `select distinct a.seat_id from seat_allocations a join trips t on t.id = a.trip_id
     where ${RIDING_TRIP} and ${LIVE_ALLOCATION}
       and not (a.seat_id = any($2::text[]))
     order by a.seat_id`,
    [busId, layoutSeats(document).map((seat) => seat.seatId)],
  );
  return rows.map((row) => row.seat_id);
}

/**
 * The seat labels travellers hold on the bus's trips still to run or on the road: the one printed on
 * the ticket of each traveller of the trip (a request past its decision deadline holds none:
 * ticketTravellerSql), and the active layout's label of each held or sold seat.
 */
async function seatLabelsInUse(client: TransactionClient, busId: string): Promise<SeatLabelInUse[]> {
  const { rows } = await client.query<SeatLabelInUse>(
    `select k.seat_id as "seatId", k.seat_number as "seatNumber"
     from journey_tickets k join trips t on t.id = k.trip_id
     where ${RIDING_TRIP} and ${ticketTravellerSql('k')}
     union
     select a.seat_id, ls.seat_number
     from seat_allocations a join trips t on t.id = a.trip_id
     join bus_layouts l on l.bus_id = t.bus_id and l.status = 'active'
     join layout_seats ls on ls.layout_id = l.id and ls.seat_id = a.seat_id
     where ${RIDING_TRIP} and ${LIVE_ALLOCATION}`,
    [busId],
  );
  return rows;
}

/**
 * Why an active save of `document` is refused, if it is: it drops a seat held or sold on a coming
 * or departed trip, or gives a label travellers hold for one seat to another (their tickets are
 * signed with it).
 */
async function activeSaveRefusal(
  client: TransactionClient,
  busId: string,
  document: LayoutDocument,
): Promise<PlanningRefusal | null> {
  const dropped = await seatsStillSold(client, busId, document);
  if (dropped.length > 0) {
    return new PlanningRefusal(
      409,
      'LAYOUT_SEATS_IN_USE',
      'The layout leaves out seats that are held or sold on coming or departed trips',
      { seatIds: dropped },
    );
  }
  const moved = seatLabelsMoved(document, await seatLabelsInUse(client, busId));
  if (moved.length === 0) return null;
  return new PlanningRefusal(
    409,
    'LAYOUT_SEAT_NUMBERS_IN_USE',
    'The layout gives seat numbers that travellers hold on coming or departed trips to other seats',
    { seatNumbers: moved },
  );
}

/**
 * Sets the seat count of the bus's trips still to run (after a layout change): the SELLING_TRIP
 * set the save checked, also a trip still boarding or delayed past its planned departure.
 */
export async function setComingSeatsTotal(
  client: TransactionClient,
  busId: string,
  seats: number,
): Promise<void> {
  await client.query(`update trips t set seats_total = $2 where ${SELLING_TRIP}`, [busId, seats]);
}

/**
 * Saves a new layout version. Draft: stored for later. Active: becomes the layout customers book
 * on; in the same transaction the previous one is archived, the seat projection rebuilt, the bus
 * capacity and the seat count of its trips still to run updated. A seat keeps its seatId when its
 * seatNumber changes, so held and sold seats follow a relabel; an active layout that drops a seat
 * still held or sold on a coming trip, or gives a label travellers hold to another seat, is refused.
 */
export async function saveLayout(
  db: Database,
  act: StaffAct,
  change: {
    busId: string;
    document: LayoutDocument;
    saveMode: 'draft' | 'active';
    /** The body field the document came in, for the issues' paths. */
    field: string;
  },
): Promise<SavedLayout> {
  const invalid = layoutRefusal(change.document, change.field);
  if (invalid) throw invalid;
  return companyTransaction(db, act, 'share', async (client) => {
    await lockCompanyBus(client, act, change.busId);
    if (change.saveMode === 'active') {
      await lockComingTrips(client, change.busId);
      const refusal = await activeSaveRefusal(client, change.busId, change.document);
      if (refusal) throw refusal;
    }
    const saved = await saveBusLayout(client, {
      busId: change.busId,
      document: change.document,
      saveMode: change.saveMode,
    });
    if (change.saveMode === 'active') await setComingSeatsTotal(client, change.busId, saved.seatCount);
    await auditAct(client, act, 'company.bus.layout.save', ['bus', change.busId], {
      version: saved.version,
      saveMode: change.saveMode,
      seatCount: saved.seatCount,
    });
    return saved;
  });
}

/**
 * Archives the bus's active layout and its drafts (DELETE /buses/{id}/layout). When it archived an
 * active one the bus sells no seat until a new active layout is saved, so its capacity and the seat
 * count of its trips still to run become 0; archiving drafts alone changes neither (a bus imported
 * before canonical layouts keeps selling its recorded capacity). Refused while the bus serves trips
 * still to run that have bookings.
 */
export async function archiveLayout(
  db: Database,
  act: StaffAct,
  busId: string,
): Promise<{ archivedVersions: number[] }> {
  return companyTransaction(db, act, 'share', async (client) => {
    await lockCompanyBus(client, act, busId);
    await lockComingTrips(client, busId);
    const { rows: booked } = await client.query<{ id: string }>(
      `select t.id from trips t
       where t.bus_id = $1 and t.status in ('SCHEDULED', 'BOARDING', 'DELAYED', 'DEPARTED') and ${tripHasBookingsSql('t.id')}
       order by t.departure_at limit 10`,
      [busId],
    );
    if (booked.length > 0) {
      throw new PlanningRefusal(
        409,
        'BUS_HAS_BOOKED_TRIPS',
        'The bus serves trips that have bookings; its layout cannot be archived',
        { tripIds: booked.map((row) => row.id) },
      );
    }
    const { rows } = await client.query<{ version: number; was: 'active' | 'draft' }>(
      `update bus_layouts l set status = 'archived' from bus_layouts prior
       where l.id = prior.id and l.bus_id = $1 and l.status in ('active', 'draft')
       returning l.version, prior.status as was`,
      [busId],
    );
    if (rows.length === 0)
      throw new PlanningRefusal(404, 'LAYOUT_NOT_FOUND', 'The bus has no layout to archive');
    // Only the active layout sold seats: discarding drafts leaves a legacy bus its recorded capacity.
    if (rows.some((row) => row.was === 'active')) {
      await client.query('update buses set capacity = 0 where id = $1', [busId]);
      await setComingSeatsTotal(client, busId, 0);
    }
    const archivedVersions = rows.map((row) => row.version).sort((a, b) => a - b);
    await auditAct(client, act, 'company.bus.layout.archive', ['bus', busId], { versions: archivedVersions });
    return { archivedVersions };
  });
}

/**
 * A driver account: a staff user (the initial password already hashed with argon2id by the
 * caller) with an active DRIVER membership of the company. Its e-mail must be new.
 */
export async function createDriver(
  db: Database,
  act: StaffAct,
  driver: { email: string; name: string; passwordHash: string },
): Promise<{ id: string; membershipId: string }> {
  return companyTransaction(db, act, 'share', async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `insert into staff_users (email, name, password_hash) values ($1, $2, $3)
       on conflict ((lower(email))) do nothing returning id`,
      [driver.email, driver.name, driver.passwordHash],
    );
    if (!rows[0])
      throw new PlanningRefusal(409, 'EMAIL_TAKEN', 'A company account with this e-mail already exists');
    const { rows: memberships } = await client.query<{ id: string }>(
      `insert into company_memberships (company_id, staff_user_id, role) values ($1, $2, 'DRIVER') returning id`,
      [act.companyId, rows[0].id],
    );
    await auditAct(client, act, 'company.driver.create', ['staff_user', rows[0].id], { email: driver.email });
    return { id: rows[0].id, membershipId: memberships[0]!.id };
  });
}
