/**
 * npm run bench:bookings — POST /bookings at concurrency 32 against the real API in its own
 * process (production configuration), and the same booking transaction bare
 * (db/writes/bookings/create.ts createBooking, no HTTP, with the API's per-account caps) in this
 * process, in the same run:
 *   1. many trips: bookings spread round-robin over BENCH_TRIPS trips of 40 seats;
 *   2. one busy trip: every booking on one 400-seat trip (no two bookings share a seat, but they
 *      share the trip, its layout and its allocations index).
 * The many-trips phase also runs against the HTTP floor (lib/booking-floor-server.ts: the same
 * transaction behind a bare node:http endpoint in its own process, without the API's framework,
 * token, session check or rate limit): the least any Node endpoint doing this booking reaches here.
 * A p99 target its floor misses too is out of reach on this machine in this run.
 * Every booking takes one seat. The seat locks are created before each timed phase (directly in
 * the database, as POST /seat-locks would), so only the booking is measured; then the database is
 * vacuumed and analyzed, as pgbench does before a run. Each many-trips phase follows a warm-up of
 * its own (BENCH_WARMUP bookings, not timed), and no traveller makes more bookings in the run than
 * UNPAID_BOOKINGS_MAX allows one account, so every phase books for accounts alike. Prints bookings/s,
 * p50 and p99 of each phase and the HTTP / bare ratio. Targets: ≥ 150 bookings/s across many
 * trips over HTTP, p99 < 150 ms. The many-trips HTTP phase runs again against an API with
 * API_PROCESSES=1 and one with 2 (the main API runs the default, one per core). BENCH_SCALE=0.1
 * books a tenth. The benchmark database is dropped and rebuilt at every run. A second table gives
 * the CPU time per booking of each part of the stack, and of the whole machine, for every phase.
 */
import type { Config } from '../config/index.js';
import type { Database } from '../db/orm.js';
import { createBooking } from '../db/writes/bookings/index.js';
import { createSeatLock } from '../db/writes/seat-locks.js';
import { PUBLIC_SCOPE } from '../domain/inventory-scope.js';
import { measureCpu } from './lib/cpu.js';
import { mapLimited, percentile, resultRow, type LoadResult } from './lib/load.js';
import { measureProcessScaling } from './lib/process-scaling.js';
import { autovacuumPasses, vacuumAnalyze } from './lib/vacuum.js';
import { figure, recordFigures } from './lib/results.js';
import {
  BENCH_SIGNING,
  BENCH_SIGNING_KEY_PEM,
  benchConfig,
  runOnBenchStack,
  type BenchStack,
} from './lib/stack.js';
import { startFloorProcess } from './lib/floor-process.js';
import { createBenchCompany, createBenchTrips, type BenchTrip } from './lib/company.js';
import { createTravellers, inTurn, type BenchTraveller } from './lib/travellers.js';
import { benchSetting, log } from './lib/settings.js';
import { resetStatements, writeStatements } from './lib/statements.js';
import { requestJson } from './lib/http-client.js';

const DATABASE = 'busbooking_bench_bookings';
const CONCURRENCY = benchSetting('BENCH_CONCURRENCY', 32);
/** Bookings per many-trips phase (HTTP, then bare). */
const SCALE = benchSetting('BENCH_SCALE', 1);
const BOOKINGS = benchSetting('BENCH_BOOKINGS', Math.max(CONCURRENCY, Math.round(3000 * SCALE)));
const SEATS_PER_TRIP = 40;
/**
 * Bookings made before each many-trips phase and not timed: enough for V8 to optimize the booking
 * path in every process that serves it (each of two API processes gets half).
 */
const WARMUP = benchSetting('BENCH_WARMUP', Math.max(CONCURRENCY, Math.round(1000 * SCALE)));
/** The many-trips phases: HTTP, bare, the HTTP floor, 1 and 2 API processes, each with its warm-up. */
const MANY_TRIP_PHASES = 5;
/** Enough trips for every many-trips phase and its warm-up. */
const TRIPS = benchSetting(
  'BENCH_TRIPS',
  Math.ceil((MANY_TRIP_PHASES * (BOOKINGS + WARMUP)) / SEATS_PER_TRIP) + 2,
);
/** The busy trip: 100 rows of 2+2. */
const BUSY_SEATS = 400;
/** Every booking of the run: the many-trips phases with their warm-ups, and the two busy trips. */
const RUN_BOOKINGS = MANY_TRIP_PHASES * (BOOKINGS + WARMUP) + 2 * BUSY_SEATS;

type Traveller = BenchTraveller;

interface World {
  manyTrips: BenchTrip[];
  /** Two busy trips: one for the HTTP phase, one for the bare phase. */
  busy: [BenchTrip, BenchTrip];
  /** The traveller of the next booking: each makes at most UNPAID_BOOKINGS_MAX in the whole run. */
  nextTraveller: () => Traveller;
}

/** A seat lock ready to book: whose it is, which trip and seat. */
interface ReadyLock {
  traveller: Traveller;
  tripId: string;
  seatNumber: string;
  lockId: string;
}

// ---------------------------------------------------------------------------------------------
// Data set-up
// ---------------------------------------------------------------------------------------------

async function createWorld(db: Database, config: Config): Promise<World> {
  const company = await createBenchCompany(db, 'BookLines', 'AUTO_CONFIRM');
  const manyTrips = await createBenchTrips(db, company, { rows: SEATS_PER_TRIP / 4, count: TRIPS });
  const busy = await createBenchTrips(db, company, { rows: BUSY_SEATS / 4, count: 2, firstSlot: TRIPS });
  return {
    manyTrips,
    busy: [busy[0]!, busy[1]!],
    nextTraveller: inTurn(await createTravellers(db, config, travellerCount(config), '+9639981')),
  };
}

/**
 * Travellers enough that none has more unpaid bookings than production allows one account
 * (UNPAID_BOOKINGS_MAX, at its default: the API runs with it), as when many people book at once.
 * With a few accounts making thousands of bookings, every booking's cap check counted a history
 * that grew phase after phase, and made later phases slower than earlier ones.
 */
function travellerCount(config: Config): number {
  return Math.ceil(RUN_BOOKINGS / config.UNPAID_BOOKINGS_MAX);
}

/** The next `count` free seats, round-robin over the trips so concurrent bookings hit different trips. */
function seatPicker(trips: BenchTrip[]) {
  let taken = 0;
  return (count: number) =>
    Array.from({ length: count }, () => {
      const trip = trips[taken % trips.length]!;
      const seatNumber = trip.seatNumbers[Math.floor(taken / trips.length)];
      taken++;
      if (!seatNumber) throw new Error('out of seats: raise BENCH_TRIPS');
      return { tripId: trip.id, seatNumber };
    });
}

/** Locks the seats (one lock per booking) directly in the database, CONCURRENCY at a time. */
async function lockAll(
  db: Database,
  nextTraveller: () => Traveller,
  seats: { tripId: string; seatNumber: string }[],
): Promise<ReadyLock[]> {
  return mapLimited(seats, CONCURRENCY, async (seat) => {
    const traveller = nextTraveller();
    const lock = await createSeatLock(
      db,
      { userId: traveller.userId, scope: PUBLIC_SCOPE, channel: 'CUSTOMER_MOBILE' },
      { tripId: seat.tripId, seatNumbers: [seat.seatNumber], lockMinutes: 30 },
    );
    return { traveller, ...seat, lockId: lock.seatLockSessionId };
  });
}

// ---------------------------------------------------------------------------------------------
// Timed phases
// ---------------------------------------------------------------------------------------------

const bookingBody = (lock: ReadyLock) => ({
  trip_id: lock.tripId,
  passenger_name: 'Bench Traveller',
  passenger_phone: '+963944000000',
  seats_count: 1,
  seat_numbers: [lock.seatNumber],
  seat_lock_session_id: lock.lockId,
});

async function bookOverHttp(apiUrl: string, lock: ReadyLock): Promise<void> {
  const answer = await requestJson<{ errorCode?: string }>(`${apiUrl}/api/bookings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${lock.traveller.token}` },
    body: bookingBody(lock),
  });
  if (answer.status !== 201)
    throw new Error(`POST /bookings → ${answer.status} ${answer.body.errorCode ?? ''}`);
}

/** The same booking through the HTTP floor, for the traveller its body names. */
async function bookOverFloor(floorUrl: string, lock: ReadyLock): Promise<void> {
  const answer = await requestJson<{ errorCode?: string }>(floorUrl, {
    method: 'POST',
    body: { ...bookingBody(lock), user_id: lock.traveller.userId },
  });
  if (answer.status !== 201) throw new Error(`the HTTP floor → ${answer.status}`);
}

/** The booking transaction of POST /bookings, called directly: the same per-account caps as the API. */
async function bookBare(stack: BenchStack, lock: ReadyLock): Promise<void> {
  const result = await createBooking(
    stack.db,
    { userId: lock.traveller.userId, scope: PUBLIC_SCOPE, channel: 'CUSTOMER_MOBILE', caps: stack.caps },
    {
      seatLockSessionId: lock.lockId,
      tripId: lock.tripId,
      seatNumbers: [lock.seatNumber],
      passengerName: 'Bench Traveller',
      passengerPhone: '+963944000000',
    },
    BENCH_SIGNING,
  );
  if (!result.created) throw new Error('the lock was already booked');
}

/** Books every lock once from CONCURRENCY loops; throughput and latency percentiles (ms). */
async function runQueue(
  label: string,
  locks: ReadyLock[],
  book: (lock: ReadyLock) => Promise<void>,
): Promise<LoadResult & { failures: Map<string, number> }> {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < locks.length) {
        const lock = locks[next++]!;
        const begin = performance.now();
        try {
          await book(lock);
          latencies.push(performance.now() - begin);
        } catch (error) {
          const reason = (error as Error).message;
          failures.set(reason, (failures.get(reason) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    label,
    requests: latencies.length,
    errors: locks.length - latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
  };
}

async function phase(
  stack: BenchStack,
  world: World,
  label: string,
  seats: { tripId: string; seatNumber: string }[],
  how: 'HTTP' | 'bare' | 'HTTP floor',
  url = stack.apiUrl,
) {
  log(`${label} ${how}: locking ${seats.length} seats`);
  const locks = await lockAll(stack.db, world.nextTraveller, seats);
  await vacuumAnalyze(stack.db);
  log(`${label} ${how}: booking them at concurrency ${CONCURRENCY}`);
  const passesBefore = await autovacuumPasses(stack.db);
  await resetStatements(stack.db);
  const { result: timed, cpu } = await measureCpu(
    () =>
      runQueue(`${label} ${how}`, locks, (lock) => {
        if (how === 'HTTP') return bookOverHttp(url, lock);
        return how === 'bare' ? bookBare(stack, lock) : bookOverFloor(url, lock);
      }),
    (done) => done.requests,
    { digits: 2, database: DATABASE },
  );
  await writeStatements(stack.db, timed.label, timed.requests, 'booking');
  const result = { ...timed, cpu, autovacuum: (await autovacuumPasses(stack.db)) - passesBefore };
  if (result.failures.size) {
    log(
      `${result.label} failures: ${[...result.failures].map(([reason, count]) => `${count}× ${reason}`).join(', ')}`,
    );
  }
  return result;
}

const row = (result: LoadResult & { autovacuum?: number }) => ({
  ...resultRow(result, { label: 'phase', unit: 'bookings', digits: 1 }),
  'autovacuum passes': result.autovacuum,
});

async function measure(stack: BenchStack, world: World) {
  const pick = seatPicker(world.manyTrips);
  /** WARMUP bookings, not timed: the first compile the code paths and create the signing key. */
  const warmUp = async (book: (lock: ReadyLock) => Promise<void>) =>
    runQueue('warm-up', await lockAll(stack.db, world.nextTraveller, pick(WARMUP)), book);
  const overHttp = (url: string) => (lock: ReadyLock) => bookOverHttp(url, lock);

  await warmUp(overHttp(stack.apiUrl));
  const manyHttp = await phase(stack, world, 'many trips', pick(BOOKINGS), 'HTTP');
  await warmUp((lock) => bookBare(stack, lock));
  const manyBare = await phase(stack, world, 'many trips', pick(BOOKINGS), 'bare');
  const floor = await startFloorProcess('booking-floor-server.ts', [], {
    DATABASE_URL: stack.databaseUrl,
    BENCH_POOL: stack.env.DATABASE_POOL_MAX!,
    BENCH_CAPS: JSON.stringify(stack.caps),
    SIGNING_PRIVATE_KEY_PEM: BENCH_SIGNING_KEY_PEM,
  });
  let manyFloor: Awaited<ReturnType<typeof phase>>;
  try {
    await warmUp((lock) => bookOverFloor(floor.url, lock));
    manyFloor = await phase(stack, world, 'many trips', pick(BOOKINGS), 'HTTP floor', floor.url);
  } finally {
    await floor.stop();
  }
  // The many-trips phase again with API_PROCESSES=1 and 2, each a fresh API warmed up the same way.
  const scaling = await measureProcessScaling(stack, {}, async (url, processes) => {
    await warmUp(overHttp(url));
    return phase(stack, world, `many trips API_PROCESSES=${processes}`, pick(BOOKINGS), 'HTTP', url);
  });
  const busySeats = (trip: BenchTrip) =>
    trip.seatNumbers.map((seatNumber) => ({ tripId: trip.id, seatNumber }));
  const busyHttp = await phase(stack, world, 'one busy trip', busySeats(world.busy[0]), 'HTTP');
  const busyBare = await phase(stack, world, 'one busy trip', busySeats(world.busy[1]), 'bare');
  const phases = [manyHttp, manyBare, manyFloor, scaling.one, scaling.two, busyHttp, busyBare];
  console.table(phases.map(row));
  console.log(
    'CPU ms per booking, by part of the stack (the load generator is this process, and makes the bare ' +
      'bookings itself); the whole machine busy, its capacity (cores × phase time) and time stolen by the host:',
  );
  console.table(phases.map((result) => ({ phase: result.label, ...result.cpu })));
  console.table(
    (
      [
        ['many trips', manyHttp, manyBare],
        ['one busy trip', busyHttp, busyBare],
      ] as const
    ).map(([label, http, bare]) => ({
      phase: label,
      'HTTP bookings/s': Number(http.perSecond.toFixed(1)),
      'bare bookings/s': Number(bare.perSecond.toFixed(1)),
      'bare/HTTP throughput': Number((bare.perSecond / http.perSecond).toFixed(2)),
      'HTTP/bare p50': Number((http.p50 / bare.p50).toFixed(2)),
    })),
  );
  log(
    `targets: many trips over HTTP ≥ 150 bookings/s: ${manyHttp.perSecond.toFixed(1)}; p99 < 150 ms: ${manyHttp.p99.toFixed(1)} ms ` +
      `(the HTTP floor: ${manyFloor.perSecond.toFixed(1)} bookings/s, p99 ${manyFloor.p99.toFixed(1)} ms)`,
  );
  recordFigures('bookings', [
    figure(
      'bookings many trips HTTP',
      manyHttp.perSecond,
      'bookings/s',
      { op: '>=', value: 150 },
      manyFloor.perSecond,
    ),
    figure('bookings many trips HTTP p99', manyHttp.p99, 'ms', { op: '<', value: 150 }, manyFloor.p99),
    figure('bookings many trips bare (baseline)', manyBare.perSecond, 'bookings/s'),
    figure('bookings many trips bare p99 (baseline)', manyBare.p99, 'ms'),
    figure('bookings many trips HTTP floor (bare node:http)', manyFloor.perSecond, 'bookings/s'),
    figure('bookings many trips HTTP floor p99', manyFloor.p99, 'ms'),
    figure('bookings many trips HTTP, 1 process', scaling.one.perSecond, 'bookings/s'),
    figure('bookings many trips HTTP, 2 processes', scaling.two.perSecond, 'bookings/s'),
    figure('bookings HTTP 2 / 1 processes', scaling.ratio, '×'),
    figure('bookings one busy trip HTTP', busyHttp.perSecond, 'bookings/s'),
    figure('bookings one busy trip bare (baseline)', busyBare.perSecond, 'bookings/s'),
  ]);
}

async function main() {
  const config = benchConfig(DATABASE);
  await runOnBenchStack(
    {
      database: DATABASE,
      fresh: true,
      env: { LOG_LEVEL: 'warn', UNPAID_BOOKINGS_MAX: String(config.UNPAID_BOOKINGS_MAX) },
      prepare: (db) => {
        log(`creating ${TRIPS} trips of ${SEATS_PER_TRIP} seats and two trips of ${BUSY_SEATS} seats`);
        return createWorld(db, config);
      },
    },
    measure,
  );
}

await main();
process.exit(0);
