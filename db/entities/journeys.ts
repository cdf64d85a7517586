import { defineEntity, p } from '@mikro-orm/core';
import type { BoardingCredentialPayload } from '../../domain/boarding-credential.js';
import { BOOKING_CHANNELS, type JourneyStatus, type ScopeKind } from '../../domain/journey-confirmation.js';
import { ATTENDANCES, DISPATCH_CHANNELS } from '../../domain/trip-dispatch.js';
import { baseEntity, baseProperties, decision, entity, pricedInSyp, updatedAt } from './base.js';
import { tripAndOperator } from './trip.js';

/**
 * Journeys (SPEC's bookingId on /journeys paths), journey orders that group journeys confirmed
 * together, their legs, hold batches, tickets and the companies' confirmation requests. These
 * tables are the hot path: the writes are hand-tuned SQL (db/writes/journeys); the entities
 * describe the tables.
 */
export const JourneyStatuses = [
  'DRAFT',
  'HELD',
  'REQUESTED',
  'CONFIRMED',
  'CANCELLED',
  'RELEASED',
  'EXPIRED',
] as const satisfies readonly JourneyStatus[];

/** What a journey and a journey order both carry through confirmation. */
const lifecycle = () => ({
  ...baseProperties,
  ownerUserId: p.uuid(),
  passengerId: p.uuid().nullable(),
  channel: p.enum(BOOKING_CHANNELS).default('CUSTOMER_WEB'),
  status: p.enum(JourneyStatuses).default('DRAFT'),
  failureReason: p.text().nullable(),
  ...pricedInSyp(),
  confirmationDeadline: p.datetime().nullable(),
  confirmedAt: p.datetime().nullable(),
  closedAt: p.datetime().nullable(),
  updatedAt: updatedAt(),
});

export const JourneyOrder = defineEntity({
  name: 'JourneyOrder',
  tableName: 'journey_orders',
  properties: lifecycle(),
});

export const Journey = entity('Journey', 'journeys', {
  ...lifecycle(),
  /** Null only for a journey made by POST /bookings (origin BOOKING_API). */
  quoteId: p.uuid().nullable(),
  orderId: p.uuid().nullable(),
  partySize: p.integer(),
  origin: p.enum(['JOURNEY_API', 'BOOKING_API'] as const).default('JOURNEY_API'),
});

export const JourneyLeg = entity('JourneyLeg', 'journey_legs', {
  journeyId: p.uuid().primary(),
  sequence: p.integer().primary(),
  ...tripAndOperator(),
  boardStopCallId: p.uuid(),
  alightStopCallId: p.uuid(),
  boardSequence: p.integer(),
  alightSequence: p.integer(),
  unitPrice: p.bigint('number'),
  quantity: p.integer(),
  subtotal: p.bigint('number'),
});

/** The seats held at once for one scope; at most one ACTIVE batch per scope. */
export const HoldBatch = baseEntity('HoldBatch', 'hold_batches', {
  scopeKind: p.enum(['JOURNEY', 'ORDER', 'SEAT_LOCK'] as const),
  scopeId: p.uuid(),
  ownerUserId: p.uuid().nullable(),
  status: p.enum(['ACTIVE', 'CONSUMED', 'RELEASED', 'EXPIRED'] as const).default('ACTIVE'),
  expiresAt: p.datetime(),
  closedAt: p.datetime().nullable(),
  /** A seat lock's labels as it answered them, in seat-id order (null for journey holds). */
  seatNumbers: p.array().nullable(),
});

export const JourneyTicket = baseEntity('JourneyTicket', 'journey_tickets', {
  journeyId: p.uuid(),
  legSequence: p.integer(),
  travellerIndex: p.integer(),
  travellerName: p.text(),
  travellerPhone: p.text().nullable(),
  ...tripAndOperator(),
  seatId: p.text(),
  seatNumber: p.text(),
  status: p
    .enum(['PENDING_CONFIRMATION', 'VALID', 'CANCELLED', 'USED', 'REISSUED'] as const)
    .default('PENDING_CONFIRMATION'),
  /** The signed boarding credential: payload, its Ed25519 signature and the key's id. */
  payload: p.json<BoardingCredentialPayload>().nullable(),
  signature: p.text().nullable(),
  keyId: p.text().nullable(),
  boardingAuthorized: p.boolean().default(false),
  issuedAt: p.datetime().nullable(),
  /** The traveller's attendance on the ticket's trip (domain/trip-dispatch.ts), who recorded it, when and from where. */
  attendance: p.enum(ATTENDANCES).default('PENDING'),
  attendanceAt: p.datetime().nullable(),
  attendanceBy: p.uuid().nullable(),
  attendanceSource: p.enum(DISPATCH_CHANNELS).nullable(),
  attendanceDevice: p.text().nullable(),
});

/** One decision a manually confirming company owes for a journey or order. */
export const ConfirmationRequest = baseEntity('ConfirmationRequest', 'confirmation_requests', {
  scopeKind: p.enum(['JOURNEY', 'ORDER'] as const satisfies readonly ScopeKind[]),
  scopeId: p.uuid(),
  companyId: p.uuid(),
  status: p.enum(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED'] as const).default('PENDING'),
  deadline: p.datetime(),
  ...decision(),
  decisionKey: p.text().nullable().unique(),
  reason: p.text().nullable(),
});
