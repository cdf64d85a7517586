import { p } from '@mikro-orm/core';
import { BOOKING_STATUSES } from '../../domain/booking-rules.js';
import { baseEntity, entity, pricedInSyp, stampedNow, updatedAt } from './base.js';
import { tripAndOperator } from './trip.js';

/**
 * The compatibility booking row the dashboard and older clients read: one per journey, company and
 * trip, or one per POST /bookings. Written by hand-tuned SQL (db/writes/bookings.ts).
 */
export const Booking = baseEntity('Booking', 'bookings', {
  bookingCode: p.text().unique(),
  journeyId: p.uuid().nullable(),
  ...tripAndOperator(),
  passengerId: p.uuid().nullable(),
  ownerUserId: p.uuid().nullable(),
  passengerName: p.text(),
  passengerPhone: p.text(),
  seatsCount: p.integer(),
  seatNumbers: p.array(),
  /**
   * The share of its trip the seats are sold for, in basis points (10000: the whole trip): its
   * journey's leg on the trip, alight minus board fare share; kept by a trigger (stretch_occupancy migration).
   */
  tripShareBp: p.integer().default(10_000),
  status: p.enum(BOOKING_STATUSES).default('PENDING_CONFIRMATION'),
  paymentStatus: p.enum(['UNPAID', 'PAID', 'REFUNDED'] as const).default('UNPAID'),
  ...pricedInSyp(),
  discount: p.bigint('number').default(0),
  /** A booking channel; the column has no check of its own. */
  channel: p.text().default('CUSTOMER_WEB'),
  updatedAt: updatedAt(),
  /** subtotal - discount = totalPrice; an insert that leaves it out gets totalPrice + discount. */
  subtotal: p.bigint('number'),
  /** The voucher (loyalty_redemptions.id) that paid the discount. */
  rewardRedemptionId: p.uuid().nullable(),
  seatLockSessionId: p.uuid().nullable().unique(),
});

/** Ed25519 keys boarding credentials are signed with; at most one ACTIVE. */
export const SigningKey = entity('SigningKey', 'signing_keys', {
  keyId: p.text().primary(),
  algorithm: p.text().default('Ed25519'),
  publicKey: p.text(),
  privateKey: p.text(),
  status: p.enum(['ACTIVE', 'RETIRED'] as const).default('ACTIVE'),
  createdAt: stampedNow(),
  retiredAt: p.datetime().nullable(),
});

/** Tickets whose signed credential scanners must refuse. */
export const CredentialRevocation = entity('CredentialRevocation', 'credential_revocations', {
  ticketId: p.uuid().primary(),
  keyId: p.text().nullable(),
  reason: p.text(),
  revokedAt: stampedNow(),
  /** Its ticket's company: the driver app reads only its own company's list. */
  companyId: p.uuid(),
});
