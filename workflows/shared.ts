/**
 * Names shared by workflows, the worker and the API. Imported by the API without pulling in any
 * workflow body.
 */
export const TASK_QUEUE = 'bus-booking';

/** Custom search attributes registered on the dev server (scripts/lib/services.ts) and in production. */
export const SearchAttribute = {
  CompanyId: 'CompanyId',
  BookingId: 'BookingId',
  ProcessStatus: 'ProcessStatus',
} as const;

export const workflowIds = {
  catalogueProbe: (probeId: string) => `catalogue-probe/${probeId}`,
  journeyConfirmation: (journeyId: string) => `journey-confirmation/${journeyId}`,
  shareGrant: (grantId: string) => `share-grant/${grantId}`,
  documentRender: (snapshotId: string) => `document-render/${snapshotId}`,
  tripSchedule: (scheduleId: string) => `trip-schedule/${scheduleId}`,
  cashShift: (companyId: string) => `cash-shift/${companyId}`,
  webhookDelivery: (deliveryId: string) => `webhook-delivery/${deliveryId}`,
};
