import { request as httpRequest } from 'node:http';
import type { PoolClient } from 'pg';
import type { Database } from '../../../db/orm.js';
import { createCorridor } from '../../support/factories.js';
import type { SignedInTraveller } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf, type JourneyTrip } from '../../support/journey-rows.js';
import { eventually } from '../../support/journeys.js';
import type { DrillStack } from './stack.js';

/**
 * How a drill holds a step of the product in the middle: a lock taken in the test's own open
 * transaction makes the product's statement wait (as a slow disk or a busy row would) until the
 * drill releases it, so a signal or a kill lands while that step is provably in flight.
 */
export interface HeldLock {
  /** The backend holding the lock (pg_blocking_pids of its waiters names it). */
  pid: number;
  release(): Promise<void>;
}

export async function holdLock(db: Database, lockSql: string): Promise<HeldLock> {
  const client: PoolClient = await db.pool.connect();
  await client.query('begin');
  await client.query(lockSql);
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  let released = false;
  return {
    pid: rows[0]!.pid,
    async release() {
      if (released) return;
      released = true;
      await client.query('rollback');
      client.release();
    },
  };
}

/** Waits until `count` sessions wait on a lock with a statement matching `statement` (SQL LIKE). */
export async function lockWaiters(db: Database, statement: string, count = 1, timeoutMs = 60_000) {
  const waiting = await eventually(
    async () =>
      Number(
        (
          await db.query<{ n: string }>(
            `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike $1`,
            [statement],
          )
        )[0]!.n,
      ),
    (n) => n >= count,
    timeoutMs,
  );
  if (waiting < count) throw new Error(`no ${count} sessions waiting on a lock for ${statement}`);
}

/**
 * Waits until `count` sessions wait, directly or behind another waiter (a second request queues
 * behind the first for the same row), on locks that backend `pid` (or any of several) holds;
 * answers their pids, the direct waiters first.
 */
export async function waitersOf(
  db: Database,
  pid: number | number[],
  count = 1,
  timeoutMs = 20_000,
): Promise<number[]> {
  const holders = [pid].flat();
  const waiters = await eventually(
    () =>
      db.query<{ pid: number }>(
        `with recursive waiting(pid, depth) as (
           select pid, 1 from pg_stat_activity where pg_blocking_pids(pid) && $1::int[]
           union
           select a.pid, w.depth + 1 from pg_stat_activity a join waiting w on w.pid = any(pg_blocking_pids(a.pid))
         )
         select pid from waiting group by pid order by min(depth), pid`,
        [holders],
      ),
    (rows) => rows.length >= count,
    timeoutMs,
  );
  if (waiters.length < count)
    throw new Error(`${waiters.length} of ${count} sessions wait on backends ${holders.join()}`);
  return waiters.map((waiter) => waiter.pid);
}

/**
 * Waits until `request` is answered or `count` sessions wait on backend `pid` (see waitersOf),
 * whichever comes first: a request that either waits for a lock or, where nothing makes it wait,
 * is done before the test goes on.
 */
export async function answeredOrWaiting(
  request: Promise<unknown>,
  db: Database,
  pid: number,
  count = 1,
  timeoutMs?: number,
): Promise<void> {
  const waiting = waitersOf(db, pid, count, timeoutMs);
  waiting.catch(() => undefined);
  await Promise.race([request, waiting]);
}

/**
 * Whether backends `a` and `b` wait on each other at once: the cycle PostgreSQL breaks,
 * deadlock_timeout (1 s) later, by aborting one of them.
 */
export async function waitOnEachOther(db: Database, [a, b]: number[]): Promise<boolean> {
  const [row] = await db.query<{ cycle: boolean }>(
    `select $1::int = any(pg_blocking_pids($2)) and $2::int = any(pg_blocking_pids($1)) as cycle`,
    [a, b],
  );
  return row!.cycle;
}

/**
 * Watches backends `pids` every 20 ms until `answers` settle (a deadlock stays in place for
 * deadlock_timeout before PostgreSQL ends it, so a 20 ms watch sees it): the answers, and whether
 * the backends were ever seen waiting on each other.
 */
export async function watchForCycle<T>(
  db: Database,
  pids: number[],
  answers: Promise<T>,
): Promise<{ answers: T; deadlocked: boolean }> {
  let answered = false;
  const settled = answers.finally(() => (answered = true));
  let deadlocked = false;
  while (!answered && !deadlocked) {
    deadlocked = await waitOnEachOther(db, pids);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { answers: await settled, deadlocked };
}

/**
 * Two writers in a chosen order, watched for a lock cycle: `first` runs until it waits on the row
 * `blockerSql` locks, then `second` until it waits too (on that row, or behind `first`), then the
 * row is let go and both backends are watched (watchForCycle) until both answered. With
 * `secondMayAnswer`, a `second` that waits on nothing may answer before the row is let go (then
 * nothing could wait on each other). Answers both answers and whether a cycle was seen.
 */
export async function inTurnWatchingForCycle<T>(
  db: Database,
  blockerSql: string,
  first: () => Promise<T>,
  second: () => Promise<T>,
  options: { secondMayAnswer?: boolean } = {},
): Promise<{ answers: [T, T]; deadlocked: boolean }> {
  const blocker = await holdLock(db, blockerSql);
  const firstAnswer = first();
  const [firstPid] = await waitersOf(db, blocker.pid);
  let secondAnswered = false;
  const secondAnswer = second().finally(() => (secondAnswered = true));
  if (options.secondMayAnswer) await answeredOrWaiting(secondAnswer, db, blocker.pid, 2);
  const secondPid =
    options.secondMayAnswer && secondAnswered
      ? undefined
      : (await waitersOf(db, blocker.pid, 2)).find((pid) => pid !== firstPid);
  await blocker.release();
  const answers = Promise.all([firstAnswer, secondAnswer]);
  if (secondPid === undefined) return { answers: await answers, deadlocked: false };
  return watchForCycle(db, [firstPid!, secondPid], answers);
}

/**
 * A cancel and a DEPART of one trip in a chosen order: the one started first runs until it stops
 * at the row `blockerSql` holds, the other starts and waits behind it (or answers), then the row is
 * let go. Answers the cancel's and the DEPART's answers.
 */
export async function cancelAndDepartInTurn<T>(
  db: Database,
  blockerSql: string,
  order: 'cancel first' | 'depart first',
  calls: { cancel: () => Promise<T>; depart: () => Promise<T> },
): Promise<{ cancelled: T; departed: T }> {
  const blocker = await holdLock(db, blockerSql);
  const [startFirst, startSecond] =
    order === 'cancel first' ? [calls.cancel, calls.depart] : [calls.depart, calls.cancel];
  const first = startFirst();
  const [firstPid] = await waitersOf(db, blocker.pid);
  const second = startSecond();
  await answeredOrWaiting(second, db, firstPid!);
  await blocker.release();
  const [firstAnswer, secondAnswer] = await Promise.all([first, second]);
  return order === 'cancel first'
    ? { cancelled: firstAnswer, departed: secondAnswer }
    : { cancelled: secondAnswer, departed: firstAnswer };
}

/** A PDF stores its rendered bytes with this statement (db/writes/documents.ts storeRender). */
export const RENDER_STORE = 'insert into document_renders%';
/** Blocks the store of every render (reads of stored renders go on). */
export const BLOCK_RENDER_STORE = 'lock table document_renders in share mode';

export interface Tickets {
  traveller: SignedInTraveller;
  trip: JourneyTrip;
  /** A new confirmed booking of the traveller, whose ticket has never been rendered. */
  newBooking(): Promise<string>;
}

export async function ticketsOf(stack: DrillStack): Promise<Tickets> {
  const corridor = await createCorridor(stack.db);
  const trip = journeyTripOf(corridor);
  const traveller = await stack.app.signIn();
  return {
    traveller,
    trip,
    newBooking: async () =>
      (
        await confirmedJourneyRows(stack.db, {
          ownerUserId: traveller.userId,
          trip,
          travellers: ['Rami Haddad'],
        })
      ).bookingId,
  };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * GET over node:http (a keep-alive agent when given), so a drill sees the Connection header and a
 * connection cut short as they are; rejects when the connection fails.
 */
export function rawGet(
  url: string,
  headers: Record<string, string>,
  agent?: import('node:http').Agent,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** The ticket PDF of a booking, as the traveller's app downloads it. */
export function downloadTicket(
  stack: DrillStack,
  tickets: Tickets,
  bookingId: string,
  agent?: import('node:http').Agent,
) {
  return rawGet(
    `${stack.app.baseUrl}/api/bookings/${bookingId}/document?type=ticket&locale=en`,
    { Authorization: `Bearer ${tickets.traveller.token}` },
    agent,
  );
}

/** Rendered bytes stored for a booking's documents (one row per rendered snapshot). */
export async function storedRenders(db: Database, bookingId: string) {
  return db.query<{ snapshot_id: string; size: number; sha256: string }>(
    `select r.snapshot_id, r.size, r.sha256 from document_renders r
       join document_snapshots s on s.id = r.snapshot_id where s.booking_id = $1`,
    [bookingId],
  );
}
