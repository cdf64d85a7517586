import type { PoolClient } from 'pg';
import {
  decisionKey,
  decisionOfChange,
  decisionStep,
  FAILURE_REASONS,
  type ConfirmationScope,
  type Decision,
  type JourneyStatus,
  type StatusChange,
} from '../../../domain/journey-confirmation.js';
import type { Database } from '../../orm.js';
import { overdueScopeSql } from '../../queries/journeys.js';
import type { ActingMember } from '../acting-member.js';
import { allocationsInIdOrder } from '../allocation-locks.js';
import type { SigningOptions } from '../boarding-credentials.js';
import { withBookingEvents } from '../outbox.js';
import { writeTime } from '../write-time.js';
import { bookableCompanies } from './confirm.js';
import { lockDecidingMember, refuseSuspendedApproval, requireStillSuspended } from './deciding-company.js';
import {
  awaitedDecisions,
  bookableLegs,
  currentOutcome,
  finalizeConfirmed,
  inTripLockedScope,
  type AwaitedDecision,
} from './outcome.js';
import { inLockedScope, JourneyRefusal, setScopeStatus, type LockedScope } from './scope.js';

export interface DecisionInput {
  scope: ConfirmationScope;
  companyId: string;
  decision: Decision;
  /** The staff user deciding (decided_by); a platform decision's administrator is not written (decisionRecord). */
  actorId: string;
  /**
   * The company member deciding (PATCH /dashboard/api/bookings/{id}/status; `actorId` is theirs),
   * read again under the scope lock (./deciding-company.ts `lockDecidingMember`). Absent for the
   * platform's decisions (a suspension's), which no member makes, and in the inputs runs started
   * before decisions became the API's transactions recorded for their decide Update's activity.
   */
  member?: ActingMember | undefined;
  reason?: string | undefined;
  /** The decision's idempotency key; absent: the company's own, from its request (domain `decisionKey`). */
  decisionKey?: string | undefined;
  /**
   * Set when the platform ends the request instead of the company (a suspension): the decision
   * must be REJECT, the request is CANCELLED (not REJECTED) and it and the scope carry this reason
   * (`reason` is not written: decisionRecord).
   */
  failureReason?: typeof FAILURE_REASONS.companySuspended | undefined;
  /**
   * With failureReason: the suspended company, when it is not the request's (`companyId`): a
   * company with a leg in the scope that has no request of its own still pending (its leg
   * confirmed automatically, or it approved), whose suspension ends another company's request and
   * with it the scope (`companyId`'s request, or another open one of the scope if that one was
   * decided meanwhile). The request is ended only while this company is still suspended.
   */
  suspendedCompanyId?: string | undefined;
  /**
   * The status change of the compatibility booking row the decision was read from (PATCH
   * /bookings/{id}/status), read again against the scope as locked (domain `decisionOfChange`):
   * a legacy CANCELLED of a scope confirmed meanwhile is 409 JOURNEY_AGGREGATE_OPERATION_REQUIRED,
   * as it is once the confirmation is seen, not a request already closed.
   */
  change?: StatusChange | undefined;
}

export interface DecisionOutcome {
  outcome: 'REQUESTED' | 'CONFIRMED' | 'CANCELLED';
  /** Companies still to decide (empty unless REQUESTED). */
  pendingCompanyIds: string[];
  /** The traveller who owns the scope. */
  ownerUserId: string;
}

/**
 * Whether a pending request of the scope (`$1`, `$2`) is overdue (the database's clock): the scope
 * closed at that deadline, for its decisions, its release and its trips' readiness alike
 * (db/queries/journeys.ts overdueScopeSql). A decision judges it at its write time (`$6`): see lockRequest.
 */
export const OVERDUE_SCOPE = overdueScopeSql('$1', '$2');
const OVERDUE_SCOPE_AT_WRITE = overdueScopeSql('$1', '$2', '$6::timestamptz');

interface RequestRow {
  id: string;
  status: string;
  decision_key: string | null;
  open: boolean;
  /** Another request of the scope is still PENDING: an approval of this one is not the last. */
  others_pending: boolean;
}

/**
 * A company approves or rejects its request, in one transaction. The request must be PENDING and
 * its scope not closed, else 409 JOURNEY_CONFIRMATION_STATE_CONFLICT: no request of the scope, the
 * company's own or another company's, may be pending past its deadline at the decision's write time
 * (read once it holds the scope, the instant it is stamped with: one that waited past the deadline
 * is refused; OVERDUE_SCOPE; the scope closed at that deadline, whether or not a worker has
 * released it yet, and a refused decision releases nothing, its transaction rolling back: the caller releases an overdue scope first,
 * releaseOverdueScope). The same decision key again (a retry) answers the scope's current outcome.
 * The last approval confirms the whole scope; a rejection cancels it with failure_reason COMPANY_REJECTED. A suspended company's
 * approval is refused (403 COMPANY_SUSPENDED); the platform ends its requests with failureReason,
 * and those of the scopes still waiting with a leg on it (suspendedCompanyId), only while the
 * company is still suspended (409 COMPANY_NOT_SUSPENDED otherwise). The last approval is refused
 * when a leg's trip can no longer be booked or a leg's company is suspended (409
 * TRIP_NOT_BOOKABLE), or a held seat was lost (409 HOLD_EXPIRED). A company member's decision is
 * refused first when the member no longer holds (`member`: 401 INVALID_CREDENTIAL or 403
 * ROLE_NOT_ALLOWED, nothing written), as their next request would be. A decision read from a
 * booking row's status change (`change`) is then checked against the locked scope's status.
 */
export async function recordDecision(
  db: Database,
  input: DecisionInput,
  signing: SigningOptions = {},
): Promise<DecisionOutcome> {
  return inTripLockedScope(db, input.scope, async (client, locked) => ({
    ...(await decideLocked(client, input, locked, signing)),
    ownerUserId: locked.journeys[0]!.owner_user_id,
  }));
}

async function decideLocked(
  client: PoolClient,
  input: DecisionInput,
  locked: LockedScope,
  signing: SigningOptions,
): Promise<Omit<DecisionOutcome, 'ownerUserId'>> {
  // Read once the trips and the scope are held (a traveller's cancel, a trip action: the writers a
  // decision waits for): the scope's deadline is judged at this instant (lockRequest) and everything
  // the decision writes is stamped with it, so one that waited past the deadline is refused.
  const at = await writeTime(client);
  if (input.member) await lockDecidingMember(client, input.companyId, input.member);
  const refused = input.change && decisionOfChange(input.change, locked.status).refusal;
  if (refused) throw JourneyRefusal.of(refused);
  const request = await lockRequest(client, input, at);
  const key = input.decisionKey ?? (request && decisionKey(request.id, input.companyId, input.decision));
  const open = !!request && request.status === 'PENDING' && request.open && locked.status === 'REQUESTED';
  const step = decisionStep(request && { decisionKey: request.decision_key, open }, key ?? '');
  if (step === 'REPEAT') return outcomeOf(client, input.scope, locked.status);
  if (step === 'CONFLICT' || !request) {
    throw new JourneyRefusal(
      409,
      'JOURNEY_CONFIRMATION_STATE_CONFLICT',
      'There is no open confirmation request for this company',
    );
  }
  // A member's decision has held and checked the company row since lockDecidingMember.
  if (input.decision === 'APPROVE' && !input.member) await refuseSuspendedApproval(client, input.companyId);
  if (input.failureReason) await requireStillSuspended(client, input.suspendedCompanyId ?? input.companyId);
  const last = input.decision === 'APPROVE' && !request.others_pending;
  if (last) await requireBookable(client, locked);
  const recorded = decisionRecord(input);
  await client.query(
    `update confirmation_requests set status = $2, decided_by = $3, decided_at = $6::timestamptz, decision_key = $4, reason = $5
     where id = $1`,
    [request.id, requestStatusAfter(input), recorded.decidedBy, key, recorded.reason, at],
  );
  if (input.decision === 'REJECT') {
    const reason = input.failureReason ?? FAILURE_REASONS.companyRejected;
    await cancelScope(client, input.scope, locked.journeyIds, reason, { at });
    return { outcome: 'CANCELLED' as const, pendingCompanyIds: [] };
  }
  if (!last) return stillRequested(client, input.scope, locked, at);
  await finalizeConfirmed(client, input.scope, locked.journeyIds, signing, { at });
  return { outcome: 'CONFIRMED' as const, pendingCompanyIds: [] };
}

/**
 * An approval with other companies still to decide: the traveller's deadline is now the earliest
 * one of the companies still deciding; the seats are held until then (confirm.ts), when the scope
 * closes unless that company decides.
 */
async function stillRequested(
  client: PoolClient,
  scope: ConfirmationScope,
  locked: LockedScope,
  at: string,
): Promise<Omit<DecisionOutcome, 'ownerUserId'>> {
  const waiting = await currentOutcome(client, scope, 'REQUESTED');
  const deadline = waiting.deadline ? new Date(waiting.deadline) : null;
  await setScopeStatus(client, scope, { status: 'REQUESTED', deadline, at });
  await holdSeatsUntil(client, locked.journeyIds, deadline);
  return {
    outcome: 'REQUESTED' as const,
    pendingCompanyIds: waiting.awaiting.map((entry) => entry.companyId),
  };
}

/**
 * The seats of a REQUESTED scope are held until its earliest pending deadline (allocations'
 * expires_at): the moment the scope closes unless that company decides. Every availability read
 * counts them free from then on and every seat writer frees them (db/queries/inventory.ts
 * LIVE_ALLOCATION, seat-locks.ts expireLapsedHolds), as for a hold's end, whether or not a worker
 * has released the scope yet.
 */
export async function holdSeatsUntil(
  client: PoolClient,
  journeyIds: string[],
  deadline: Date | null,
): Promise<void> {
  if (!deadline) return;
  await client.query(
    `update seat_allocations set expires_at = $2
     where ${allocationsInIdOrder(`owner_kind = 'JOURNEY' and owner_id = any($1::uuid[]) and status = 'HELD'`)}`,
    [journeyIds, deadline],
  );
}

/**
 * The last approval (no other request of the scope pending) confirms the scope as a confirm would,
 * after the confirm's checks, made before the decision writes anything: not for a trip that has
 * left meanwhile (bookableLegs), nor when a leg's company, whichever decided or confirmed
 * automatically, was suspended meanwhile (bookableCompanies): 409 TRIP_NOT_BOOKABLE, nothing written (the company may still reject; a
 * suspension's follow-up ends the scope, else the deadline releases it).
 *
 * Lock order: the trips, the scope, for a member's decision the deciding company's row and then
 * the member (lockDecidingMember), the deciding company's request, the deciding company's row
 * (refuseSuspendedApproval; a member's decision holds it already), then every leg company's row
 * in id order (bookableCompanies; the deciding company's again, which it already holds). All
 * company rows here are FOR SHARE, which never wait for one another; the writers that take a
 * company row exclusively (a suspension or unsuspension FOR UPDATE, the company's own key,
 * settings, team and webhook writes) take that one row and then nothing a decision holds (a team
 * change's membership is held only by a decision that already holds its company's row), so an
 * approval waiting on one of them waits for a transaction that does not wait on it: no cycle,
 * whatever the deciding company's place in the id order. A suspension that commits first is seen
 * here (refused); one that comes later waits for this transaction and finds the scope CONFIRMED,
 * no longer waiting.
 */
async function requireBookable(client: PoolClient, locked: LockedScope): Promise<void> {
  const legs = await bookableLegs(client, locked.journeyIds);
  await bookableCompanies(client, [...new Set(legs.map((leg) => leg.company_id))].sort());
}

/**
 * The request the decision is about, locked, and whether its scope is still open (`open`: no
 * request of the scope is overdue at `at`, the decision's write time: the instant it is stamped
 * with, so a decision that waited for the scope past a deadline finds the scope closed): the company's own. For a suspension ending a
 * scope through another company's request (suspendedCompanyId), any request of the scope will do: the
 * one already carrying the decision key (a retry), else an open one, `companyId`'s first, so a
 * company that approved since the suspension listed its request does not leave the scope waiting.
 * Under the scope lock no other transition of the scope runs meanwhile.
 */
async function lockRequest(
  client: PoolClient,
  input: DecisionInput,
  at: string,
): Promise<RequestRow | undefined> {
  const { rows } = await client.query<RequestRow>(
    `select id, status, decision_key, not ${OVERDUE_SCOPE_AT_WRITE} as open,
            exists (select 1 from confirmation_requests other where other.scope_kind = $1 and other.scope_id = $2
                    and other.status = 'PENDING' and other.id <> confirmation_requests.id) as others_pending
     from confirmation_requests
     where scope_kind = $1 and scope_id = $2 and (company_id = $3 or $4::boolean)
     order by decision_key is not distinct from $5 desc, status = 'PENDING' desc,
              company_id = $3 desc, company_id
     limit 1 for update`,
    [
      input.scope.kind,
      input.scope.id,
      input.companyId,
      !!input.suspendedCompanyId,
      input.decisionKey ?? null,
      at,
    ],
  );
  return rows[0];
}

/**
 * Who decided and why, as the request row keeps them; every role of the request's company reads
 * the reason (confirmation.reason of its bookings). The platform's decision (failureReason: a
 * suspension's) is no company member's: decided_by (a staff user of the request's company) stays
 * null and the reason is the fixed code, on the suspended company's request and on another
 * company's alike. The administrator's words stay in the company's history (company_admin_actions,
 * read by its OWNER at /dashboard/api/company/warnings) and the audit log.
 */
function decisionRecord(input: DecisionInput): { decidedBy: string | null; reason: string | null } {
  if (input.failureReason) return { decidedBy: null, reason: input.failureReason };
  return { decidedBy: input.actorId, reason: input.reason ?? null };
}

function requestStatusAfter(input: DecisionInput): 'APPROVED' | 'REJECTED' | 'CANCELLED' {
  if (input.decision === 'APPROVE') return 'APPROVED';
  return input.failureReason ? 'CANCELLED' : 'REJECTED';
}

async function outcomeOf(
  client: PoolClient,
  scope: ConfirmationScope,
  status: JourneyStatus,
): Promise<Omit<DecisionOutcome, 'ownerUserId'>> {
  if (status === 'CONFIRMED' || status === 'CANCELLED') return { outcome: status, pendingCompanyIds: [] };
  const pending = await awaitedDecisions(client, scope);
  return { outcome: 'REQUESTED', pendingCompanyIds: pending.map((entry) => entry.companyId) };
}

/**
 * How a closing scope ends its requests still pending (`$1`, `$2`: the scope): one whose own
 * deadline had passed when the scope closed EXPIRES (its company let its window pass: a missed
 * deadline in the platform's analytics); any other is CANCELLED (its company still had time: the
 * scope was ended by another company's rejection or missed deadline, or by a suspension), whoever
 * closes the scope. A rejection or a suspension judges them at its transaction's now(), before the
 * write time at which it found the scope open (a scope with an overdue request is released by its
 * deadline first and refuses decisions, so theirs end CANCELLED). A deadline
 * release (`$3` true) closes it at the moment the scope should have closed, its earliest pending
 * deadline, however late the release runs (a worker down for an hour, an older run's timer a little
 * ahead of the database's clock): the requests due by then EXPIRE, the others are CANCELLED.
 */
const END_PENDING_REQUESTS = `update confirmation_requests
  set status = case when deadline <= case when $3::boolean then
                      (select min(o.deadline) from confirmation_requests o
                       where o.scope_kind = $1 and o.scope_id = $2 and o.status = 'PENDING')
                    else now() end
                    then 'EXPIRED' else 'CANCELLED' end
  where scope_kind = $1 and scope_id = $2 and status = 'PENDING'`;

/**
 * The whole scope ends unconfirmed: seats released, requests still pending EXPIRED or CANCELLED
 * (END_PENDING_REQUESTS: EXPIRED when their own deadline has passed, for a deadline release
 * (`atDeadline`) when it had passed at the earliest pending deadline), tickets and booking rows CANCELLED (booking.cancelled for each), the scope
 * CANCELLED with its failure_reason. Runs inside the caller's transaction, which holds the scope. The
 * seats, booking rows and scope are stamped `at` (a decision's writeTime), else at the write time
 * read here: never before a writer the closing transaction waited for (a company's approval).
 */
export async function cancelScope(
  client: PoolClient,
  scope: ConfirmationScope,
  journeyIds: string[],
  failureReason: string,
  options: { atDeadline?: boolean; at?: string } = {},
): Promise<void> {
  const at = options.at ?? (await writeTime(client));
  await client.query(
    `update seat_allocations set status = 'RELEASED', released_at = $2::timestamptz
     where ${allocationsInIdOrder(`owner_kind = 'JOURNEY' and owner_id = any($1::uuid[]) and status in ('HELD', 'CONFIRMED')`)}`,
    [journeyIds, at],
  );
  await client.query(END_PENDING_REQUESTS, [scope.kind, scope.id, options.atDeadline ?? false]);
  await client.query(
    `update journey_tickets set status = 'CANCELLED', boarding_authorized = false where journey_id = any($1::uuid[])`,
    [journeyIds],
  );
  await client.query(
    withBookingEvents(
      `update bookings set status = 'CANCELLED', updated_at = $2::timestamptz
       where journey_id = any($1::uuid[]) and status <> 'CANCELLED'`,
      ['booking.cancelled'],
    ),
    [journeyIds, at],
  );
  await setScopeStatus(client, scope, { status: 'CANCELLED', failureReason, at });
}

/**
 * The scope's status and, when REQUESTED, the decisions still awaited: what a decision process
 * started by a REQUESTED confirm waits for. It takes the scope lock, so it reads the confirm's
 * transaction only once that has committed (or rolled back: then the scope is still HELD).
 */
export async function pendingDecisions(
  db: Database,
  input: { scope: ConfirmationScope },
): Promise<{ status: JourneyStatus; deadline: string | null; awaiting: AwaitedDecision[] }> {
  return inLockedScope(db, input.scope, async (client, locked) => {
    if (locked.status !== 'REQUESTED') return { status: locked.status, deadline: null, awaiting: [] };
    return currentOutcome(client, input.scope, 'REQUESTED');
  });
}
