import type { PoolClient } from 'pg';
import { damascusDate } from '../../domain/time.js';
import {
  layoutSeats,
  validateLayout,
  type LayoutDocument,
  type LayoutIssue,
} from '../../domain/seat-layout.js';

/** Anything that runs SQL: the pool, or a client inside a transaction. */
export type Queryable = Pick<PoolClient, 'query'>;

export interface SavedLayout {
  layoutId: string;
  version: number;
  status: 'draft' | 'active';
  validationStatus: 'valid' | 'invalid';
  issues: LayoutIssue[];
  seatCount: number;
}

/**
 * Saves a new version of a bus layout. saveMode active is accepted only for a valid document; it
 * archives the previous active layout, rebuilds the seat projection and updates the bus capacity.
 * Call inside a transaction.
 */
export async function saveBusLayout(
  q: Queryable,
  input: { busId: string; document: LayoutDocument; saveMode: 'draft' | 'active' },
): Promise<SavedLayout> {
  const issues = validateLayout(input.document);
  const validationStatus = issues.length === 0 ? 'valid' : 'invalid';
  if (input.saveMode === 'active' && validationStatus !== 'valid') {
    return { layoutId: '', version: 0, status: 'active', validationStatus, issues, seatCount: 0 };
  }
  const seats = layoutSeats(input.document);
  await q.query('select id from buses where id = $1 for update', [input.busId]);
  if (input.saveMode === 'active') {
    await q.query(`update bus_layouts set status = 'archived' where bus_id = $1 and status = 'active'`, [
      input.busId,
    ]);
  }
  const { rows } = await q.query<{ id: string; version: number }>(
    `insert into bus_layouts (bus_id, version, status, validation_status, validation_errors, document, seat_count, activated_at)
     values ($1, coalesce((select max(version) from bus_layouts where bus_id = $1), 0) + 1, $2, $3, $4, $5, $6,
             case when $2 = 'active' then now() end)
     returning id, version`,
    [
      input.busId,
      input.saveMode,
      validationStatus,
      JSON.stringify(issues),
      JSON.stringify(input.document),
      seats.length,
    ],
  );
  const layout = rows[0]!;
  if (seats.length) {
    await q.query(
      `insert into layout_seats (layout_id, seat_id, seat_number, deck, seat_class)
       select $1, s.seat_id, s.seat_number, s.deck, s.seat_class
       from jsonb_to_recordset($2::jsonb) as s(seat_id text, seat_number text, deck int, seat_class text)`,
      [
        layout.id,
        JSON.stringify(
          seats.map((s) => ({
            seat_id: s.seatId,
            seat_number: s.seatNumber,
            deck: s.deck,
            seat_class: s.seatClass,
          })),
        ),
      ],
    );
  }
  if (input.saveMode === 'active') {
    await q.query('update buses set capacity = $2 where id = $1', [input.busId, seats.length]);
  }
  return {
    layoutId: layout.id,
    version: layout.version,
    status: input.saveMode,
    validationStatus,
    issues,
    seatCount: seats.length,
  };
}

export interface StopCallInput {
  stopId: string;
  cityId: string;
  arrivalAt: Date;
  departureAt: Date;
  /** Share of the full fare accumulated up to this call, 0..10000; the first is 0, the last 10000. */
  fareShareBp: number;
}

export interface TripInput {
  id?: string;
  companyId: string;
  routeId: string;
  busId: string;
  pickupStopId: string;
  priceBase: number;
  priceVip?: number | null;
  currency?: string;
  status?: string;
  scheduleId?: string | null;
  /** The trip's driver (a staff user with an active DRIVER membership of the company). */
  driverId?: string | null;
  /**
   * Seats the trip sells when the caller decided them (the legacy fallback for a bus imported
   * before canonical layouts); by default those of the bus's active valid layout.
   */
  seatsTotal?: number;
  calls: StopCallInput[];
}

/** A stop call as the jsonb_to_recordset of the inserts reads it; its sequence is its place in the trip. */
function stopCallRecord(call: StopCallInput, sequence: number) {
  return {
    stop_id: call.stopId,
    city_id: call.cityId,
    sequence,
    arrival_at: call.arrivalAt.toISOString(),
    departure_at: call.departureAt.toISOString(),
    fare_share_bp: call.fareShareBp,
  };
}

/**
 * Inserts a trip and its stop calls. Seats come from the bus's active valid layout, which must
 * exist. Departure and arrival are those of the first and last call.
 */
export async function insertTrip(
  q: Queryable,
  input: TripInput,
): Promise<{ tripId: string; stopCallIds: string[] }> {
  if (input.calls.length < 2) throw new Error('a trip needs at least two stop calls');
  const first = input.calls[0]!;
  const last = input.calls[input.calls.length - 1]!;
  const { rows } = await q.query<{ id: string }>(
    `insert into trips (id, company_id, route_id, bus_id, schedule_id, pickup_stop_id, departure_at, arrival_at, operating_date,
                        price_base, price_vip, currency, seats_total, status)
     select coalesce($1::uuid, gen_random_uuid()), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, l.seat_count, $13
     from bus_layouts l where l.bus_id = $4 and l.status = 'active' and l.validation_status = 'valid'
     returning id`,
    [
      input.id ?? null,
      input.companyId,
      input.routeId,
      input.busId,
      input.scheduleId ?? null,
      input.pickupStopId,
      first.departureAt,
      last.arrivalAt,
      damascusDate(first.departureAt),
      input.priceBase,
      input.priceVip ?? null,
      input.currency ?? 'SYP',
      input.status ?? 'SCHEDULED',
    ],
  );
  const tripId = rows[0]?.id;
  if (!tripId) throw new Error(`bus ${input.busId} has no active valid layout`);
  const calls = await q.query<{ id: string }>(
    `insert into trip_stop_calls (trip_id, stop_id, city_id, sequence, arrival_at, departure_at, fare_share_bp)
     select $1, c.stop_id, c.city_id, c.sequence, c.arrival_at, c.departure_at, c.fare_share_bp
     from jsonb_to_recordset($2::jsonb) as c(stop_id uuid, city_id uuid, sequence int, arrival_at timestamptz,
                                             departure_at timestamptz, fare_share_bp int)
     order by c.sequence
     returning id`,
    [tripId, JSON.stringify(input.calls.map(stopCallRecord))],
  );
  return { tripId, stopCallIds: calls.rows.map((row) => row.id) };
}

/** Trips per insertTrips statement: large enough to be fast, small enough to keep each JSON parameter modest. */
const TRIP_BATCH = 1000;

/**
 * Inserts many trips and their stop calls in a few statements (the demo seed, schedule
 * expansion). Same rules as insertTrip; every input needs its id. A trip whose bus has no active
 * valid layout stops the whole batch. Call inside a transaction.
 */
export async function insertTrips(
  q: Queryable,
  inputs: (TripInput & { id: string })[],
): Promise<{ trips: number; stopCalls: number }> {
  let trips = 0;
  let stopCalls = 0;
  for (let start = 0; start < inputs.length; start += TRIP_BATCH) {
    const batch = inputs.slice(start, start + TRIP_BATCH);
    if (batch.some((input) => input.calls.length < 2))
      throw new Error('a trip needs at least two stop calls');
    const inserted = await q.query(
      `insert into trips (id, company_id, route_id, bus_id, schedule_id, driver_id, pickup_stop_id, departure_at, arrival_at,
                          operating_date, price_base, price_vip, currency, seats_total, status)
       select t.id, t.company_id, t.route_id, t.bus_id, t.schedule_id, t.driver_id, t.pickup_stop_id, t.departure_at,
              t.arrival_at, t.operating_date, t.price_base, t.price_vip, t.currency, coalesce(t.seats_total, l.seat_count),
              t.status
       from jsonb_to_recordset($1::jsonb) as t(id uuid, company_id uuid, route_id uuid, bus_id uuid, schedule_id uuid,
              driver_id uuid, pickup_stop_id uuid, departure_at timestamptz, arrival_at timestamptz, operating_date date,
              price_base bigint, price_vip bigint, currency text, seats_total int, status text)
       left join bus_layouts l on l.bus_id = t.bus_id and l.status = 'active' and l.validation_status = 'valid'
       where coalesce(t.seats_total, l.seat_count) is not null`,
      [JSON.stringify(batch.map(tripRecord))],
    );
    if (inserted.rowCount !== batch.length)
      throw new Error('every bus of the batch needs an active valid layout');
    const calls = await q.query(
      `insert into trip_stop_calls (trip_id, stop_id, city_id, sequence, arrival_at, departure_at, fare_share_bp)
       select c.trip_id, c.stop_id, c.city_id, c.sequence, c.arrival_at, c.departure_at, c.fare_share_bp
       from jsonb_to_recordset($1::jsonb) as c(trip_id uuid, stop_id uuid, city_id uuid, sequence int, arrival_at timestamptz,
                                               departure_at timestamptz, fare_share_bp int)`,
      [
        JSON.stringify(
          batch.flatMap((input) =>
            input.calls.map((call, sequence) => ({ trip_id: input.id, ...stopCallRecord(call, sequence) })),
          ),
        ),
      ],
    );
    trips += batch.length;
    stopCalls += calls.rowCount ?? 0;
  }
  return { trips, stopCalls };
}

function tripRecord(input: TripInput & { id: string }) {
  const first = input.calls[0]!;
  const last = input.calls[input.calls.length - 1]!;
  return {
    id: input.id,
    company_id: input.companyId,
    route_id: input.routeId,
    bus_id: input.busId,
    schedule_id: input.scheduleId ?? null,
    driver_id: input.driverId ?? null,
    seats_total: input.seatsTotal ?? null,
    pickup_stop_id: input.pickupStopId,
    departure_at: first.departureAt.toISOString(),
    arrival_at: last.arrivalAt.toISOString(),
    operating_date: damascusDate(first.departureAt),
    price_base: input.priceBase,
    price_vip: input.priceVip ?? null,
    currency: input.currency ?? 'SYP',
    status: input.status ?? 'SCHEDULED',
  };
}
