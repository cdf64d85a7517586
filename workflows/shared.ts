import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { ConfirmationScope } from '../domain/journey-confirmation.js';

/**
 * Names shared by workflows, the worker and the API. Imported by the API without pulling in any
 * workflow body. The task queue is configuration (TEMPORAL_TASK_QUEUE, default `bus-booking`).
 */

/** Custom search attributes registered on the dev server (scripts/lib/services.ts) and in production. */
export const SearchAttribute = {
  CompanyId: 'CompanyId',
  BookingId: 'BookingId',
  ProcessStatus: 'ProcessStatus',
} as const;

/**
 * Typed keys of the search attributes operators filter by in the Temporal UI, the same for every
 * process: the companies and the booking it concerns, and its phase.
 */
export const searchAttributeKeys = {
  companyIds: defineSearchAttributeKey(SearchAttribute.CompanyId, SearchAttributeType.KEYWORD_LIST),
  bookingId: defineSearchAttributeKey(SearchAttribute.BookingId, SearchAttributeType.KEYWORD),
  processStatus: defineSearchAttributeKey(SearchAttribute.ProcessStatus, SearchAttributeType.KEYWORD),
};

/** A process's search attributes as it starts: its companies, its booking (when it has one), its phase. */
export function processSearchAttributes(process: {
  companyIds: string[];
  bookingId?: string;
  status: string;
}): SearchAttributePair[] {
  const booking: SearchAttributePair[] =
    process.bookingId === undefined ? [] : [{ key: searchAttributeKeys.bookingId, value: process.bookingId }];
  return [
    { key: searchAttributeKeys.companyIds, value: process.companyIds },
    ...booking,
    { key: searchAttributeKeys.processStatus, value: process.status },
  ];
}

export const workflowIds = {
  journeyConfirmation: (journeyId: string) => `journey-confirmation/${journeyId}`,
  /** Named apart from journeys': the client chooses an order's id, which may be a journey's. */
  orderConfirmation: (orderId: string) => `journey-confirmation/order/${orderId}`,
  shareGrant: (grantId: string) => `share-grant/${grantId}`,
  documentRender: (snapshotId: string) => `document-render/${snapshotId}`,
  tripSchedule: (scheduleId: string) => `trip-schedule/${scheduleId}`,
  webhookDelivery: (deliveryId: string) => `webhook-delivery/${deliveryId}`,
  /** The one relay of the namespace. */
  webhookOutbox: () => 'webhook-outbox',
  cashShift: (companyId: string) => `cash-shift/${companyId}`,
  /** A run started by hand (tests, operators); scheduled runs are named by the schedule. */
  analyticsRollup: (runId: string) => `analytics-rollup/${runId}`,
};

/** The confirmation process of a journey or an order. */
export function confirmationWorkflowId(scope: ConfirmationScope): string {
  return scope.kind === 'ORDER'
    ? workflowIds.orderConfirmation(scope.id)
    : workflowIds.journeyConfirmation(scope.id);
}
