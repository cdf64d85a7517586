import type { PoolClient } from 'pg';
import {
  FAILURE_REASONS,
  type ConfirmationScope,
  type JourneyStatus,
} from '../../../domain/journey-confirmation.js';
import type { Database } from '../../orm.js';
import { PG_LOCK_NOT_AVAILABLE, pgCode } from '../../pg-errors.js';
import { ownBookingSql } from '../../queries/booking-ownership.js';
import { journeyScopeSql, overdueRequestSql } from '../../queries/journeys.js';
import { cancelScope, OVERDUE_SCOPE } from './decide.js';
import { awaitedDecisions, type AwaitedDecision } from './outcome.js';
import { inLockedScope, lockScope, type LockedScope } from './scope.js';

/**
 * Company decision deadlines: a REQUESTED scope closes at its earliest pending deadline, judged by
 * the database's clock (OVERDUE_SCOPE), whoever gets there first: the scope's own process at its
 * timer (settleDecisionDeadline, or expireDecisions for runs started by older code), the worker's
 * sweep (releaseOverdueDecisions), a read of the scope (releaseOverdueScope), or a DEPART of one of
 * its trips (releaseOverdueScopesOfTrip). Each ends it the same way (settleLocked → cancelScope in
 * decide.ts, which owns the decisions themselves).
 */

/**
 * A decision deadline passed with the scope still REQUESTED (an older run's timer at the earliest
 * pending deadline): the requests due by the earliest pending deadline EXPIRE, whatever the clocks
 * say, the others are CANCELLED (END_PENDING_REQUESTS), and the whole scope is
 * cancelled with failure_reason DECISION_DEADLINE_PASSED. Answers the scope's status; a scope
 * already decided is left as it is.
 */
export async function expireDecisions(
  db: Database,
  input: { scope: ConfirmationScope },
): Promise<{ status: JourneyStatus }> {
  return inLockedScope(db, input.scope, async (client, locked) => {
    if (locked.status !== 'REQUESTED') return { status: locked.status };
    await cancelScope(client, input.scope, locked.journeyIds, FAILURE_REASONS.deadlinePassed, {
      atDeadline: true,
    });
    return { status: 'CANCELLED' as const };
  });
}

/**
 * The decision process woke at its earliest deadline: the database, not the process's clock, says
 * whether a pending request's deadline has passed (then the scope expires as in expireDecisions).
 * Otherwise a decision since moved the earliest deadline (or the clocks differ by a little) and
 * the answer is the decisions still awaited. A scope no longer REQUESTED is left as it is.
 */
export async function settleDecisionDeadline(
  db: Database,
  input: { scope: ConfirmationScope },
): Promise<SettledDeadline> {
  return inLockedScope(db, input.scope, (client, locked) => settleLocked(client, input.scope, locked));
}

interface SettledDeadline {
  status: JourneyStatus;
  awaiting: AwaitedDecision[];
}

async function settleLocked(
  client: PoolClient,
  scope: ConfirmationScope,
  locked: LockedScope,
): Promise<SettledDeadline> {
  if (locked.status !== 'REQUESTED') return { status: locked.status, awaiting: [] };
  // The scope ends only if a pending request is overdue; it closed at the earliest pending deadline,
  // however late this runs: the requests due by then EXPIRE, the others are CANCELLED (cancelScope).
  const { rows } = await client.query<{ overdue: boolean }>(`select ${OVERDUE_SCOPE} as overdue`, [
    scope.kind,
    scope.id,
  ]);
  if (!rows[0]!.overdue) {
    const awaiting = await awaitedDecisions(client, scope);
    if (awaiting.length) return { status: 'REQUESTED' as const, awaiting };
  }
  await cancelScope(client, scope, locked.journeyIds, FAILURE_REASONS.deadlinePassed, { atDeadline: true });
  return { status: 'CANCELLED' as const, awaiting: [] };
}

/**
 * Releases, as settleDecisionDeadline does, up to `limit` scopes still REQUESTED whose earliest
 * pending deadline has passed (the database's clock), the longest overdue first, one transaction
 * each. Each scope's own process releases it when its timer fires; when deadlines bunch, those
 * timers are served one after another and the last ones late, so each release also sweeps the
 * scopes already overdue (activities/journeys.ts): they are released at the database's pace, and
 * their processes, once woken, find them CANCELLED. A scope that another transaction holds (a
 * decision, its own process, another sweep) is passed over without waiting. Answers how many it
 * released.
 */
export async function releaseOverdueDecisions(db: Database, limit = 50): Promise<number> {
  const overdue = await db.query<{ scope_kind: ConfirmationScope['kind']; scope_id: string }>(
    `select r.scope_kind, r.scope_id from confirmation_requests r
     where ${overdueRequestSql('r')}
       and exists (select 1 from journeys j where j.status = 'REQUESTED'
                   and ((r.scope_kind = 'JOURNEY' and j.id = r.scope_id)
                        or (r.scope_kind = 'ORDER' and j.order_id = r.scope_id)))
     group by r.scope_kind, r.scope_id order by min(r.deadline) limit $1`,
    [limit],
  );
  let released = 0;
  for (const row of overdue) {
    if (await releaseWithoutWaiting(db, { kind: row.scope_kind, id: row.scope_id })) released += 1;
  }
  return released;
}

/**
 * Releases a scope still REQUESTED whose deadline passed (settleLocked) in a transaction of its own,
 * its lock taken without waiting (`nowait`): a scope another transaction holds (a decision, a sweep,
 * its own process releasing it) is left to it. Answers whether this released it.
 */
async function releaseWithoutWaiting(db: Database, scope: ConfirmationScope): Promise<boolean> {
  const settled = await inLockedScope(
    db,
    scope,
    async (client, locked) => (locked.status === 'REQUESTED' ? settleLocked(client, scope, locked) : null),
    { nowait: true },
  ).catch((error: unknown) => {
    if (pgCode(error) === PG_LOCK_NOT_AVAILABLE) return null;
    throw error;
  });
  return settled?.status === 'CANCELLED';
}

/**
 * A read of the scope (its projection): an overdue REQUESTED scope (for a journey of an order, the
 * order) is released first, as the sweep would (settleLocked, DECISION_DEADLINE_PASSED, seats
 * released, booking.cancelled), so the reader sees it CANCELLED whether or not a worker runs. Its lock
 * does not wait (`nowait`): a scope another transaction holds (a decision, a sweep, its own process
 * releasing it) is read as it stands. The scope's process, when it wakes, finds it CANCELLED and ends.
 * Answers whether it released one.
 */
export async function releaseOverdueScope(db: Database, scope: ConfirmationScope): Promise<boolean> {
  const [owner] = await db.query<{ scope_kind: ConfirmationScope['kind']; scope_id: string }>(
    `select ${journeyScopeSql('j').kind} as scope_kind, ${journeyScopeSql('j').id} as scope_id
     from journeys j where j.status = 'REQUESTED' and (($1 = 'JOURNEY' and j.id = $2) or ($1 = 'ORDER' and j.order_id = $2))
     limit 1`,
    [scope.kind, scope.id],
  );
  if (!owner) return false;
  const owning = { kind: owner.scope_kind, id: owner.scope_id };
  const [due] = await db.query<{ overdue: boolean }>(`select ${OVERDUE_SCOPE} as overdue`, [
    owning.kind,
    owning.id,
  ]);
  if (!due?.overdue) return false;
  return releaseWithoutWaiting(db, owning);
}

/**
 * Whose bookings a read or a change is about, for releaseOverdueScopesOf: one booking, one ticket's
 * journey, a traveller's (owned, or made for their passenger profile: ownBookingSql), a company's.
 */
export interface OverdueOf {
  kind: 'BOOKING' | 'TICKET' | 'TRAVELLER' | 'COMPANY';
  id: string;
}

/** The condition on journey `j` and its booking `k` for each kind of OverdueOf, its id as $1. */
const OVERDUE_OF: Record<OverdueOf['kind'], string> = {
  BOOKING: 'k.id = $1',
  TICKET: 'j.id = (select t.journey_id from journey_tickets t where t.id = $1)',
  TRAVELLER: ownBookingSql('$1', 'k'),
  COMPANY: 'k.company_id = $1',
};

/**
 * Before a booking or ticket read, or a traveller's change, answers or acts on them (GET /bookings,
 * /tickets, the documents, the dashboard's bookings, cancel and modify): the overdue REQUESTED
 * scopes with a booking of `of` are released as releaseOverdueScope releases one (each in its own
 * transaction, its lock not waited for), so the route sees them CANCELLED, DECISION_DEADLINE_PASSED,
 * as GET /journeys/{id} does, whether or not a worker runs. One statement finds them, starting from
 * the PENDING requests already past their deadline (confirmation_requests_pending_deadline_idx,
 * overdueRequestSql: none while the worker sweeps), so a list costs the same however many bookings
 * it holds, and nothing more is done when there is none. Answers how many it released.
 */
export async function releaseOverdueScopesOf(db: Database, of: OverdueOf): Promise<number> {
  const overdue = await db.query<{ scope_kind: ConfirmationScope['kind']; scope_id: string }>(
    `select distinct r.scope_kind, r.scope_id from confirmation_requests r
     join journeys j on j.status = 'REQUESTED'
       and ((r.scope_kind = 'JOURNEY' and j.id = r.scope_id) or (r.scope_kind = 'ORDER' and j.order_id = r.scope_id))
     join bookings k on k.journey_id = j.id
     where ${overdueRequestSql('r')} and ${OVERDUE_OF[of.kind]}
     order by r.scope_kind, r.scope_id`,
    [of.id],
  );
  let released = 0;
  for (const row of overdue) {
    if (await releaseWithoutWaiting(db, { kind: row.scope_kind, id: row.scope_id })) released += 1;
  }
  return released;
}

/**
 * Inside a DEPART's transaction, which holds the trip (FOR NO KEY UPDATE, before any scope): the
 * overdue REQUESTED scopes with a booking row on the trip are released there, as the sweep would
 * (settleLocked), so the trip leaves with their seats freed and their bookings CANCELLED. Each
 * scope's lock does not wait (`nowait`, in a savepoint so a busy one leaves the transaction usable):
 * a scope another transaction holds is left to it or the sweep. The scopes released are those
 * the trip's readiness no longer counts (db/queries/trip-dispatch.ts readinessFacts): both judge a
 * scope overdue by db/queries/journeys.ts overdueScopeSql and overdueRequestSql.
 */
export async function releaseOverdueScopesOfTrip(client: PoolClient, tripId: string): Promise<void> {
  const { rows } = await client.query<{ scope_kind: ConfirmationScope['kind']; scope_id: string }>(
    `select distinct r.scope_kind, r.scope_id from bookings k join journeys j on j.id = k.journey_id
     join confirmation_requests r on ${overdueRequestSql('r')}
       and ((r.scope_kind = 'JOURNEY' and r.scope_id = j.id) or (r.scope_kind = 'ORDER' and r.scope_id = j.order_id))
     where k.trip_id = $1 and k.status = 'PENDING_CONFIRMATION' and j.status = 'REQUESTED'
     order by r.scope_kind, r.scope_id`,
    [tripId],
  );
  for (const row of rows) {
    const scope = { kind: row.scope_kind, id: row.scope_id };
    await client.query('savepoint release_overdue_scope');
    try {
      const locked = await lockScope(client, scope, { nowait: true });
      if (locked.status === 'REQUESTED') await settleLocked(client, scope, locked);
      await client.query('release savepoint release_overdue_scope');
    } catch (error) {
      if (pgCode(error) !== PG_LOCK_NOT_AVAILABLE) throw error;
      await client.query('rollback to savepoint release_overdue_scope');
    }
  }
}
