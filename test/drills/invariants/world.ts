import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { bookableTrip, type BookableTripFixture } from '../../support/bookings.js';
import { atDamascus, createCity, createCompany, createStop, futureDay } from '../../support/factories.js';
import type { TestApp } from '../../support/harness.js';
import { mobileTraveller, setConfirmation, type Caller } from '../../support/journeys.js';
import { staffSession } from '../../support/journey-rows.js';
import { creditPoints, giveReward, loyaltyProgram } from '../../support/loyalty.js';
import { assignDriver, createDriver } from '../../support/operations.js';
import { Answers } from './answers.js';
import type { Dice } from './dice.js';
import { replenishLinks } from './linked-trips.js';

/**
 * The drill's world: two companies on one route (one confirms AUTO, one decides MANUAL within a
 * 15-minute window), a few 12-seat trips each with a driver, four travellers holding points in the
 * AUTO company's programme, one reward with a redemption cap, and an open cash shift per company.
 */
export interface DrillCompany {
  id: string;
  name: string;
  manual: boolean;
  owner: Awaited<ReturnType<typeof staffSession>>;
  trips: BookableTripFixture[];
}

export interface World {
  app: TestApp;
  dice: Dice;
  answers: Answers;
  auto: DrillCompany;
  manual: DrillCompany;
  companies: DrillCompany[];
  travellers: Caller[];
  reward: { id: string; code: string };
  /** Points per 100 of price in the AUTO company's programme. */
  pointsPer100: number;
  from: { id: string; cityId: string };
  to: { id: string; cityId: string };
  /** The middle stop where connections change bus (from → via → to). */
  via: { id: string; cityId: string };
  /** Trip pairs that chain at `via`, and AUTO trips back from `to` to `from` (./linked-trips.ts). */
  connections: ConnectionPair[];
  returns: BookableTripFixture[];
  /** Trips created so far, to spread new departures over days and hours. */
  tripsMade: number;
}

export interface ConnectionPair {
  first: { company: DrillCompany; trip: BookableTripFixture };
  second: { company: DrillCompany; trip: BookableTripFixture };
}

export const SEATS_PER_TRIP = 12;
const BOOKABLE = ['SCHEDULED', 'BOARDING', 'DELAYED'];

export async function buildWorld(app: TestApp, dice: Dice): Promise<World> {
  const from = await createStop(app.db, (await createCity(app.db)).id);
  const to = await createStop(app.db, (await createCity(app.db)).id);
  const via = await createStop(app.db, (await createCity(app.db)).id);
  const company = async (manual: boolean): Promise<DrillCompany> => {
    const row = await createCompany(app.db, {
      name: `Drill ${manual ? 'manual' : 'auto'} ${randomUUID().slice(0, 6)}`,
    });
    const owner = await staffSession(app.db, app.config, row.id, 'OWNER');
    return { id: row.id, name: row.nameEn, manual, owner, trips: [] };
  };
  const auto = await company(false);
  const manual = await company(true);
  const pointsPer100 = 10;
  await loyaltyProgram(app.db, auto.id, { pointsPer100 });
  const reward = await giveReward(app.db, auto.id, {
    pointsCost: 100,
    discountPercent: 10,
    maxRedemptions: 4,
  });
  const travellers: Caller[] = [];
  for (let n = 0; n < 4; n++) {
    const traveller = await mobileTraveller(app);
    await creditPoints(app.db, { companyId: auto.id, userId: traveller.userId, points: 150 });
    travellers.push(traveller);
  }
  const world: World = {
    app,
    dice,
    answers: new Answers(),
    auto,
    manual,
    companies: [auto, manual],
    travellers,
    reward,
    pointsPer100,
    from,
    to,
    via,
    connections: [],
    returns: [],
    tripsMade: 0,
  };
  for (let n = 0; n < 5; n++) await addTrip(world, auto);
  for (let n = 0; n < 3; n++) await addTrip(world, manual);
  await replenishLinks(world);
  await setConfirmation(app.db, manual.id, { mode: 'MANUAL_CONFIRM', window: 15 });
  for (const each of world.companies) {
    const opened = await staffWrite(world, each, '/dashboard/api/payments/cash-shifts', {
      action: 'OPEN',
      opening_balance: 100_000,
    });
    expect(opened.status, opened.text).toBe(201);
  }
  return world;
}

/**
 * A new bookable trip of the company, with its own bus and driver: from → to by default, spread over
 * days 2-4 between 07:00 and 20:59, or over the route and departure given.
 */
export async function addTrip(
  world: World,
  company: DrillCompany,
  leg?: { from: World['from']; to: World['to']; departAt: Date },
): Promise<BookableTripFixture> {
  const n = world.tripsMade++;
  const trip = await bookableTrip(world.app.db, {
    companyId: company.id,
    seats: SEATS_PER_TRIP,
    from: leg?.from ?? world.from,
    to: leg?.to ?? world.to,
    departAt:
      leg?.departAt ??
      atDamascus(
        futureDay(2 + (n % 3)),
        `${String(7 + (n % 14)).padStart(2, '0')}:${String((n * 7) % 60).padStart(2, '0')}`,
      ),
    mode: company.manual ? 'MANUAL_CONFIRM' : 'AUTO_CONFIRM',
    price: 8_000 + 500 * (n % 9),
  });
  const driver = await createDriver(world.app, company.id);
  await assignDriver(world.app.db, trip.tripId, driver.staffUserId);
  company.trips.push(trip);
  return trip;
}

/** Whether a drill trip runs the direct route from → to (not a connection leg or a return). */
export const isDirect = (world: World, trip: BookableTripFixture) =>
  trip.from.id === world.from.id && trip.to.id === world.to.id;

/** Ids of the trips among `tripIds` still bookable. */
export async function bookableOf(world: World, ids: string[]): Promise<Set<string>> {
  const rows = await world.app.db.query<{ id: string }>(
    `select id from trips where id = any($1) and status = any($2)`,
    [ids, BOOKABLE],
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * Keeps a few bookable direct trips per company (a trip that left or was cancelled is replaced by a
 * new one), and a few connections and return trips.
 */
export async function replenish(world: World): Promise<void> {
  for (const company of world.companies) {
    const direct = company.trips.filter((trip) => isDirect(world, trip)).map((trip) => trip.tripId);
    const bookable = (await bookableOf(world, direct)).size;
    for (let n = bookable; n < (company.manual ? 2 : 3); n++) await addTrip(world, company);
  }
  await replenishLinks(world);
}

/**
 * A trip to act on (of the company when given, not `except`, one `only` accepts): most times one
 * still bookable, otherwise any, so that refusals on departed and cancelled trips are tried too.
 */
export async function pickTrip(
  world: World,
  company?: DrillCompany,
  except?: string,
  only: (trip: BookableTripFixture) => boolean = () => true,
): Promise<{ company: DrillCompany; trip: BookableTripFixture }> {
  const candidates = allTrips(world).filter(
    (each) => (!company || each.company === company) && each.trip.tripId !== except && only(each.trip),
  );
  if (world.dice.chance(0.15)) return world.dice.pick(candidates)!;
  const bookable = await bookableOf(
    world,
    candidates.map(({ trip }) => trip.tripId),
  );
  return (
    world.dice.pick(candidates.filter(({ trip }) => bookable.has(trip.tripId))) ??
    world.dice.pick(candidates)!
  );
}

export const allTrips = (world: World) =>
  world.companies.flatMap((company) => company.trips.map((trip) => ({ company, trip })));
export const tripIds = (world: World) => allTrips(world).map(({ trip }) => trip.tripId);
export const companyIds = (world: World) => world.companies.map((company) => company.id);
export const companyOf = (world: World, id: string) => world.companies.find((company) => company.id === id)!;
export const callerOf = (world: World, userId: string) =>
  world.travellers.find((caller) => caller.userId === userId)!;

/** Distinct random seat labels of a drill trip. */
export function randomSeats(world: World, count: number): string[] {
  const labels = new Set<string>();
  while (labels.size < count) labels.add(String(world.dice.int(1, SEATS_PER_TRIP)));
  return [...labels];
}

/** One row drawn from a query's answer, or undefined when it has none. */
export async function pickRow<Row extends object>(
  world: World,
  sql: string,
  params: unknown[],
): Promise<Row | undefined> {
  return world.dice.pick(await world.app.db.query<Row>(sql, params));
}

export const staffWrite = (
  world: World,
  company: DrillCompany,
  path: string,
  json?: Record<string, unknown>,
  method = 'POST',
) => world.app.request(path, { method, headers: company.owner.writeHeaders, ...(json ? { json } : {}) });

export const staffRead = (world: World, company: DrillCompany, path: string) =>
  world.app.request(path, { headers: { Cookie: company.owner.cookie } });

export const travellerWrite = (
  world: World,
  caller: Caller,
  path: string,
  json?: Record<string, unknown>,
  method = 'POST',
) => world.app.request(path, { method, headers: caller.headers, ...(json ? { json } : {}) });
