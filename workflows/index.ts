// The worker's workflowsPath: every workflow is re-exported here.
export { catalogueProbe } from './catalogue-probe.js';
export { journeyConfirmation } from './journey-confirmation.js';
