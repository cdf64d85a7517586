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
 * process: the companies and the bookings it concerns, and its phase. BookingId is a keyword list of
 * every id a booking is known by (its scope's order or journey id, its journeys' ids, its booking
 * rows' ids), so `BookingId = '<any of them>'` finds every process of that booking.
 */
export const searchAttributeKeys = {
  companyIds: defineSearchAttributeKey(SearchAttribute.CompanyId, SearchAttributeType.KEYWORD_LIST),
  bookingIds: defineSearchAttributeKey(SearchAttribute.BookingId, SearchAttributeType.KEYWORD_LIST),
  processStatus: defineSearchAttributeKey(SearchAttribute.ProcessStatus, SearchAttributeType.KEYWORD),
};

/**
 * A process's search attributes as it starts: its companies, the ids of its booking (when it has
 * one; missing ones left out, each once), its phase.
 */
export function processSearchAttributes(process: {
  companyIds: string[];
  bookingIds?: (string | null | undefined)[];
  status: string;
}): SearchAttributePair[] {
  const bookingIds = [...new Set((process.bookingIds ?? []).filter((id): id is string => !!id))];
  const booking: SearchAttributePair[] = bookingIds.length
    ? [{ key: searchAttributeKeys.bookingIds, value: bookingIds }]
    : [];
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
