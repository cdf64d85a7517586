import type { PoolClient } from 'pg';
import type { Database } from '../orm.js';
import { insertTrips, saveBusLayout, type StopCallInput, type TripInput } from '../writes/catalogue.js';
import { BUS_TEMPLATES, coachLayout, type TemplateOptions } from '../../domain/layout-templates.js';
import { addMinutes, damascusDate, damascusWallTime } from '../../domain/time.js';
import { DEMO_COMPANIES, demoCompany, demoUuid, type DemoCompanyIdentity } from './demo-identities.js';
import { seedDemoAdminConsole } from './demo-admin-console.js';
import { seedDemoAdmins } from './demo-admins.js';
import { seedDemoConfirmation } from './demo-confirmation.js';
import { seedDemoFinance } from './demo-finance.js';
import { seedDemoInsight } from './demo-insight.js';
import { seedDemoLoyalty } from './demo-loyalty.js';
import { seedDemoPlanning } from './demo-planning.js';
import { seedDemoOperations } from './demo-operations.js';
import { seedDemoStaff } from './demo-staff.js';
import { seedDemoTravellers } from './demo-travellers.js';
import { seedDemoWebhooks } from './demo-webhooks.js';
import { CITIES, CORRIDORS, PUBLIC_STOPS, type CityData, type Corridor, type CorridorCall } from './syria.js';

/**
 * The demo world: Syrian cities and stations, eight companies (four production, one internal QA,
 * one demo, one suspended, one unpublished) with their fleets, routes and a timetable for the
 * next 30 days. Idempotent: every row has a stable id (or a natural unique key) and is inserted
 * with "on conflict do nothing", so a rerun changes nothing and a run on a later day only adds
 * the days that are new.
 */

/** Operating dates seeded: today (Damascus) and the 30 days after it. */
export const DEMO_DAYS = 31;

export interface SeedCounts {
  cities: number;
  stops: number;
  companies: number;
  pickupLocations: number;
  buses: number;
  layouts: number;
  routes: number;
  trips: number;
  stopCalls: number;
}

export interface DemoSummary {
  dates: { first: string; last: string };
  /** Rows this run added. */
  inserted: SeedCounts;
  /** Rows of the demo world now in the database. */
  totals: SeedCounts;
}

export interface SeedOptions {
  /** First operating date (YYYY-MM-DD); today in Damascus by default. */
  firstDate?: string;
  days?: number;
}

type BusKind = 'standard' | 'vip' | 'double-deck' | 'lettered';

interface BusType {
  model: string;
  amenities: string[];
  layout: TemplateOptions;
}

const BUS_TYPES: Record<BusKind, BusType> = {
  standard: { model: 'Hyundai Universe', amenities: ['AC', 'USB'], layout: BUS_TEMPLATES.standard.options },
  vip: {
    model: 'Mercedes-Benz Tourismo VIP',
    amenities: ['AC', 'WIFI', 'USB', 'TOILET', 'RECLINING_SEATS'],
    layout: BUS_TEMPLATES.vip.options,
  },
  'double-deck': {
    model: 'Neoplan Skyliner',
    amenities: ['AC', 'WIFI', 'TOILET'],
    layout: BUS_TEMPLATES.doubleDeck.options,
  },
  lettered: {
    model: 'King Long XMQ6129',
    amenities: ['AC', 'WIFI', 'USB'],
    layout: BUS_TEMPLATES.lettered.options,
  },
};

interface Service {
  corridor: string;
  /** Damascus local departure times from either end of the corridor. */
  departures: string[];
}

interface CompanyPlan {
  companyKey: string;
  homeCityKey: string;
  platePrefix: string;
  fleet: BusKind[];
  /** Multiplies the distance fare, so competing companies differ a little. */
  fareFactor: number;
  services: Service[];
}

const PLANS: readonly CompanyPlan[] = [
  {
    companyKey: 'qadmous',
    homeCityKey: 'damascus',
    platePrefix: 'DAM 1',
    fleet: ['standard', 'standard', 'vip', 'double-deck', 'lettered'],
    fareFactor: 1,
    services: [
      { corridor: 'damascus-aleppo', departures: ['06:00', '10:00', '15:00', '23:30'] },
      { corridor: 'damascus-latakia', departures: ['07:00', '10:00', '18:00'] },
      { corridor: 'damascus-homs', departures: ['08:00', '12:00', '17:00'] },
      { corridor: 'damascus-suwayda', departures: ['09:00', '16:00'] },
    ],
  },
  {
    companyKey: 'ahliah',
    homeCityKey: 'aleppo',
    platePrefix: 'ALP 2',
    fleet: ['standard', 'vip', 'lettered', 'standard'],
    fareFactor: 0.95,
    services: [
      { corridor: 'damascus-aleppo', departures: ['07:30', '12:30', '22:00'] },
      { corridor: 'aleppo-latakia', departures: ['08:00', '14:00'] },
      { corridor: 'aleppo-deir-ez-zor', departures: ['07:00', '13:00'] },
      { corridor: 'aleppo-hasakah', departures: ['09:00'] },
    ],
  },
  {
    companyKey: 'zeinobia',
    homeCityKey: 'homs',
    platePrefix: 'HMS 3',
    fleet: ['double-deck', 'standard', 'vip', 'standard'],
    fareFactor: 1.05,
    services: [
      { corridor: 'homs-tartus', departures: ['07:00', '11:00', '16:00'] },
      { corridor: 'damascus-homs', departures: ['06:30', '10:30', '14:30', '19:00'] },
      { corridor: 'damascus-daraa', departures: ['06:00', '11:30', '17:00'] },
      { corridor: 'homs-idlib', departures: ['08:30', '15:30'] },
    ],
  },
  {
    companyKey: 'sahel',
    homeCityKey: 'latakia',
    platePrefix: 'LTK 4',
    fleet: ['vip', 'standard', 'lettered', 'double-deck', 'standard', 'vip'],
    fareFactor: 1.1,
    services: [
      { corridor: 'damascus-latakia', departures: ['06:30', '11:00', '16:00', '23:00'] },
      { corridor: 'aleppo-latakia', departures: ['07:30', '15:00'] },
      { corridor: 'latakia-tartus', departures: ['07:00', '10:00', '13:00', '17:00', '20:00'] },
    ],
  },
  {
    companyKey: 'qa',
    homeCityKey: 'damascus',
    platePrefix: 'QA 5',
    fleet: ['standard', 'vip', 'double-deck', 'lettered'],
    fareFactor: 1,
    services: [
      { corridor: 'damascus-aleppo', departures: ['08:00', '20:00'] },
      { corridor: 'damascus-daraa', departures: ['09:00'] },
    ],
  },
  {
    companyKey: 'demo',
    homeCityKey: 'damascus',
    platePrefix: 'DEMO 6',
    fleet: ['lettered', 'vip', 'standard', 'double-deck'],
    fareFactor: 1,
    services: [
      { corridor: 'damascus-latakia', departures: ['08:00', '14:00'] },
      { corridor: 'damascus-suwayda', departures: ['10:00'] },
      { corridor: 'damascus-aleppo', departures: ['09:00'] },
    ],
  },
  {
    companyKey: 'furat',
    homeCityKey: 'deir-ez-zor',
    platePrefix: 'DEZ 7',
    fleet: ['standard', 'vip', 'standard'],
    fareFactor: 0.9,
    services: [
      { corridor: 'aleppo-deir-ez-zor', departures: ['06:00', '14:00'] },
      { corridor: 'deir-ez-zor-damascus', departures: ['21:00'] },
    ],
  },
  {
    companyKey: 'orontes',
    homeCityKey: 'hama',
    platePrefix: 'HMA 8',
    fleet: ['standard', 'lettered', 'vip'],
    fareFactor: 0.95,
    services: [
      { corridor: 'homs-idlib', departures: ['07:00', '13:00'] },
      { corridor: 'hama-aleppo', departures: ['08:00', '16:00'] },
    ],
  },
];

/** Serializes concurrent seeds (a dev stack starting while a test seeds the same database). */
const SEED_LOCK_KEY = 0x5eed;

export async function seedDemo(db: Database, options: SeedOptions = {}): Promise<DemoSummary> {
  const dates = operatingDates(options.firstDate ?? damascusDate(new Date()), options.days ?? DEMO_DAYS);
  return db.transaction(async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [SEED_LOCK_KEY]);
    const inserted = emptyCounts();
    const cityIds = await seedCities(client, inserted);
    const stopIds = await seedPublicStops(client, cityIds, inserted);
    await seedCompanies(client, inserted);
    await seedDepots(client, cityIds, inserted);
    const fleets = await seedFleets(client, inserted);
    await seedRoutes(client, cityIds, inserted);
    await seedPickupLocations(client, cityIds, stopIds, inserted);
    await seedTrips(client, { stopIds, cityIds, fleets, dates }, inserted);
    await seedDemoStaff(client);
    await seedDemoTravellers(client);
    await seedDemoAdmins(client);
    await seedDemoConfirmation(client);
    await seedDemoLoyalty(client);
    await seedDemoPlanning(client, dates);
    await seedDemoOperations(client);
    await seedDemoWebhooks(client);
    await seedDemoFinance(client);
    await seedDemoAdminConsole(client);
    await seedDemoInsight(client);
    return {
      dates: { first: dates[0]!, last: dates[dates.length - 1]! },
      inserted,
      totals: await countDemoRows(client),
    };
  });
}

function emptyCounts(): SeedCounts {
  return {
    cities: 0,
    stops: 0,
    companies: 0,
    pickupLocations: 0,
    buses: 0,
    layouts: 0,
    routes: 0,
    trips: 0,
    stopCalls: 0,
  };
}

function operatingDates(first: string, days: number): string[] {
  const start = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: days }, (_, day) =>
    new Date(start + day * 86_400_000).toISOString().slice(0, 10),
  );
}

/** Inserts rows given as JSON objects through jsonb_to_recordset and returns how many were new. */
async function insertRecords(
  client: PoolClient,
  table: string,
  columns: Record<string, string>,
  records: Record<string, unknown>[],
  conflict = 'on conflict do nothing',
): Promise<number> {
  if (records.length === 0) return 0;
  const names = Object.keys(columns);
  const result = await client.query(
    `insert into ${table} (${names.join(', ')})
     select ${names.join(', ')} from jsonb_to_recordset($1::jsonb)
       as r(${names.map((name) => `${name} ${columns[name]}`).join(', ')})
     ${conflict}`,
    [JSON.stringify(records)],
  );
  return result.rowCount ?? 0;
}

/**
 * Cities are matched by name: a database that already has "Damascus" (made by hand or by an
 * earlier version of the seed) keeps its row and the demo world uses it.
 */
async function seedCities(client: PoolClient, inserted: SeedCounts): Promise<Map<string, string>> {
  inserted.cities += await insertRecords(
    client,
    'cities',
    { id: 'uuid', name_ar: 'text', name_en: 'text', latitude: 'float8', longitude: 'float8' },
    CITIES.map((city) => ({
      id: demoUuid('city', city.key),
      name_ar: city.nameAr,
      name_en: city.nameEn,
      latitude: city.latitude,
      longitude: city.longitude,
    })),
  );
  const { rows } = await client.query<{ id: string; name_en: string }>(
    'select id, name_en from cities where lower(name_en) = any($1::text[])',
    [CITIES.map((city) => city.nameEn.toLowerCase())],
  );
  const idByName = new Map(rows.map((row) => [row.name_en.toLowerCase(), row.id]));
  return new Map(CITIES.map((city) => [city.key, idByName.get(city.nameEn.toLowerCase())!]));
}

async function seedPublicStops(client: PoolClient, cityIds: Map<string, string>, inserted: SeedCounts) {
  const stopIds = new Map(PUBLIC_STOPS.map((stop) => [stop.key, demoUuid('stop', stop.key)]));
  inserted.stops += await insertRecords(
    client,
    'stops',
    STOP_COLUMNS,
    PUBLIC_STOPS.map((stop) => ({
      id: stopIds.get(stop.key),
      city_id: cityIds.get(stop.cityKey),
      company_id: null,
      kind: stop.kind,
      name_ar: stop.nameAr,
      name_en: stop.nameEn,
      address_ar: stop.addressAr,
      address_en: stop.addressEn,
      directions_ar: stop.directionsAr,
      directions_en: stop.directionsEn,
      latitude: stop.latitude,
      longitude: stop.longitude,
    })),
    'on conflict (id) do nothing',
  );
  return stopIds;
}

const STOP_COLUMNS = {
  id: 'uuid',
  city_id: 'uuid',
  company_id: 'uuid',
  kind: 'text',
  name_ar: 'text',
  name_en: 'text',
  address_ar: 'text',
  address_en: 'text',
  directions_ar: 'text',
  directions_en: 'text',
  latitude: 'float8',
  longitude: 'float8',
};

async function seedCompanies(client: PoolClient, inserted: SeedCounts) {
  inserted.companies += await insertRecords(
    client,
    'companies',
    {
      id: 'uuid',
      name_ar: 'text',
      name_en: 'text',
      slug: 'text',
      status: 'text',
      verified: 'boolean',
      published: 'boolean',
      is_internal: 'boolean',
      is_demo: 'boolean',
      phone: 'text',
      email: 'text',
    },
    DEMO_COMPANIES.map((company) => ({
      id: company.id,
      name_ar: company.nameAr,
      name_en: company.nameEn,
      slug: company.slug,
      status: company.status,
      verified: company.verified,
      published: company.published,
      is_internal: company.scope === 'INTERNAL',
      is_demo: company.scope === 'DEMO',
      phone: company.phone,
      email: company.email,
    })),
    'on conflict (id) do nothing',
  );
}

/** Every company keeps its coaches at a depot on the edge of its home city; travellers never board there. */
async function seedDepots(client: PoolClient, cityIds: Map<string, string>, inserted: SeedCounts) {
  inserted.stops += await insertRecords(
    client,
    'stops',
    STOP_COLUMNS,
    PLANS.map((plan) => {
      const company = demoCompany(plan.companyKey);
      const city = cityData(plan.homeCityKey);
      return {
        id: demoUuid('depot', company.id),
        city_id: cityIds.get(city.key),
        company_id: company.id,
        kind: 'DEPOT',
        name_ar: `مرآب ${company.nameAr}`,
        name_en: `${company.nameEn} depot`,
        address_ar: `المنطقة الصناعية، ${city.nameAr}`,
        address_en: `Industrial zone, ${city.nameEn}`,
        directions_ar: 'للعاملين في الشركة فقط؛ يصعد الركاب من المحطات العامة.',
        directions_en: 'Company staff only; passengers board at the public stations.',
        latitude: round(city.latitude + 0.018, 4),
        longitude: round(city.longitude - 0.021, 4),
      };
    }),
    'on conflict (id) do nothing',
  );
}

interface FleetBus {
  id: string;
  kind: BusKind;
}

/** Buses with their active layouts. A bus that has no active layout yet (a new one) gets its type's. */
async function seedFleets(client: PoolClient, inserted: SeedCounts): Promise<Map<string, FleetBus[]>> {
  const fleets = new Map(
    PLANS.map((plan) => {
      const companyId = demoCompany(plan.companyKey).id;
      return [
        companyId,
        plan.fleet.map((kind, index) => ({ id: demoUuid('bus', companyId, String(index)), kind })),
      ];
    }),
  );
  inserted.buses += await insertRecords(
    client,
    'buses',
    { id: 'uuid', company_id: 'uuid', plate_number: 'text', model: 'text', amenities: 'jsonb' },
    PLANS.flatMap((plan) => {
      const companyId = demoCompany(plan.companyKey).id;
      return fleets.get(companyId)!.map((bus, index) => ({
        id: bus.id,
        company_id: companyId,
        plate_number: `${plan.platePrefix}${String(index + 1).padStart(2, '0')}-${String(4000 + index * 137).slice(-4)}`,
        model: BUS_TYPES[bus.kind].model,
        amenities: BUS_TYPES[bus.kind].amenities,
      }));
    }),
    'on conflict (id) do nothing',
  );
  const allBuses = [...fleets.values()].flat();
  const { rows } = await client.query<{ id: string }>(
    `select b.id from buses b
     where b.id = any($1::uuid[])
       and not exists (select 1 from bus_layouts l where l.bus_id = b.id and l.status = 'active')`,
    [allBuses.map((bus) => bus.id)],
  );
  const withoutLayout = new Set(rows.map((row) => row.id));
  for (const bus of allBuses.filter((candidate) => withoutLayout.has(candidate.id))) {
    const saved = await saveBusLayout(client, {
      busId: bus.id,
      document: coachLayout(BUS_TYPES[bus.kind].layout),
      saveMode: 'active',
    });
    if (saved.validationStatus !== 'valid')
      throw new Error(`demo layout ${bus.kind} is invalid: ${JSON.stringify(saved.issues)}`);
    inserted.layouts += 1;
  }
  return fleets;
}

type Direction = 'forward' | 'reverse';
const DIRECTIONS: readonly Direction[] = ['forward', 'reverse'];

/** One route row per company, corridor and direction. */
async function seedRoutes(client: PoolClient, cityIds: Map<string, string>, inserted: SeedCounts) {
  inserted.routes += await insertRecords(
    client,
    'routes',
    {
      id: 'uuid',
      company_id: 'uuid',
      origin_city_id: 'uuid',
      destination_city_id: 'uuid',
      name_ar: 'text',
      name_en: 'text',
      distance_km: 'int',
    },
    PLANS.flatMap((plan) =>
      plan.services.flatMap((service) =>
        DIRECTIONS.map((direction) => {
          const company = demoCompany(plan.companyKey);
          const calls = directedCalls(corridor(service.corridor), direction);
          const origin = cityData(stopCityKey(calls[0]!.stopKey));
          const destination = cityData(stopCityKey(calls[calls.length - 1]!.stopKey));
          return {
            id: routeId(company, service.corridor, direction),
            company_id: company.id,
            origin_city_id: cityIds.get(origin.key),
            destination_city_id: cityIds.get(destination.key),
            name_ar: `${origin.nameAr} – ${destination.nameAr}`,
            name_en: `${origin.nameEn} – ${destination.nameEn}`,
            distance_km: calls[calls.length - 1]!.km,
          };
        }),
      ),
    ),
    'on conflict (id) do nothing',
  );
}

/** Each company offers the public stops its coaches call at as its pickup locations. */
async function seedPickupLocations(
  client: PoolClient,
  cityIds: Map<string, string>,
  stopIds: Map<string, string>,
  inserted: SeedCounts,
) {
  inserted.pickupLocations += await insertRecords(
    client,
    'pickup_locations',
    { company_id: 'uuid', city_id: 'uuid', stop_id: 'uuid', is_public: 'boolean' },
    PLANS.flatMap((plan) => {
      const stopKeys = new Set(
        plan.services.flatMap((service) => corridor(service.corridor).calls.map((c) => c.stopKey)),
      );
      return [...stopKeys].map((stopKey) => ({
        company_id: demoCompany(plan.companyKey).id,
        city_id: cityIds.get(stopCityKey(stopKey)),
        stop_id: stopIds.get(stopKey),
        is_public: true,
      }));
    }),
    'on conflict (company_id, stop_id) do nothing',
  );
}

interface TripContext {
  stopIds: Map<string, string>;
  cityIds: Map<string, string>;
  fleets: Map<string, FleetBus[]>;
  dates: string[];
}

/**
 * The timetable: every service runs both ways at each departure time on every date. Trip ids
 * derive from (company, corridor, direction, date, time), so existing trips are skipped.
 */
async function seedTrips(client: PoolClient, context: TripContext, inserted: SeedCounts) {
  const trips = PLANS.flatMap((plan) => companyTrips(plan, context));
  const { rows } = await client.query<{ id: string }>('select id from trips where id = any($1::uuid[])', [
    trips.map((trip) => trip.id),
  ]);
  const existing = new Set(rows.map((row) => row.id));
  const added = await insertTrips(
    client,
    trips.filter((trip) => !existing.has(trip.id)),
  );
  inserted.trips += added.trips;
  inserted.stopCalls += added.stopCalls;
}

function companyTrips(plan: CompanyPlan, context: TripContext): (TripInput & { id: string })[] {
  const company = demoCompany(plan.companyKey);
  const fleet = context.fleets.get(company.id)!;
  const trips: (TripInput & { id: string })[] = [];
  let slot = 0;
  for (const service of plan.services) {
    const path = corridor(service.corridor);
    const fullKm = path.calls[path.calls.length - 1]!.km;
    const fares = corridorFares(fullKm, plan.fareFactor);
    for (const time of service.departures) {
      for (const direction of DIRECTIONS) {
        // The same slot uses the same bus every day, so a timetable reads like a real rota.
        const bus = fleet[slot++ % fleet.length]!;
        const calls = directedCalls(path, direction);
        for (const date of context.dates) {
          const departAt = damascusWallTime(date, minutesOfDay(time));
          trips.push({
            id: demoUuid('trip', company.id, service.corridor, direction, date, time),
            companyId: company.id,
            routeId: routeId(company, service.corridor, direction),
            busId: bus.id,
            pickupStopId: context.stopIds.get(calls[0]!.stopKey)!,
            ...tripPrices(bus.kind, fares),
            calls: calls.map((c) => stopCall(c, departAt, fullKm, context)),
          });
        }
      }
    }
  }
  return trips;
}

function stopCall(c: CorridorCall, departAt: Date, fullKm: number, context: TripContext): StopCallInput {
  const arrivalAt = addMinutes(departAt, c.at);
  return {
    stopId: context.stopIds.get(c.stopKey)!,
    cityId: context.cityIds.get(stopCityKey(c.stopKey))!,
    arrivalAt,
    departureAt: addMinutes(arrivalAt, c.dwell),
    fareShareBp: Math.round((10_000 * c.km) / fullKm),
  };
}

/** SYP fares by road distance: about 170 SYP a km, at least 25,000; VIP about 45% more. */
function corridorFares(km: number, factor: number): { standard: number; vip: number } {
  const standard = Math.max(25_000, roundTo(km * 170 * factor, 500));
  return { standard, vip: roundTo(standard * 1.45, 1000) };
}

/** A VIP coach sells only VIP seats; a coach with VIP front rows sells both classes. */
function tripPrices(
  kind: BusKind,
  fares: { standard: number; vip: number },
): { priceBase: number; priceVip: number | null } {
  if (kind === 'vip') return { priceBase: fares.vip, priceVip: fares.vip };
  if (BUS_TYPES[kind].layout.vipRows?.length) return { priceBase: fares.standard, priceVip: fares.vip };
  return { priceBase: fares.standard, priceVip: null };
}

/**
 * The corridor's calls in the given direction. Reversed, a coach reaches each stop as long before
 * the end as it left it after the start going forward, and keeps the same dwell.
 */
function directedCalls(path: Corridor, direction: Direction): CorridorCall[] {
  if (direction === 'forward') return [...path.calls];
  const last = path.calls[path.calls.length - 1]!;
  return [...path.calls].reverse().map((c) => ({
    stopKey: c.stopKey,
    km: last.km - c.km,
    at: last.at - (c.at + c.dwell),
    dwell: c.dwell,
  }));
}

function routeId(company: DemoCompanyIdentity, corridorKey: string, direction: Direction): string {
  return demoUuid('route', company.id, corridorKey, direction);
}

function corridor(key: string): Corridor {
  const found = CORRIDORS.find((candidate) => candidate.key === key);
  if (!found) throw new Error(`unknown corridor ${key}`);
  return found;
}

function cityData(key: string): CityData {
  const found = CITIES.find((city) => city.key === key);
  if (!found) throw new Error(`unknown city ${key}`);
  return found;
}

function stopCityKey(stopKey: string): string {
  const found = PUBLIC_STOPS.find((stop) => stop.key === stopKey);
  if (!found) throw new Error(`unknown stop ${stopKey}`);
  return found.cityKey;
}

function minutesOfDay(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return hours! * 60 + minutes!;
}

function roundTo(value: number, step: number): number {
  return Math.round(value / step) * step;
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

/** Rows that belong to the demo world, wherever they came from. */
async function countDemoRows(client: PoolClient): Promise<SeedCounts> {
  const companyIds = DEMO_COMPANIES.map((company) => company.id);
  const { rows } = await client.query<SeedCounts>(
    `select
       (select count(*)::int from cities where lower(name_en) = any($1::text[])) as "cities",
       (select count(*)::int from stops where id = any($2::uuid[]) or company_id = any($3::uuid[])) as "stops",
       (select count(*)::int from companies where id = any($3::uuid[])) as "companies",
       (select count(*)::int from pickup_locations where company_id = any($3::uuid[])) as "pickupLocations",
       (select count(*)::int from buses where company_id = any($3::uuid[])) as "buses",
       (select count(*)::int from bus_layouts l join buses b on b.id = l.bus_id where b.company_id = any($3::uuid[])) as "layouts",
       (select count(*)::int from routes where company_id = any($3::uuid[])) as "routes",
       (select count(*)::int from trips where company_id = any($3::uuid[])) as "trips",
       (select count(*)::int from trip_stop_calls c join trips t on t.id = c.trip_id
         where t.company_id = any($3::uuid[])) as "stopCalls"`,
    [
      CITIES.map((city) => city.nameEn.toLowerCase()),
      PUBLIC_STOPS.map((stop) => demoUuid('stop', stop.key)),
      companyIds,
    ],
  );
  return rows[0]!;
}
