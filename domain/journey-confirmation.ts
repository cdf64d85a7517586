/**
 * Rules of journey confirmation (SPEC "Journey confirmation", "Company decision on a journey
 * request", "Journey confirmation projection") that need no database: which companies must
 * decide for a booking channel, when their decisions are due, which journey states allow a hold,
 * which hold batch a release or confirm may use, how many travellers a journey takes, what a
 * company's decision does with its request, and how a journey's state reads in the projection
 * every channel shares. Which seats a hold takes is journey-seats.ts.
 */
export const BOOKING_CHANNELS = ['CUSTOMER_WEB', 'CUSTOMER_MOBILE', 'RESELLER'] as const;
export type BookingChannel = (typeof BOOKING_CHANNELS)[number];
export type ConfirmationMode = 'AUTO_CONFIRM' | 'MANUAL_CONFIRM';

export type ScopeKind = 'JOURNEY' | 'ORDER';

/** What one confirmation covers: a journey (its bookingId) or a journey order. */
export interface ConfirmationScope {
  kind: ScopeKind;
  /** The journey id (bookingId) or the journey order id. */
  id: string;
}

export interface TravellerInput {
  name: string;
  phone?: string;
}

/** The travellers of one journey of the scope, in seat order (one per party member). */
export interface JourneyTravellers {
  journeyId: string;
  travellers: TravellerInput[];
}

/** A journey's (or order's) lifecycle state as stored. */
export type JourneyStatus =
  'DRAFT' | 'HELD' | 'REQUESTED' | 'CONFIRMED' | 'CANCELLED' | 'RELEASED' | 'EXPIRED';

export interface CompanyConfirmationSettings {
  companyId: string;
  /** null: the company never saved settings, so it confirms automatically. */
  mode: ConfirmationMode | null;
  decisionWindowMinutes: number;
  channels: readonly BookingChannel[];
}

export interface RequiredDecision {
  companyId: string;
  decisionWindowMinutes: number;
}

/**
 * The companies that must approve a booking made through `channel`: those confirming manually
 * for that channel. A company without settings, in AUTO_CONFIRM, or whose manual mode does not
 * list the channel confirms automatically.
 */
export function companiesNeedingDecision(
  settings: readonly CompanyConfirmationSettings[],
  channel: BookingChannel,
): RequiredDecision[] {
  return settings
    .filter((company) => company.mode === 'MANUAL_CONFIRM' && company.channels.includes(channel))
    .map((company) => ({
      companyId: company.companyId,
      decisionWindowMinutes: company.decisionWindowMinutes,
    }))
    .sort((a, b) => a.companyId.localeCompare(b.companyId));
}

/** A configured duration in milliseconds after the (test-only) time scale. */
export function scaledMilliseconds(minutes: number, timeScale: number): number {
  return Math.max(1, Math.round(minutes * 60_000 * timeScale));
}

/**
 * When a company's decision is due: now + decision window × time scale, and no later than the
 * journey's first departure (`firstDeparture`): an approval after the bus has left is refused
 * (TRIP_NOT_BOOKABLE), so the window would only keep the seats and the traveller waiting.
 */
export function decisionDeadline(
  now: Date,
  decisionWindowMinutes: number,
  timeScale: number,
  firstDeparture: Date,
): Date {
  const windowEnd = now.getTime() + scaledMilliseconds(decisionWindowMinutes, timeScale);
  return new Date(Math.min(windowEnd, firstDeparture.getTime()));
}

/**
 * The deadline a traveller sees for the whole scope: the earliest one still pending, since any
 * company letting its deadline pass cancels everything.
 */
export function scopeDeadline(pendingDeadlines: readonly Date[]): Date | null {
  if (pendingDeadlines.length === 0) return null;
  return new Date(Math.min(...pendingDeadlines.map((deadline) => deadline.getTime())));
}

/** States from which a new hold may start: never held, released, or expired. */
export const HOLDABLE_STATUSES: readonly JourneyStatus[] = ['DRAFT', 'RELEASED', 'EXPIRED'];

export function isHoldable(status: JourneyStatus): boolean {
  return HOLDABLE_STATUSES.includes(status);
}

export type HoldRefusalCode = 'HOLD_ALREADY_ACTIVE' | 'JOURNEY_NOT_HOLDABLE';

/**
 * Why a journey or order in `status` may not be held now, or null when it may: the one hold rule
 * that the draft, the hold transaction and the workflow's Update validator all apply.
 */
export function holdRefusal(
  status: JourneyStatus,
  what: 'journey' | 'order' = 'journey',
): { code: HoldRefusalCode; message: string } | null {
  if (status === 'HELD') {
    return { code: 'HOLD_ALREADY_ACTIVE', message: 'A hold is already active; release it or confirm' };
  }
  if (!isHoldable(status)) {
    return { code: 'JOURNEY_NOT_HOLDABLE', message: `The ${what} is ${status} and cannot be held again` };
  }
  return null;
}

/** A refusal of a journey rule as data: the caller throws it as its area's Refusal. */
export interface RuleRefusal<Code extends string = string> {
  status: 400 | 404 | 409;
  code: Code;
  message: string;
  details?: Record<string, unknown>;
}

/** States of a hold batch (hold_batches.status). */
export type HoldBatchStatus = 'ACTIVE' | 'CONSUMED' | 'RELEASED' | 'EXPIRED';

/** A hold batch as the rules see it: whose hold it is, its state, and whether its time is left. */
export interface HoldBatchState {
  scopeKind: string;
  scopeId: string;
  status: HoldBatchStatus;
  /** Not yet past expires_at. */
  live: boolean;
}

export const holdNotFound = (): RuleRefusal<'HOLD_NOT_FOUND'> => ({
  status: 404,
  code: 'HOLD_NOT_FOUND',
  message: 'No such hold batch for this journey',
});

export const holdClosed = (status: string): RuleRefusal<'HOLD_CLOSED'> => ({
  status: 409,
  code: 'HOLD_CLOSED',
  message: `The hold is already ${status}`,
});

export const alreadyConfirmed = (): RuleRefusal<'ALREADY_CONFIRMED'> => ({
  status: 409,
  code: 'ALREADY_CONFIRMED',
  message: 'This hold was already confirmed',
});

/**
 * Why an Update naming `holdBatchId` may not act on the hold the confirmation process holds now,
 * or null: it must be the current batch, still held (the workflow's validators apply this).
 */
export function activeHoldRefusal(
  current: { holdBatchId: string | null; phase: string },
  holdBatchId: string,
): RuleRefusal<'HOLD_NOT_FOUND' | 'ALREADY_CONFIRMED' | 'HOLD_CLOSED'> | null {
  if (current.holdBatchId !== holdBatchId) return holdNotFound();
  if (current.phase === 'REQUESTED' || current.phase === 'CONFIRMED') return alreadyConfirmed();
  if (current.phase !== 'HELD') return holdClosed(current.phase);
  return null;
}

export const holdExpired = (): RuleRefusal => ({
  status: 409,
  code: 'HOLD_EXPIRED',
  message: 'The hold has expired; hold the journey again',
});

/** Whether `batch` is the hold of `scope`: a batch of another journey, order or seat lock is as missing. */
export function isHoldOf(
  batch: Pick<HoldBatchState, 'scopeKind' | 'scopeId'> | null | undefined,
  scope: ConfirmationScope,
): boolean {
  return !!batch && batch.scopeKind === scope.kind && batch.scopeId === scope.id;
}

/** Why a confirm may not consume the hold, or null: it must be ACTIVE with time left. */
export function unusableHoldRefusal(batch: Pick<HoldBatchState, 'status' | 'live'>): RuleRefusal | null {
  if (batch.status !== 'ACTIVE') return holdClosed(batch.status);
  if (!batch.live) return holdExpired();
  return null;
}

/** Why a release may not end the hold, or null: only the scope's ACTIVE hold can be released. */
export function releaseRefusal(batch: HoldBatchState | null, scope: ConfirmationScope): RuleRefusal | null {
  if (!batch || !isHoldOf(batch, scope)) return holdNotFound();
  return batch.status === 'ACTIVE' ? null : holdClosed(batch.status);
}

/**
 * Whether a hold request whose batch (derived from its idempotency key) is `batch` retries the
 * scope's hold while it lasts (ACTIVE with time left): it is answered with that hold even when
 * its quote expired meanwhile, since the hold may outlive the quote. Only a new hold needs a
 * valid quote.
 */
export function retriesLiveHold(batch: HoldBatchState | null, scope: ConfirmationScope): boolean {
  return !!batch && isHoldOf(batch, scope) && batch.status === 'ACTIVE' && batch.live;
}

export type ConfirmCheck =
  { refusal: RuleRefusal; confirmedBefore?: never } | { confirmedBefore: boolean; refusal?: never };

/**
 * The check of a confirm request against the hold it names. A hold already CONSUMED is the answer
 * of a retry when the idempotency key was claimed before (the first call got through but never
 * stored its answer: the projection is the answer); with a new key it is 409 ALREADY_CONFIRMED.
 */
export function confirmCheck(
  batch: HoldBatchState | null,
  scope: ConfirmationScope,
  keyClaimedBefore: boolean,
): ConfirmCheck {
  if (!batch || !isHoldOf(batch, scope)) return { refusal: holdNotFound() };
  if (batch.status === 'CONSUMED') {
    if (keyClaimedBefore) return { confirmedBefore: true };
    return { refusal: alreadyConfirmed() };
  }
  const refusal = unusableHoldRefusal(batch);
  return refusal ? { refusal } : { confirmedBefore: false };
}

/** Why the travellers sent for a journey do not fit it, or null: exactly one per party member. */
export function partyRefusal(
  journey: { id: string; partySize: number },
  travellers: readonly TravellerInput[],
): RuleRefusal | null {
  if (travellers.length === journey.partySize) return null;
  return {
    status: 400,
    code: 'TRAVELLERS_DO_NOT_MATCH_PARTY',
    message: `Send ${journey.partySize} travellers for this journey`,
    details: { journey_id: journey.id },
  };
}

/**
 * Why a confirm by an account whose phone is `accountPhone` may not book these travellers, or null.
 * Each journey's booking rows carry its lead traveller's (travellers[0]) phone, else the account's:
 * the company's manifest reaches the traveller through it. An account without a phone (an
 * identity-provider sign-in before complete-phone) must send each lead's phone, or complete its
 * traveller profile first (409 TRAVELER_PROFILE_REQUIRED).
 */
export function leadContactRefusal(
  journeys: readonly JourneyTravellers[],
  accountPhone: string | null,
): RuleRefusal<'TRAVELER_PROFILE_REQUIRED'> | null {
  if (accountPhone) return null;
  const unreachable = journeys.filter((journey) => !journey.travellers[0]?.phone);
  if (unreachable.length === 0) return null;
  return {
    status: 409,
    code: 'TRAVELER_PROFILE_REQUIRED',
    message:
      "Add your phone number (complete your traveller profile) or give the lead traveller's phone to confirm",
    details: { journey_ids: unreachable.map((journey) => journey.journeyId) },
  };
}

/** The compatibility booking status (booking.status) a journey state reads as. */
export type BookingStatus =
  'DRAFT' | 'HELD' | 'PENDING_CONFIRMATION' | 'CONFIRMED' | 'CANCELLED' | 'RELEASED' | 'EXPIRED';

export function bookingStatusOf(status: JourneyStatus): BookingStatus {
  return status === 'REQUESTED' ? 'PENDING_CONFIRMATION' : status;
}

/** Failure reasons a cancelled scope (journey, order) carries: every value the projection may answer. */
export const FAILURE_REASONS = {
  companyRejected: 'COMPANY_REJECTED',
  deadlinePassed: 'DECISION_DEADLINE_PASSED',
  /** A platform administrator suspended a company that still had to decide (its request is CANCELLED). */
  companySuspended: 'COMPANY_SUSPENDED',
  /** A company cancelled a trip of the journey (db/writes/trip-operations/cancel-trip.ts). */
  tripCancelled: 'TRIP_CANCELLED',
} as const;

export type FailureReason = (typeof FAILURE_REASONS)[keyof typeof FAILURE_REASONS];

export type Decision = 'APPROVE' | 'REJECT';

/** A company decision still awaited and how long is left until its window closes (the database's clock). */
export interface AwaitedDecision {
  companyId: string;
  remainingMilliseconds: number;
}

export interface DecisionDue {
  companyId: string;
  /** When the company's decision window closes (epoch milliseconds). */
  dueAt: number;
}

/** Each awaited decision's window end on the clock that reads `now`. */
export function decisionsDueAt(awaiting: readonly AwaitedDecision[], now: number): DecisionDue[] {
  return awaiting.map(({ companyId, remainingMilliseconds }) => ({
    companyId,
    dueAt: now + remainingMilliseconds,
  }));
}

/**
 * The fixed idempotency key of a company decision (PATCH /bookings/{id}/status): the same
 * request, company and decision always give the same key, so a retry is recognised.
 */
export function decisionKey(confirmationRequestId: string, companyId: string, decision: Decision): string {
  return `${confirmationRequestId}:${companyId}:${decision}`;
}

/**
 * What a company's decision does with its confirmation request: the same decision key again (a
 * retry) repeats the answer with the scope's current state; any other decision needs an open
 * request.
 */
export function decisionStep(
  request: { decisionKey: string | null; open: boolean } | null | undefined,
  key: string,
): 'REPEAT' | 'DECIDE' | 'CONFLICT' {
  if (request && request.decisionKey === key) return 'REPEAT';
  return request?.open ? 'DECIDE' : 'CONFLICT';
}

/** A status change a company sends: a decision, or the target status older dashboards send. */
export type StatusChange =
  { decision: Decision } | { status: 'CONFIRMED' | 'CANCELLED' | 'CHECKED_IN' | 'NO_SHOW' | 'COMPLETED' };

const aggregateOperation = (message: string): RuleRefusal => ({
  status: 409,
  code: 'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
  message,
});

/**
 * The decision a status change asks for. The legacy shape reads CONFIRMED as APPROVE and CANCELLED
 * as REJECT; cancelling a confirmed journey, check-in, no-show and completion are changes of the
 * journey aggregate (the trip operations room), never of one booking row.
 */
export function decisionOfChange(
  change: StatusChange,
  journeyStatus: JourneyStatus | null,
): { decision: Decision; refusal?: never } | { refusal: RuleRefusal; decision?: never } {
  if ('decision' in change) return { decision: change.decision };
  if (change.status === 'CANCELLED' && journeyStatus === 'CONFIRMED') {
    return {
      refusal: aggregateOperation(
        'This booking is part of a confirmed journey: cancel or re-accommodate it through the trip operations room',
      ),
    };
  }
  if (change.status === 'CONFIRMED') return { decision: 'APPROVE' };
  if (change.status === 'CANCELLED') return { decision: 'REJECT' };
  return {
    refusal: aggregateOperation('Check-in, no-show and completion belong to the trip operations room'),
  };
}
