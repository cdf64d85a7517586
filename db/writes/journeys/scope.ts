import type { PoolClient } from 'pg';
import {
  holdNotFound,
  type BookingChannel,
  type ConfirmationScope,
  type HoldBatchStatus,
  type JourneyStatus,
  type RuleRefusal,
} from '../../../domain/journey-confirmation.js';
import { Refusal } from '../../../domain/refusal.js';
import type { Database } from '../../orm.js';
import { allocationsInIdOrder } from '../allocation-locks.js';

/**
 * What every journey confirmation transaction shares (SPEC "Journey confirmation", "Company
 * decision on a journey request"). A scope is a journey (bookingId) or a journey order; every
 * write of db/writes/journeys/ is ONE transaction that first locks the scope's rows (order, then
 * journeys in id order), so two transitions of one scope never interleave, and each is idempotent
 * under retry: running it again after it committed finds the work done and answers as the first
 * run did.
 */

/** A business refusal: a stable errorCode, its HTTP status and safe text. */
export class JourneyRefusal extends Refusal {
  declare readonly status: 400 | 403 | 404 | 409;
  constructor(
    status: 400 | 403 | 404 | 409,
    code: string,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(status, code, message, details);
  }

  /** A domain rule's refusal, thrown by a transaction. */
  static of(refusal: RuleRefusal): JourneyRefusal {
    return new JourneyRefusal(refusal.status, refusal.code, refusal.message, refusal.details);
  }
}

export type Queryable = Pick<PoolClient, 'query'>;

/** The transaction's client as the read queries take it: its statements run one after another. */
export function serialRows(client: PoolClient): Pick<Database, 'query'> {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    query: <Row>(sql: string, params: unknown[] = []) => {
      const run = tail.then(async () => (await client.query(sql, params)).rows as Row[]);
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

export interface JourneyRow {
  id: string;
  quote_id: string;
  order_id: string | null;
  owner_user_id: string;
  status: JourneyStatus;
  party_size: number;
}

export interface LockedScope {
  status: JourneyStatus;
  journeys: JourneyRow[];
  journeyIds: string[];
}

export interface LockOptions {
  /**
   * Not to wait for another transaction's lock on the scope: the statement fails at once with
   * PostgreSQL's lock_not_available (PG_LOCK_NOT_AVAILABLE) instead. A sweep passes over such a scope.
   */
  nowait?: boolean;
}

/** Locks the scope's rows (order first, then journeys in id order) and returns them. */
export async function lockScope(
  client: PoolClient,
  scope: ConfirmationScope,
  options: LockOptions = {},
): Promise<LockedScope> {
  const lock = options.nowait ? 'for update nowait' : 'for update';
  let orderStatus: JourneyStatus | undefined;
  if (scope.kind === 'ORDER') {
    const { rows } = await client.query<{ status: JourneyStatus }>(
      `select status from journey_orders where id = $1 ${lock}`,
      [scope.id],
    );
    orderStatus = rows[0]?.status;
  }
  const { rows: journeys } = await client.query<JourneyRow>(
    `select id, quote_id, order_id, owner_user_id, status, party_size from journeys
     where ${scope.kind === 'JOURNEY' ? 'id' : 'order_id'} = $1 order by id ${lock}`,
    [scope.id],
  );
  if (!journeys.length || (scope.kind === 'ORDER' && !orderStatus)) {
    throw new JourneyRefusal(404, 'JOURNEY_NOT_FOUND', 'No such journey or order');
  }
  return {
    status: orderStatus ?? journeys[0]!.status,
    journeys,
    journeyIds: journeys.map((journey) => journey.id),
  };
}

/**
 * One transaction of the journey writes. Its statements are prepared (db/orm.ts), and here each runs
 * on a generic plan, made once per connection: PostgreSQL otherwise keeps planning a
 * statement that takes an array (`= any($1::uuid[])`) for every run, since its generic plan's
 * estimate for an array of unknown length looks dearer, and planning these joins cost more than
 * running them (about half of the journey flow's database time). The plans are the same index
 * lookups either way; only the planning is saved.
 */
export function journeyTransaction<T>(db: Database, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return db.transaction(work, { genericPlans: true });
}

/**
 * Runs `work` as one transaction that first locks the scope's rows: every transition of a scope
 * starts so, and two transitions of one scope never interleave.
 */
export function inLockedScope<T>(
  db: Database,
  scope: ConfirmationScope,
  work: (client: PoolClient, locked: LockedScope) => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  return journeyTransaction(db, async (client) => work(client, await lockScope(client, scope, options)));
}

export interface ScopeChange {
  status: JourneyStatus;
  failureReason?: string | null;
  /** The decision deadline the traveller sees; unchanged when undefined. */
  deadline?: Date | null;
  channel?: BookingChannel;
  /**
   * The instant the change is stamped with (confirmed_at, closed_at, updated_at): a decision's or a
   * confirm's writeTime, read once it holds its rows; the transaction's start when undefined.
   */
  at?: string;
}

/** Writes the same state on the order (when the scope is one) and on every journey of the scope. */
export async function setScopeStatus(
  client: PoolClient,
  scope: ConfirmationScope,
  change: ScopeChange,
): Promise<void> {
  const set = `status = $2,
    failure_reason = case when $3::boolean then $4 else failure_reason end,
    confirmation_deadline = case when $5::boolean then $6::timestamptz else confirmation_deadline end,
    channel = coalesce($7, channel),
    confirmed_at = case when $2 = 'CONFIRMED' then coalesce($8::timestamptz, now()) else confirmed_at end,
    closed_at = case when $2 in ('CANCELLED', 'RELEASED', 'EXPIRED') then coalesce($8::timestamptz, now())
                     when $2 = 'HELD' then null else closed_at end,
    updated_at = coalesce($8::timestamptz, now())`;
  const params = [
    scope.id,
    change.status,
    change.failureReason !== undefined,
    change.failureReason ?? null,
    change.deadline !== undefined,
    change.deadline ?? null,
    change.channel ?? null,
    change.at ?? null,
  ];
  if (scope.kind === 'ORDER') await client.query(`update journey_orders set ${set} where id = $1`, params);
  await client.query(
    `update journeys set ${set} where ${scope.kind === 'JOURNEY' ? 'id' : 'order_id'} = $1`,
    params,
  );
}

interface BatchRow {
  id: string;
  scope_kind: string;
  scope_id: string;
  status: HoldBatchStatus;
  live: boolean;
}

/**
 * Locks the scope's hold batch `holdBatchId`; a batch of another scope is as missing (404). `live`:
 * its time not yet out at `at` (a confirm's write time, the instant it stamps what it writes: a
 * confirm that waited for the scope past the hold's end finds it over), else at the transaction's start.
 */
export async function lockBatch(
  client: PoolClient,
  scope: ConfirmationScope,
  holdBatchId: string,
  at?: string,
): Promise<BatchRow> {
  const { rows } = await client.query<BatchRow>(
    `select id, scope_kind, scope_id, status, expires_at > coalesce($2::timestamptz, now()) as live
     from hold_batches where id = $1 for update`,
    [holdBatchId, at ?? null],
  );
  const batch = rows[0];
  if (!batch || batch.scope_kind !== scope.kind || batch.scope_id !== scope.id) {
    throw JourneyRefusal.of(holdNotFound());
  }
  return batch;
}

/**
 * Ends a hold batch and frees what it still holds: the batch and its HELD allocations take
 * `status`. Journey holds and seat locks (db/writes/seat-locks.ts) end their batches the same way.
 * Closed at `at` when given (a trip CANCEL's write time), else at the transaction's start.
 */
export async function closeHoldBatch(
  client: Queryable,
  holdBatchId: string,
  status: 'RELEASED' | 'EXPIRED',
  at?: string,
): Promise<void> {
  await client.query(
    `update hold_batches set status = $2, closed_at = coalesce($3::timestamptz, now()) where id = $1`,
    [holdBatchId, status, at ?? null],
  );
  await client.query(
    `update seat_allocations set status = $2, released_at = coalesce($3::timestamptz, now())
     where ${allocationsInIdOrder(`hold_batch_id = $1 and status = 'HELD'`)}`,
    [holdBatchId, status, at ?? null],
  );
}
