// The worker's workflowsPath: every workflow is re-exported here.
export { catalogueProbe } from './catalogue-probe.js';
