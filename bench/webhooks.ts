/**
 * npm run bench:webhooks — 2,000 booking events (1,000 bookings through POST /bookings, each
 * booking.created + booking.confirmed) delivered to 3 subscriptions by the real stack: API and
 * worker in their own processes (production configuration but NODE_ENV=development: the receivers
 * are local, WEBHOOK_ALLOW_LOCAL_TARGETS, which production refuses to start with), the
 * webhook-outbox relay sending first attempts itself and a webhook-delivery workflow for each
 * delivery that must retry. Receivers are HTTP servers in this process; one fails 10 % of its
 * requests with 503. Prints deliveries/s, the lag from commit
 * (the booking's HTTP answer) to first receipt (p50, p99) per receiver, and how many were lost.
 * Target: lag p99 < 5 s at the healthy receivers; nothing lost.
 *
 * In the same run: the floor (the same signed bodies POSTed straight from here, no Temporal, no
 * database) and the design measurement (Temporal and HTTP alone: one workflow per delivery versus
 * one drain workflow per subscription).
 *
 * Settings: BENCH_SCALE (1 = 1,000 bookings; 0.05 for a quick run), BENCH_RATE (bookings per second
 * offered, default 25, i.e. 150 deliveries/s).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { hashSecret } from '../api/auth/secrets.js';
import { loadConfig } from '../config/index.js';
import type { Database } from '../db/orm.js';
import { createApiKey } from '../db/writes/api-keys.js';
import { createSeatLock } from '../db/writes/seat-locks.js';
import { PUBLIC_SCOPE } from '../domain/inventory-scope.js';
import { notificationBody } from '../domain/webhook-signing.js';
import { createBenchCompany, createBenchTrips, type BenchTrip } from './lib/company.js';
import { percentile } from './lib/load.js';
import { BENCH_ACCESS_TOKEN_SECRET, startBenchStack } from './lib/stack.js';
import { createTravellers, type BenchTraveller } from './lib/travellers.js';
import { measureDeliveryShapes } from './lib/webhook-shapes.js';
import { figure, recordFigures } from './lib/results.js';
import { benchSetting, log } from './lib/settings.js';

const DATABASE = 'busbooking_bench_webhooks';
const SCALE = benchSetting('BENCH_SCALE', 1);
const BOOKINGS = Math.max(4, Math.round(1000 * SCALE));
const RATE = benchSetting('BENCH_RATE', 25);
const SUBSCRIPTIONS = 3;
const SECRET = 'bench-webhook-secret-0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Receiver {
  label: string;
  url: string;
  /** Webhook-Id → first receipt (ms, performance clock) and the body's booking and event. */
  received: Map<string, { at: number; key: string }>;
  requests: number;
  close(): void;
}

async function startReceiver(label: string, failRate: number): Promise<Receiver> {
  const receiver = { label, received: new Map(), requests: 0 } as unknown as Receiver;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests += 1;
      if (Math.random() < failRate) return void response.writeHead(503).end();
      const id = String(request.headers['webhook-id']);
      const text = Buffer.concat(chunks).toString('utf8');
      // The floor and the design measurement send other bodies: only notifications are counted.
      if (!receiver.received.has(id) && text.startsWith('{"event"')) {
        const body = JSON.parse(text) as { event: string; data: { booking_id: string } };
        receiver.received.set(id, { at: performance.now(), key: `${body.data.booking_id} ${body.event}` });
      }
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return receiver;
}

interface World {
  companyId: string;
  trips: BenchTrip[];
  travellers: BenchTraveller[];
  key: string;
}

async function createWorld(db: Database): Promise<World> {
  const config = loadConfig({
    ACCESS_TOKEN_SECRET: BENCH_ACCESS_TOKEN_SECRET,
    NODE_ENV: 'development',
    DATABASE_URL: 'postgres://x@y/z',
  });
  const company = await createBenchCompany(db, 'HookLines', 'AUTO_CONFIRM');
  const trips = await createBenchTrips(db, company, { rows: 10, count: Math.ceil(BOOKINGS / 38) + 1 });
  const travellers = await createTravellers(db, config, 32, '+9639982');
  const [staff] = await db.query<{ id: string }>(
    `insert into staff_users (email, name, password_hash) values ($1, 'Bench owner', 'x') returning id`,
    [`bench-${randomUUID().slice(0, 8)}@hooks.test`],
  );
  const key = `bbk_${randomUUID().replaceAll('-', '')}`;
  await createApiKey(
    db,
    {
      companyId: company.companyId,
      staffUserId: staff!.id,
      name: 'bench',
      keyHash: hashSecret(key),
      keyPrefix: key.slice(0, 12),
    },
    { ip: '127.0.0.1', requestId: 'bench' },
  );
  return { companyId: company.companyId, trips, travellers, key };
}

/** Books every seat lock through POST /bookings, `RATE` a second; answers each booking's commit time. */
async function bookAll(
  apiUrl: string,
  db: Database,
  world: World,
  count = BOOKINGS,
  firstSeat = 1,
): Promise<Map<string, number>> {
  const seats = Array.from({ length: count }, (_, index) => ({
    trip: world.trips[index % world.trips.length]!,
    seat: String(Math.floor(index / world.trips.length) + firstSeat),
    traveller: world.travellers[index % world.travellers.length]!,
  }));
  const locks = [];
  for (const { trip, seat, traveller } of seats) {
    const lock = await createSeatLock(
      db,
      { userId: traveller.userId, scope: PUBLIC_SCOPE, channel: 'CUSTOMER_MOBILE' },
      { tripId: trip.id, seatNumbers: [seat], lockMinutes: 60 },
    );
    locks.push({ trip, seat, traveller, lockId: lock.seatLockSessionId });
  }
  const committed = new Map<string, number>();
  const started = performance.now();
  await Promise.all(
    locks.map(async (lock, index) => {
      await sleep(Math.max(0, started + (index * 1000) / RATE - performance.now()));
      const response = await fetch(`${apiUrl}/api/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${lock.traveller.token}` },
        body: JSON.stringify({
          trip_id: lock.trip.id,
          passenger_name: 'Bench Traveller',
          passenger_phone: '+963944000000',
          seats_count: 1,
          seat_numbers: [lock.seat],
          seat_lock_session_id: lock.lockId,
        }),
      });
      const json = (await response.json()) as { data?: { booking: { id: string } }; errorCode?: string };
      if (response.status !== 201) throw new Error(`POST /bookings → ${response.status} ${json.errorCode}`);
      committed.set(json.data!.booking.id, performance.now());
    }),
  );
  return committed;
}

/** Two bookings delivered everywhere before timing: the worker has bundled its workflows and the relay runs. */
async function warmUp(apiUrl: string, db: Database, world: World, receivers: Receiver[]): Promise<void> {
  const warm = { ...world, trips: world.trips.slice(-1) };
  const committed = await bookAll(apiUrl, db, warm, 2, 39);
  while (receivers.some((receiver) => receiver.received.size < committed.size * 2)) await sleep(200);
  for (const receiver of receivers) receiver.received.clear();
}

/** The floor: the same number of signed bodies POSTed straight from here at concurrency 16. */
async function floor(receiver: Receiver, count: number): Promise<number> {
  const body = notificationBody(SECRET, {
    event: 'booking.created',
    timestamp: new Date().toISOString(),
    data: {
      booking_id: randomUUID(),
      booking_code: 'BK1',
      trip_id: randomUUID(),
      passenger_count: 1,
      total_amount: 1,
    },
  });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < count) {
        const response = await fetch(receiver.url, {
          method: 'POST',
          body,
          headers: { 'webhook-id': randomUUID() },
        });
        await response.arrayBuffer();
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

function report(receivers: Receiver[], committed: Map<string, number>, firstCommit: number) {
  const expected = committed.size * 2;
  const commitOf = (key: string) => committed.get(key.split(' ')[0]!)!;
  let last = 0;
  const rows = receivers.map((receiver) => {
    const lags = [...receiver.received.values()]
      .map((entry) => entry.at - commitOf(entry.key))
      .sort((a, b) => a - b);
    last = Math.max(last, ...[...receiver.received.values()].map((entry) => entry.at));
    return {
      receiver: receiver.label,
      delivered: receiver.received.size,
      lost: expected - receiver.received.size,
      requests: receiver.requests,
      'lag p50 ms': Math.round(percentile(lags, 50)),
      'lag p99 ms': Math.round(percentile(lags, 99)),
    };
  });
  console.table(rows);
  const total = rows.reduce((sum, row) => sum + row.delivered, 0);
  const perSecond = total / ((last - firstCommit) / 1000);
  return { rows, total, perSecond };
}

async function main() {
  let world: World | undefined;
  const stack = await startBenchStack({
    database: DATABASE,
    fresh: true,
    withWorker: true,
    env: {
      LOG_LEVEL: 'warn',
      ACCESS_TOKEN_SECRET: BENCH_ACCESS_TOKEN_SECRET,
      // Production refuses local webhook receivers at start-up; the rest of its settings stay.
      NODE_ENV: 'development',
      WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
    },
    prepare: async (db) => {
      world = await createWorld(db);
    },
  });
  const receivers = [
    await startReceiver('healthy A', 0),
    await startReceiver('healthy B', 0),
    await startReceiver('failing 10 %', 0.1),
  ];
  try {
    log(
      `${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}; ${BOOKINGS} bookings at ${RATE}/s → ${BOOKINGS * 2} events × ${SUBSCRIPTIONS} subscriptions`,
    );
    for (const receiver of receivers) {
      const response = await fetch(`${stack.apiUrl}/api/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${world!.key}` },
        body: JSON.stringify({
          url: receiver.url,
          events: ['booking.created', 'booking.confirmed'],
          secret: SECRET,
        }),
      });
      if (response.status !== 201)
        throw new Error(`POST /api/webhooks → ${response.status} ${await response.text()}`);
    }
    await warmUp(stack.apiUrl, stack.db, world!, receivers);
    const firstCommit = performance.now();
    const committed = await bookAll(stack.apiUrl, stack.db, world!);
    log(
      `bookings done in ${((performance.now() - firstCommit) / 1000).toFixed(1)} s; waiting for every delivery`,
    );
    const deadline = performance.now() + 240_000;
    while (
      performance.now() < deadline &&
      receivers.some((receiver) => receiver.received.size < committed.size * 2)
    ) {
      await sleep(500);
    }
    const result = report(receivers, committed, firstCommit);
    const floorRate = await floor(receivers[0]!, Math.min(6000, result.total));
    log(
      `deliveries: ${result.total} at ${result.perSecond.toFixed(1)} deliveries/s (offered ${RATE * 2 * SUBSCRIPTIONS}/s)`,
    );
    log(
      `floor (the same POSTs straight from here): ${floorRate.toFixed(0)}/s; system/floor ${(result.perSecond / floorRate).toFixed(3)}`,
    );
    const healthyP99 = Math.max(...result.rows.slice(0, 2).map((row) => row['lag p99 ms']));
    const lost = result.rows.reduce((sum, row) => sum + row.lost, 0);
    log(
      `target: healthy lag p99 < 5000 ms: ${healthyP99} ms ${healthyP99 < 5000 ? 'met' : 'NOT met'}; lost ${lost} ${lost === 0 ? '(met)' : '(NOT met)'}`,
    );
    recordFigures('webhooks', [
      figure('webhooks healthy lag p99', healthyP99, 'ms', { op: '<', value: 5000 }),
      figure('webhooks lost', lost, 'count', { op: '<=', value: 0 }),
      figure('webhooks deliveries', result.perSecond, 'deliveries/s'),
      figure('webhooks direct POSTs (floor)', floorRate, 'deliveries/s'),
    ]);

    log('design measurement (Temporal and HTTP alone, every delivery due at once):');
    const shapes = await measureDeliveryShapes({
      address: String(stack.env.TEMPORAL_ADDRESS),
      receivers: receivers.map((receiver) => ({ label: receiver.label, url: receiver.url })),
      perReceiver: Math.max(20, Math.round(200 * SCALE)),
    });
    console.table(shapes);
  } finally {
    for (const receiver of receivers) receiver.close();
    await stack.close();
  }
}

await main();
process.exit(0);
