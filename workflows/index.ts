// The worker's workflowsPath: every workflow is re-exported here.
export { cashShift } from './cash-shift.js';
export { analyticsRollup } from './analytics-rollup.js';
export { documentRender } from './document-render.js';
export { journeyConfirmation } from './journey-confirmation.js';
export { shareGrant } from './share-grant.js';
export { tripSchedule } from './trip-schedule.js';
export { webhookDelivery } from './webhook-delivery.js';
export { webhookOutbox } from './webhook-outbox.js';
