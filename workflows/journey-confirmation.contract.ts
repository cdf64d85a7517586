import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AccountCaps } from '../domain/inventory-caps.js';
import type {
  BookingChannel,
  ConfirmationScope,
  DecisionDue,
  JourneyTravellers,
} from '../domain/journey-confirmation.js';

export type {
  BookingChannel,
  ConfirmationScope,
  JourneyTravellers,
  ScopeKind,
  TravellerInput,
} from '../domain/journey-confirmation.js';

/**
 * The contract of the `journeyConfirmation` workflow (id journey-confirmation/{journeyId} or journey-confirmation/order/{orderId}): its
 * input, the Updates the API sends and the Query operators may run. The API imports this module,
 * never the workflow body.
 */
export const JOURNEY_CONFIRMATION_WORKFLOW = 'journeyConfirmation';

export interface JourneyConfirmationInput {
  scope: ConfirmationScope;
  ownerUserId: string;
  /** Every company with a leg in the scope (the CompanyId search attribute). */
  companyIds: string[];
  /**
   * Multiplier applied to every duration the workflow waits (hold expiry, decision window).
   * 1 in production; tests may shorten time only through the documented TIME_SCALE setting.
   */
  timeScale: number;
  /**
   * Started by a confirm that left the scope REQUESTED, before the decisions became transactions of
   * the API: the process read the pending requests and took each decision as an Update. Kept for
   * the runs started so; older runs still (absent) started with their hold.
   */
  startsRequested?: boolean;
  /**
   * Started by a confirm that left the scope REQUESTED, with a start delay until the earliest of
   * these deadlines: each company's decision is a transaction of the API, which then wakes the
   * process with `decidedSignal` (signal-with-start ends the delay early). Empty for a run a
   * decision's signal started (none was found): it reads the deadlines at once.
   */
  decisionsDue?: DecisionDue[];
}

export type { DecisionDue };

/** A decision the API has committed: the scope's outcome after it, and who still decides. */
export interface DecidedNotice {
  outcome: 'REQUESTED' | 'CONFIRMED' | 'CANCELLED';
  pendingCompanyIds: string[];
}

export interface HoldRequest {
  /** How long the hold lasts unless confirmed, before the time scale (config HOLD_MINUTES). */
  holdMinutes: number;
  /** The account's abuse caps (config), checked in the hold's transaction; absent in older histories. */
  caps?: AccountCaps;
  /** The caller's request id, for logs; retries are recognised by the Update id. */
  requestId: string;
}

export interface HoldResult {
  holdBatchId: string;
  /** ISO 8601 instant the hold ends unless confirmed. */
  expiresAt: string;
}

export interface ReleaseRequest {
  holdBatchId: string;
}

export interface ReleaseResult {
  holdBatchId: string;
  status: 'RELEASED';
}

export interface ConfirmRequest {
  holdBatchId: string;
  /** One entry per journey of the scope (a single one for a journey scope). */
  journeys: JourneyTravellers[];
  channel: BookingChannel;
  idempotencyKey: string;
}

export interface ConfirmResult {
  status: 'CONFIRMED' | 'REQUESTED';
  /** ISO 8601 decision deadline when REQUESTED (the earliest of the companies' deadlines). */
  deadline: string | null;
}

export interface CompanyDecision {
  companyId: string;
  decision: 'APPROVE' | 'REJECT';
  /** The staff user deciding. */
  actorId: string;
  reason?: string;
  /** Fixed idempotency key of this decision: a retry with the same key answers the same. */
  decisionKey: string;
  /**
   * Set when the platform ends the company's request (a suspension, decided by an administrator):
   * the decision is REJECT, the request is CANCELLED and the scope's failure_reason is this one.
   */
  failureReason?: 'COMPANY_SUSPENDED';
}

export interface DecisionResult {
  companyId: string;
  decision: 'APPROVE' | 'REJECT';
  /** The scope's confirmation status after the decision. */
  outcome: 'REQUESTED' | 'CONFIRMED' | 'CANCELLED';
}

export type ProcessPhase = 'NEW' | 'HELD' | 'REQUESTED' | 'CONFIRMED' | 'CANCELLED' | 'RELEASED' | 'EXPIRED';

export interface ProcessState {
  phase: ProcessPhase;
  holdBatchId: string | null;
  holdExpiresAt: string | null;
  deadline: string | null;
  pendingCompanies: string[];
}

export const holdUpdate = defineUpdate<HoldResult, [HoldRequest]>('hold');
export const releaseHoldUpdate = defineUpdate<ReleaseResult, [ReleaseRequest]>('releaseHold');
export const confirmUpdate = defineUpdate<ConfirmResult, [ConfirmRequest]>('confirm');
/** The decision as an Update of the workflow: sent by no caller now, kept for the histories that hold one. */
export const decideUpdate = defineUpdate<DecisionResult, [CompanyDecision]>('decide');
export const decidedSignal = defineSignal<[DecidedNotice]>('decided');
export const stateQuery = defineQuery<ProcessState>('state');

/**
 * Refusals the workflow itself makes (its Update validators) and their HTTP status. A refusal
 * fails the Update with an ApplicationFailure whose type is the API errorCode and whose first
 * detail is {status, details?}; activities' refusals travel the same way with their own codes.
 */
export const REFUSAL_STATUS = {
  HOLD_ALREADY_ACTIVE: 409,
  JOURNEY_NOT_HOLDABLE: 409,
  HOLD_NOT_FOUND: 404,
  HOLD_CLOSED: 409,
  ALREADY_CONFIRMED: 409,
  JOURNEY_CONFIRMATION_STATE_CONFLICT: 409,
} as const;

export type RefusalCode = keyof typeof REFUSAL_STATUS;
