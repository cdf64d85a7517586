/**
 * npm run bench:checkin — the driver app's scan at the door (POST /driver/api/trips/{id}/scan:
 * verify the signed credential and check the traveller in, replay-safe) against the real API in
 * its own process (production configuration), and in the same run the same check-in transaction
 * bare (db/writes/trip-operations scanAtDoor, no HTTP) through pg in this process.
 *
 * Each round gives every scanner its own trip of BENCH_SEATS seats (default 60) with one booking
 * per seat, the trip boarding and the scanner's driver assigned; BENCH_SCANNERS scanners (default
 * 4) then scan at once, one request at a time each as a phone does, every ticket of their trip once
 * plus a replay of about BENCH_REPLAY_PERCENT (default 20) of their scans under the same client scan
 * id, shuffled in. Prints scans/s, p50 and p99 of each way, the ratio, and the double check-ins
 * found (tickets with more than one CHECK_IN in the operations log, or answered CHECKED_IN twice):
 * must be 0. Targets: ≥ 300 scans/s over HTTP, p99 < 100 ms, HTTP ≥ 0.5× bare. BENCH_ROUNDS
 * (default 5) repeats with new trips. The benchmark database is dropped and rebuilt at every run.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { createStaffSession } from '../api/auth/staff-session.js';
import { DRIVER_APP_ROLES } from '../api/auth/driver-auth.js';
import type { Config } from '../config/index.js';
import type { Database } from '../db/orm.js';
import { createBooking } from '../db/writes/bookings/index.js';
import { createSeatLock } from '../db/writes/seat-locks.js';
import { scanAtDoor, type ScanAnswer } from '../db/writes/trip-operations/index.js';
import { PUBLIC_SCOPE } from '../domain/inventory-scope.js';
import { projectRoot } from '../scripts/lib/services.js';
import { createBenchCompany, createBenchTrips, type BenchCompany } from './lib/company.js';
import { cpuSnapshot } from './lib/cpu.js';
import { loadResult, mapLimited, percentile, resultRow, type LoadResult } from './lib/load.js';
import { benchConfig, runOnBenchStack, type BenchStack } from './lib/stack.js';
import { createTravellers, type BenchTraveller } from './lib/travellers.js';
import { figure, recordFigures } from './lib/results.js';
import { benchSetting, log } from './lib/settings.js';
import { requestJson } from './lib/http-client.js';

const DATABASE = 'busbooking_bench_checkin';
const SCANNERS = benchSetting('BENCH_SCANNERS', 4);
const SEATS = benchSetting('BENCH_SEATS', 60);
const ROUNDS = benchSetting('BENCH_ROUNDS', 5);
const REPLAY_PERCENT = benchSetting('BENCH_REPLAY_PERCENT', 20);

interface Credential {
  ticketId: string;
  payload: Record<string, unknown>;
  signature: string;
}

/** One scanner's trip: its driver, and one credential per seat. */
interface ScannerTrip {
  tripId: string;
  driver: { staffUserId: string; membershipId: string; sessionId: string; token: string; name: string };
  credentials: Credential[];
}

/** One request of a scanner: a credential under a client scan id (a replay repeats an earlier id). */
interface Scan {
  trip: ScannerTrip;
  credential: Credential;
  clientScanId: string;
}

// ---------------------------------------------------------------------------------------------
// Data set-up
// ---------------------------------------------------------------------------------------------

async function createDriver(db: Database, config: Config, companyId: string) {
  const email = `driver-${randomUUID().slice(0, 12)}@bench.test`;
  const name = `Bench driver ${email.slice(7, 13)}`;
  const [user] = await db.query<{ id: string }>(
    `insert into staff_users (email, name, password_hash) values ($1, $2, 'not-a-password-hash') returning id`,
    [email, name],
  );
  const [membership] = await db.query<{ id: string }>(
    `insert into company_memberships (company_id, staff_user_id, role) values ($1, $2, 'DRIVER') returning id`,
    [companyId, user!.id],
  );
  const session = await createStaffSession(
    { db, config },
    { staffUserId: user!.id, membershipId: membership!.id },
  );
  return {
    staffUserId: user!.id,
    membershipId: membership!.id,
    sessionId: session.sessionId,
    token: session.token,
    name,
  };
}

/** Books every seat of the trip (one booking per seat, 8 at a time), then starts boarding with the driver. */
async function bookedTrip(
  db: Database,
  config: Config,
  company: BenchCompany,
  travellers: BenchTraveller[],
  slot: number,
): Promise<ScannerTrip> {
  const [trip] = await createBenchTrips(db, company, {
    rows: Math.ceil(SEATS / 4),
    count: 1,
    firstSlot: slot,
  });
  const seats = trip!.seatNumbers.slice(0, SEATS);
  // Seat i is booked by traveller i + 1, in turn.
  await mapLimited(seats, 8, async (seatNumber, index) => {
    const traveller = travellers[(index + 1) % travellers.length]!;
    const caller = { userId: traveller.userId, scope: PUBLIC_SCOPE, channel: 'CUSTOMER_MOBILE' as const };
    const lock = await createSeatLock(db, caller, {
      tripId: trip!.id,
      seatNumbers: [seatNumber],
      lockMinutes: 30,
    });
    await createBooking(db, caller, {
      seatLockSessionId: lock.seatLockSessionId,
      tripId: trip!.id,
      seatNumbers: [seatNumber],
      passengerName: 'Bench Traveller',
      passengerPhone: '+963944000000',
    });
  });
  const driver = await createDriver(db, config, company.companyId);
  await db.query(`update trips set status = 'BOARDING', driver_id = $2 where id = $1`, [
    trip!.id,
    driver.staffUserId,
  ]);
  const credentials = await db.query<Credential>(
    `select id as "ticketId", payload, signature from journey_tickets where trip_id = $1 and status = 'VALID'`,
    [trip!.id],
  );
  return { tripId: trip!.id, driver, credentials };
}

/** Each ticket once in seat order, with a replay of some of them shuffled in after their first scan. */
function scansOf(trip: ScannerTrip): Scan[] {
  const scans: Scan[] = trip.credentials.map((credential) => ({
    trip,
    credential,
    clientScanId: randomUUID(),
  }));
  const replays = scans.filter((_, index) => (index * 37) % 100 < REPLAY_PERCENT);
  for (const replay of replays) {
    const after = scans.indexOf(replay);
    const at = after + 1 + Math.floor(Math.random() * (scans.length - after));
    scans.splice(at, 0, { ...replay });
  }
  return scans;
}

// ---------------------------------------------------------------------------------------------
// Timed phases
// ---------------------------------------------------------------------------------------------

type ScanWay = (scan: Scan) => Promise<ScanAnswer>;

function overHttp(stack: BenchStack): ScanWay {
  return async (scan) => {
    const answer = await requestJson<{ data?: ScanAnswer; errorCode?: string }>(
      `${stack.apiUrl}/driver/api/trips/${scan.trip.tripId}/scan`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${scan.trip.driver.token}` },
        body: {
          client_scan_id: scan.clientScanId,
          payload: scan.credential.payload,
          signature: scan.credential.signature,
          device_id: 'bench',
        },
      },
    );
    if (answer.status !== 200 || !answer.body.data)
      throw new Error(`scan → ${answer.status} ${answer.body.errorCode ?? ''}`);
    return answer.body.data;
  };
}

function bare(db: Database, companyId: string): ScanWay {
  return (scan) =>
    scanAtDoor(db, {
      companyId,
      tripId: scan.trip.tripId,
      actor: {
        sessionId: scan.trip.driver.sessionId,
        membershipId: scan.trip.driver.membershipId,
        staffUserId: scan.trip.driver.staffUserId,
        allowedRoles: DRIVER_APP_ROLES,
        name: scan.trip.driver.name,
      },
      clientScanId: scan.clientScanId,
      deviceId: 'bench',
      scannedAt: null,
      payload: scan.credential.payload,
      signature: scan.credential.signature,
    });
}

interface PhaseResult extends LoadResult {
  /** Tickets answered CHECKED_IN by more than one request that was not a replay. */
  doubleAnswers: number;
  latencies: number[];
  unexpected: Map<string, number>;
}

/** Every scanner scans its queue, one request at a time, all scanners at once. */
async function runScanners(label: string, queues: Scan[][], way: ScanWay): Promise<PhaseResult> {
  const latencies: number[] = [];
  const unexpected = new Map<string, number>();
  const checkedIn = new Map<string, number>();
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    queues.map(async (queue) => {
      for (const scan of queue) {
        const begin = performance.now();
        try {
          const answer = await way(scan);
          latencies.push(performance.now() - begin);
          if (answer.outcome === 'CHECKED_IN' && !answer.replayed) {
            checkedIn.set(scan.credential.ticketId, (checkedIn.get(scan.credential.ticketId) ?? 0) + 1);
          } else if (answer.outcome !== 'CHECKED_IN') {
            const reason = `${answer.outcome} ${answer.reason ?? ''}`;
            unexpected.set(reason, (unexpected.get(reason) ?? 0) + 1);
          }
        } catch (error) {
          errors++;
          const reason = (error as Error).message;
          unexpected.set(reason, (unexpected.get(reason) ?? 0) + 1);
        }
      }
    }),
  );
  return {
    ...loadResult(label, latencies, errors, started),
    doubleAnswers: [...checkedIn.values()].filter((count) => count > 1).length,
    unexpected,
    latencies,
  };
}

/** Tickets of the trips checked in more than once by the operations log, and tickets not checked in. */
async function auditCheckIns(db: Database, tripIds: string[]) {
  const [row] = await db.query<{ doubles: number; missing: number }>(
    `select (select count(*)::int from (select manifest_item_id from trip_operation_events
              where trip_id = any($1::uuid[]) and action = 'CHECK_IN' group by manifest_item_id having count(*) > 1) d)
              as doubles,
            (select count(*)::int from journey_tickets where trip_id = any($1::uuid[]) and status <> 'USED') as missing`,
    [tripIds],
  );
  return row!;
}

/**
 * CPU seconds of this run's own processes: the API it started (by its working directory: other
 * checkouts may run an API too), this process (the load generator, and the bare way's Node side)
 * and the PostgreSQL backends of the benchmark database (the server is shared).
 */
function ownCpu(): Map<string, number> {
  const byPart = new Map<string, number>();
  for (const [pid, { part, seconds }] of cpuSnapshot()) {
    if (!isOwn(pid, part)) continue;
    byPart.set(part, (byPart.get(part) ?? 0) + seconds);
  }
  return byPart;
}

function isOwn(pid: number, part: string): boolean {
  try {
    if (part === 'PostgreSQL') return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(DATABASE);
    if (part === 'API') return readlinkSync(`/proc/${pid}/cwd`) === projectRoot;
    return part === 'load generator';
  } catch {
    return false;
  }
}

function addCpu(total: Map<string, number>, before: Map<string, number>, after: Map<string, number>): void {
  for (const [part, seconds] of after)
    total.set(part, (total.get(part) ?? 0) + seconds - (before.get(part) ?? 0));
}

async function phase(stack: BenchStack, config: Config, world: World, how: 'HTTP' | 'bare') {
  const results: PhaseResult[] = [];
  const tripIds: string[] = [];
  const cpu = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    const trips: ScannerTrip[] = [];
    for (let scanner = 0; scanner < SCANNERS; scanner++) {
      trips.push(await bookedTrip(stack.db, config, world.company, world.travellers, world.nextSlot++));
    }
    tripIds.push(...trips.map((trip) => trip.tripId));
    const way = how === 'HTTP' ? overHttp(stack) : bare(stack.db, world.company.companyId);
    const before = ownCpu();
    results.push(await runScanners(`${how} round ${round + 1}`, trips.map(scansOf), way));
    addCpu(cpu, before, ownCpu());
  }
  const result = merge(how, results);
  const cpuPerScan = Object.fromEntries(
    [...cpu].map(([part, seconds]) => [
      `${part} ms`,
      Number(((seconds * 1000) / result.requests).toFixed(2)),
    ]),
  );
  return { result, audit: await auditCheckIns(stack.db, tripIds), cpuPerScan };
}

/** The rounds as one phase: throughput over the time spent scanning, percentiles over every scan. */
function merge(label: string, rounds: PhaseResult[]): PhaseResult {
  const latencies = rounds.flatMap((round) => round.latencies).sort((a, b) => a - b);
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0);
  const unexpected = new Map<string, number>();
  for (const round of rounds) {
    for (const [reason, count] of round.unexpected)
      unexpected.set(reason, (unexpected.get(reason) ?? 0) + count);
  }
  return {
    label,
    requests: latencies.length,
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    doubleAnswers: rounds.reduce((sum, round) => sum + round.doubleAnswers, 0),
    unexpected,
    latencies,
  };
}

interface World {
  company: BenchCompany;
  travellers: BenchTraveller[];
  nextSlot: number;
}

async function measure(stack: BenchStack, config: Config, world: World) {
  log('warm-up: one round over HTTP and bare, not counted');
  const warmTrips = [await bookedTrip(stack.db, config, world.company, world.travellers, world.nextSlot++)];
  await runScanners(
    'warm-up',
    warmTrips.map(scansOf).map((queue) => queue.slice(0, 10)),
    overHttp(stack),
  );
  const warmBare = bare(stack.db, world.company.companyId);
  await runScanners(
    'warm-up',
    warmTrips.map(scansOf).map((queue) => queue.slice(10, 20)),
    warmBare,
  );
  log(`${ROUNDS} rounds of ${SCANNERS} scanners × ${SEATS} seats (+~${REPLAY_PERCENT}% replays) over HTTP`);
  const http = await phase(stack, config, world, 'HTTP');
  log(`the same bare (scanAtDoor through pg, no HTTP)`);
  const direct = await phase(stack, config, world, 'bare');
  console.table(
    [http, direct].map(({ result, audit }) => ({
      ...resultRow(result, { label: 'way', unit: 'scans', digits: 2 }),
      'double check-ins': audit.doubles + result.doubleAnswers,
      'not checked in': audit.missing,
    })),
  );
  log('CPU per scan (ms), independent of what else the machine runs; PostgreSQL counts only this database:');
  console.table([http, direct].map(({ result, cpuPerScan }) => ({ way: result.label, ...cpuPerScan })));
  for (const { result } of [http, direct]) {
    if (result.unexpected.size) {
      log(
        `${result.label} unexpected: ${[...result.unexpected].map(([reason, n]) => `${n}× ${reason}`).join(', ')}`,
      );
    }
  }
  const ratio = http.result.perSecond / direct.result.perSecond;
  const doubles =
    http.audit.doubles + http.result.doubleAnswers + direct.audit.doubles + direct.result.doubleAnswers;
  log(
    `targets: ≥ 300 scans/s over HTTP: ${http.result.perSecond.toFixed(1)}; p99 < 100 ms: ${http.result.p99.toFixed(1)} ms; ` +
      `HTTP/bare ≥ 0.5: ${ratio.toFixed(2)}; double check-ins = 0: ${doubles}`,
  );
  recordFigures('checkin', [
    figure('checkin scans over HTTP', http.result.perSecond, 'scans/s', { op: '>=', value: 300 }),
    figure('checkin HTTP p99', http.result.p99, 'ms', { op: '<', value: 100 }),
    figure('checkin bare (baseline)', direct.result.perSecond, 'scans/s'),
    figure('checkin HTTP / bare', ratio, '×', { op: '>=', value: 0.5 }),
    figure('checkin double check-ins', doubles, 'count', { op: '<=', value: 0 }),
  ]);
}

async function main() {
  const config = benchConfig(DATABASE);
  await runOnBenchStack(
    {
      database: DATABASE,
      fresh: true,
      env: { LOG_LEVEL: 'warn' },
      prepare: async (db): Promise<World> => ({
        company: await createBenchCompany(db, 'ScanLines', 'AUTO_CONFIRM'),
        travellers: await createTravellers(db, config, 8, '+9639982'),
        nextSlot: 0,
      }),
    },
    (stack, world) => measure(stack, config, world),
  );
}

await main();
process.exit(0);
