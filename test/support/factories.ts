import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/orm.js';
import { insertTrip, saveBusLayout } from '../../db/writes/catalogue.js';
import { coachLayout, type TemplateOptions } from '../../domain/layout-templates.js';
import type { StopKind } from '../../db/entities/stop.js';
import { addMinutes } from '../../domain/time.js';

/**
 * Small builders for test data. Every name carries a random suffix so test files never collide
 * in the shared test database; tests assert on the rows they made, not on totals.
 */
const suffix = () => randomUUID().slice(0, 8);

export interface CityRow {
  id: string;
  nameAr: string;
  nameEn: string;
}

export async function createCity(db: Database, name?: string): Promise<CityRow> {
  const nameEn = name ?? `City ${suffix()}`;
  const nameAr = `مدينة ${nameEn}`;
  const [row] = await db.query<{ id: string }>(
    `insert into cities (name_ar, name_en, latitude, longitude) values ($1, $2, 33.5, 36.3) returning id`,
    [nameAr, nameEn],
  );
  return { id: row!.id, nameAr, nameEn };
}

export async function createStop(
  db: Database,
  cityId: string,
  options: { kind?: StopKind; companyId?: string | null; name?: string; enabled?: boolean } = {},
): Promise<{ id: string; cityId: string; nameEn: string }> {
  const nameEn = options.name ?? `Stop ${suffix()}`;
  const [row] = await db.query<{ id: string }>(
    `insert into stops (city_id, company_id, kind, name_ar, name_en, address_ar, address_en, directions_ar, directions_en,
                        latitude, longitude, enabled)
     values ($1, $2, $3, $4, $5, 'عنوان', 'Address', 'اتجاهات', 'Directions', 33.51, 36.29, $6) returning id`,
    [
      cityId,
      options.companyId ?? null,
      options.kind ?? 'BUS_STATION',
      `موقف ${nameEn}`,
      nameEn,
      options.enabled ?? true,
    ],
  );
  return { id: row!.id, cityId, nameEn };
}

export type CompanyScopeKind = 'PRODUCTION' | 'INTERNAL' | 'DEMO';

export async function createCompany(
  db: Database,
  options: {
    scope?: CompanyScopeKind;
    status?: 'ACTIVE' | 'SUSPENDED';
    published?: boolean;
    verified?: boolean;
    name?: string;
  } = {},
): Promise<{ id: string; nameEn: string }> {
  const nameEn = options.name ?? `Company ${suffix()}`;
  const scope = options.scope ?? 'PRODUCTION';
  const [row] = await db.query<{ id: string }>(
    `insert into companies (name_ar, name_en, slug, status, verified, published, is_internal, is_demo)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`,
    [
      `شركة ${nameEn}`,
      nameEn,
      `${nameEn.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${suffix()}`,
      options.status ?? 'ACTIVE',
      options.verified ?? true,
      options.published ?? true,
      scope === 'INTERNAL',
      scope === 'DEMO',
    ],
  );
  return { id: row!.id, nameEn };
}

/** The default coach (ten rows of 2+2) with its last row VIP class: a trip on it sells its VIP fare. */
export const VIP_ROW_COACH: TemplateOptions = { rows: 10, pattern: '2+2', vipRows: [9] };

export async function createBus(
  db: Database,
  companyId: string,
  layout: TemplateOptions = { rows: 10, pattern: '2+2' },
): Promise<{ id: string; layoutId: string; seatCount: number }> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `insert into buses (company_id, plate_number, model) values ($1, $2, 'Test coach') returning id`,
      [companyId, `TEST-${suffix()}`],
    );
    const busId = rows[0]!.id;
    const saved = await saveBusLayout(client, { busId, document: coachLayout(layout), saveMode: 'active' });
    return { id: busId, layoutId: saved.layoutId, seatCount: saved.seatCount };
  });
}

export async function createRoute(
  db: Database,
  companyId: string,
  originCityId: string,
  destinationCityId: string,
) {
  const [row] = await db.query<{ id: string }>(
    `insert into routes (company_id, origin_city_id, destination_city_id, name_ar, name_en) values ($1, $2, $3, 'خط', 'Route')
     returning id`,
    [companyId, originCityId, destinationCityId],
  );
  return { id: row!.id };
}

export interface TripCallSpec {
  stop: { id: string; cityId: string };
  /** Minutes after the trip's first departure. */
  at: number;
  /** Dwell time at the stop in minutes (0 for the ends). */
  dwell?: number;
}

/**
 * A trip of `company` on `bus` through `calls`, departing at `departAt`. The fare grows evenly
 * along the calls. A route between the first and last call's cities is created when not given.
 */
export async function createTrip(
  db: Database,
  options: {
    companyId: string;
    busId: string;
    calls: TripCallSpec[];
    departAt: Date;
    priceBase?: number;
    priceVip?: number | null;
    status?: string;
    routeId?: string;
  },
): Promise<{ id: string; stopCallIds: string[]; routeId: string }> {
  const first = options.calls[0]!;
  const last = options.calls[options.calls.length - 1]!;
  const routeId =
    options.routeId ?? (await createRoute(db, options.companyId, first.stop.cityId, last.stop.cityId)).id;
  const steps = options.calls.length - 1;
  const { tripId, stopCallIds } = await db.transaction((client) =>
    insertTrip(client, {
      companyId: options.companyId,
      routeId,
      busId: options.busId,
      pickupStopId: first.stop.id,
      priceBase: options.priceBase ?? 10_000,
      priceVip: options.priceVip === undefined ? 15_000 : options.priceVip,
      status: options.status ?? 'SCHEDULED',
      calls: options.calls.map((call, index) => {
        const arrivalAt = addMinutes(options.departAt, call.at);
        return {
          stopId: call.stop.id,
          cityId: call.stop.cityId,
          arrivalAt,
          departureAt: addMinutes(arrivalAt, call.dwell ?? 0),
          fareShareBp: index === steps ? 10_000 : Math.round((10_000 * index) / steps),
        };
      }),
    }),
  );
  return { id: tripId, stopCallIds, routeId };
}

/** A Damascus calendar date some days from now, and an instant on it at the given local hour. */
export function futureDay(daysAhead: number): string {
  const instant = new Date(Date.now() + daysAhead * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Damascus' }).format(instant);
}

export function atDamascus(date: string, time: string): Date {
  return new Date(`${date}T${time}:00+03:00`);
}

/**
 * A ready-made small world: two cities with two stops each, one production company with a bus,
 * and a direct trip between them on `date`.
 */
export async function createCorridor(
  db: Database,
  options: { date?: string; scope?: CompanyScopeKind; bus?: TemplateOptions } = {},
) {
  const date = options.date ?? futureDay(3);
  const origin = await createCity(db);
  const destination = await createCity(db);
  const originStop = await createStop(db, origin.id);
  const originStop2 = await createStop(db, origin.id, { kind: 'PARKING_POINT' });
  const destinationStop = await createStop(db, destination.id);
  const destinationStop2 = await createStop(db, destination.id, { kind: 'AIRPORT' });
  const company = await createCompany(db, { scope: options.scope ?? 'PRODUCTION' });
  const bus = await createBus(db, company.id, options.bus);
  const trip = await createTrip(db, {
    companyId: company.id,
    busId: bus.id,
    departAt: atDamascus(date, '08:00'),
    calls: [
      { stop: originStop, at: 0 },
      { stop: originStop2, at: 20, dwell: 5 },
      { stop: destinationStop, at: 180, dwell: 10 },
      { stop: destinationStop2, at: 220 },
    ],
  });
  return {
    date,
    origin,
    destination,
    originStop,
    originStop2,
    destinationStop,
    destinationStop2,
    company,
    bus,
    trip,
  };
}
