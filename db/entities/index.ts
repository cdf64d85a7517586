/**
 * The ORM's role (issue 11, decided):
 *
 * - These entities describe every table the migrations create: they are the schema's single
 *   description in code. test/db/entities.test.ts checks them against the migrated database (each
 *   table has one entity; each column a property of the same type and nullability), so a
 *   migration that adds a column fails the test until its entity says so.
 * - CRUD-style writes of the dashboard and the administration (settings, accounts, catalogue
 *   upkeep) go through a forked EntityManager: `client.em` inside `db.transaction` (db/orm.ts),
 *   flushed in the same transaction as the audit row, or `db.fork()` for a write on its own.
 * - Hot paths (search, holds, bookings, journeys, documents) stay hand-tuned SQL in db/queries
 *   and db/writes, read through typed row mappers; their entities describe the tables only.
 *
 * Migrations stay hand-written SQL (exclusion constraints, partial and expression indexes,
 * triggers); entities never generate schema.
 */
import { AuditLogEntry, Admin, AdminSession } from './admin.js';
import {
  CompanyAdminAction,
  FeatureFlag,
  Incident,
  MaintenanceWindowEntity,
  PlatformStateVersion,
  SupportTicket,
  SupportTicketMessage,
  WaitlistEntry,
} from './admin-console.js';
import { Booking, CredentialRevocation, SigningKey } from './bookings.js';
import { Bus } from './bus.js';
import { CashShift, CashShiftMovement } from './cash-shifts.js';
import { BusLayout, LayoutSeat } from './bus-layout.js';
import { City } from './city.js';
import { Company, CompanyBookingSettings } from './company.js';
import {
  DocumentAccessLogEntry,
  DocumentRender,
  DocumentShareGrant,
  DocumentSnapshot,
  ShareRecipientSession,
} from './documents.js';
import {
  ChatappLink,
  EmailToken,
  Favorite,
  IdpNonce,
  OtpChallenge,
  Passenger,
  RefreshToken,
  TravellerSession,
  UnlinkedIdentity,
  User,
  UserIdentity,
} from './identity.js';
import {
  BookingStatsDaily,
  BookingStatsDelta,
  CompanySettings,
  CustomerFrequencyRecountDue,
  CustomerFrequencySnapshot,
  ReportExport,
} from './insight.js';
import { JourneyQuote } from './journey-quote.js';
import {
  ConfirmationRequest,
  HoldBatch,
  Journey,
  JourneyLeg,
  JourneyOrder,
  JourneyTicket,
} from './journeys.js';
import {
  LoyaltyAccount,
  LoyaltyProgram,
  LoyaltyRedemption,
  LoyaltyReferral,
  LoyaltyReward,
  LoyaltyTier,
  LoyaltyTransaction,
} from './loyalty.js';
import { OutboxEvent } from './outbox.js';
import { PaymentLedgerDay } from './payment-ledger.js';
import { PaymentOperation, Receipt, ReceiptCounter } from './payments.js';
import { PickupLocation } from './pickup-location.js';
import { RouteStop, TripSchedule } from './planning.js';
import { Route } from './route.js';
import { SeatAllocation } from './seat-allocation.js';
import { IdempotencyRecord, RateLimit } from './service.js';
import { CompanyMembership, StaffSession, StaffUser } from './staff.js';
import { Stop } from './stop.js';
import { Trip, TripStopCall } from './trip.js';
import { BoardingScan, TripOperationEvent, TripPosition } from './trip-operations.js';
import {
  CompanyApiKey,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookSubscription,
  WebhookSubscriptionHistory,
} from './webhooks.js';

export * from './admin.js';
export * from './admin-console.js';
export * from './bookings.js';
export * from './bus.js';
export * from './bus-layout.js';
export * from './cash-shifts.js';
export * from './city.js';
export * from './company.js';
export * from './documents.js';
export * from './identity.js';
export * from './insight.js';
export * from './journey-quote.js';
export * from './journeys.js';
export * from './loyalty.js';
export * from './outbox.js';
export * from './payment-ledger.js';
export * from './payments.js';
export * from './pickup-location.js';
export * from './planning.js';
export * from './route.js';
export * from './seat-allocation.js';
export * from './service.js';
export * from './staff.js';
export * from './stop.js';
export * from './trip.js';
export * from './trip-operations.js';
export * from './webhooks.js';

/** Every entity the ORM knows: one per table. A new table's entity is added here. */
export const allEntities = [
  // catalogue
  City,
  Company,
  CompanyBookingSettings,
  Stop,
  PickupLocation,
  Bus,
  BusLayout,
  LayoutSeat,
  Route,
  RouteStop,
  Trip,
  TripStopCall,
  TripSchedule,
  SeatAllocation,
  // identity and access
  Passenger,
  User,
  UserIdentity,
  UnlinkedIdentity,
  TravellerSession,
  RefreshToken,
  OtpChallenge,
  ChatappLink,
  EmailToken,
  IdpNonce,
  Favorite,
  StaffUser,
  CompanyMembership,
  StaffSession,
  Admin,
  AdminSession,
  AuditLogEntry,
  // journeys and bookings
  JourneyQuote,
  JourneyOrder,
  Journey,
  JourneyLeg,
  HoldBatch,
  JourneyTicket,
  ConfirmationRequest,
  Booking,
  SigningKey,
  CredentialRevocation,
  // loyalty
  LoyaltyProgram,
  LoyaltyTier,
  LoyaltyReward,
  LoyaltyAccount,
  LoyaltyRedemption,
  LoyaltyTransaction,
  LoyaltyReferral,
  // payments and documents
  PaymentOperation,
  ReceiptCounter,
  Receipt,
  CashShift,
  CashShiftMovement,
  PaymentLedgerDay,
  DocumentSnapshot,
  DocumentRender,
  DocumentAccessLogEntry,
  DocumentShareGrant,
  ShareRecipientSession,
  // events for webhooks
  OutboxEvent,
  // the administration console
  CompanyAdminAction,
  FeatureFlag,
  PlatformStateVersion,
  Incident,
  MaintenanceWindowEntity,
  WaitlistEntry,
  SupportTicket,
  SupportTicketMessage,
  // trip operations, the driver app and tracking
  TripOperationEvent,
  BoardingScan,
  TripPosition,
  CompanyApiKey,
  WebhookSubscription,
  WebhookSubscriptionHistory,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  // insight: settings, reports, analytics
  CompanySettings,
  ReportExport,
  BookingStatsDaily,
  BookingStatsDelta,
  CustomerFrequencySnapshot,
  CustomerFrequencyRecountDue,
  // the service's own tables
  RateLimit,
  IdempotencyRecord,
];
