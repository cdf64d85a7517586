import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/orm.js';
import { addDays } from '../../domain/analytics.js';
import { damascusDate } from '../../domain/time.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createRoute,
  createStop,
  createTrip,
} from './factories.js';

/**
 * A company whose figures are known by hand: the fixture the analytics and report tests check
 * against. Dates are days before today (Damascus); every booking is written as the booking flows
 * leave one, with the time it was made.
 */
export const today = () => damascusDate(new Date());
export const daysAgo = (days: number) => addDays(today(), -days);

export interface InsightWorld {
  companyId: string;
  routeA: { id: string; nameEn: string };
  routeB: { id: string; nameEn: string };
  trips: Record<string, string>;
  customers: string[];
  bookings: Record<string, string>;
}

interface BookingSpec {
  key: string;
  trip: string;
  createdDaysAgo: number;
  at?: string;
  status: string;
  seats: number;
  total: number;
  discount?: number;
  payment?: 'UNPAID' | 'PAID' | 'REFUNDED';
  customer: number;
  passengerName?: string;
}

/**
 * Route A (40-seat bus): trips today, 1 day ago (plus one cancelled), 3 days ago. Route B (20 seats):
 * trips 10 and 40 days ago. Nine bookings of three travellers (see BOOKINGS).
 */
export const BOOKINGS: BookingSpec[] = [
  {
    key: 'b1',
    trip: 'A0',
    createdDaysAgo: 0,
    status: 'CONFIRMED',
    seats: 2,
    total: 18_000,
    discount: 2_000,
    customer: 0,
  },
  {
    key: 'b2',
    trip: 'A0',
    createdDaysAgo: 0,
    at: '11:00',
    status: 'CANCELLED',
    seats: 1,
    total: 10_000,
    customer: 1,
  },
  { key: 'b3', trip: 'A1', createdDaysAgo: 1, status: 'COMPLETED', seats: 1, total: 10_000, customer: 0 },
  {
    key: 'b4',
    trip: 'A3',
    createdDaysAgo: 5,
    status: 'COMPLETED',
    seats: 3,
    total: 27_000,
    discount: 3_000,
    payment: 'PAID',
    customer: 1,
  },
  { key: 'b5', trip: 'A3', createdDaysAgo: 3, status: 'NO_SHOW', seats: 1, total: 10_000, customer: 2 },
  { key: 'b6', trip: 'B10', createdDaysAgo: 10, status: 'COMPLETED', seats: 2, total: 16_000, customer: 0 },
  {
    key: 'b7',
    trip: 'B10',
    createdDaysAgo: 12,
    status: 'CANCELLED',
    seats: 1,
    total: 8_000,
    payment: 'REFUNDED',
    customer: 2,
  },
  { key: 'b8', trip: 'B40', createdDaysAgo: 40, status: 'COMPLETED', seats: 1, total: 8_000, customer: 2 },
  {
    key: 'b9',
    trip: 'A0',
    createdDaysAgo: 2,
    status: 'PENDING_CONFIRMATION',
    seats: 1,
    total: 10_000,
    customer: 1,
  },
];

async function customer(db: Database, index: number): Promise<string> {
  const phone = `+96398${String(Date.now()).slice(-6)}${index}${Math.floor(Math.random() * 10)}`;
  const [passenger] = await db.query<{ id: string }>(
    `insert into passengers (phone, name) values ($1, $2) returning id`,
    [phone, `Traveller ${index}`],
  );
  await db.query(`insert into users (phone, name, passenger_id) values ($1, $2, $3)`, [
    phone,
    `Traveller ${index}`,
    passenger!.id,
  ]);
  return passenger!.id;
}

async function routeWithTrips(
  db: Database,
  day: string,
  companyId: string,
  seats: { rows: number },
  trips: [key: string, daysAgo: number, status: string][],
) {
  const from = await createStop(db, (await createCity(db)).id);
  const to = await createStop(db, (await createCity(db)).id);
  const bus = await createBus(db, companyId, { rows: seats.rows, pattern: '2+2' });
  const route = await createRoute(db, companyId, from.cityId, to.cityId);
  const nameEn = `Route ${randomUUID().slice(0, 6)}`;
  await db.query(`update routes set name_en = $2, name_ar = $3 where id = $1`, [
    route.id,
    nameEn,
    `خط ${nameEn}`,
  ]);
  const ids: Record<string, string> = {};
  for (const [key, daysAgo, status] of trips) {
    const trip = await createTrip(db, {
      companyId,
      busId: bus.id,
      routeId: route.id,
      departAt: atDamascus(addDays(day, -daysAgo), '20:00'),
      calls: [
        { stop: from, at: 0 },
        { stop: to, at: 180 },
      ],
      status,
    });
    ids[key] = trip.id;
  }
  return { route: { id: route.id, nameEn }, trips: ids };
}

export async function insightWorld(
  db: Database,
  options: { bookings?: BookingSpec[]; companyName?: string; day?: string } = {},
): Promise<InsightWorld> {
  // The day every row is dated from, read once: a fixture built across midnight is not split over two days.
  const day = options.day ?? today();
  const companyId = (await createCompany(db, { name: options.companyName })).id;
  const a = await routeWithTrips(db, day, companyId, { rows: 10 }, [
    ['A0', 0, 'SCHEDULED'],
    ['A1', 1, 'COMPLETED'],
    ['A1x', 1, 'CANCELLED'],
    ['A3', 3, 'COMPLETED'],
  ]);
  const b = await routeWithTrips(db, day, companyId, { rows: 5 }, [
    ['B10', 10, 'COMPLETED'],
    ['B40', 40, 'COMPLETED'],
  ]);
  const trips = { ...a.trips, ...b.trips };
  const customers = [await customer(db, 0), await customer(db, 1), await customer(db, 2)];
  const bookings: Record<string, string> = {};
  for (const spec of options.bookings ?? BOOKINGS) {
    const [row] = await db.query<{ id: string }>(
      `insert into bookings (booking_code, company_id, trip_id, passenger_id, passenger_name, passenger_phone, seats_count,
                             seat_numbers, status, payment_status, total_price, discount, created_at)
       values ($1, $2, $3, $4, $5, '+963944000000', $6, $7, $8, $9, $10, $11, $12) returning id`,
      [
        `BK-${spec.key.toUpperCase()}-${randomUUID().slice(0, 6)}`,
        companyId,
        trips[spec.trip],
        customers[spec.customer],
        spec.passengerName ?? `Traveller ${spec.customer}`,
        spec.seats,
        Array.from({ length: spec.seats }, (_, index) => `${index + 1}`),
        spec.status,
        spec.payment ?? 'UNPAID',
        spec.total,
        spec.discount ?? 0,
        atDamascus(addDays(day, -spec.createdDaysAgo), spec.at ?? '10:00'),
      ],
    );
    bookings[spec.key] = row!.id;
  }
  return { companyId, routeA: a.route, routeB: b.route, trips, customers, bookings };
}
