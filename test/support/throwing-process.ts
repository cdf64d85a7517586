/**
 * A process that installs exitOnUncaughtError as the API's and the worker's entries do, keeps running
 * as a server would, logs one line, and then fails as FAIL says: `throw` (a TypeError with a code,
 * thrown in a timer's callback) or `reject` (a promise rejected that nothing waits on).
 */
import { createLogger } from '../../config/logger.js';
import { exitOnUncaughtError } from '../../config/process-failures.js';

const logger = createLogger({ LOG_LEVEL: 'info' }, 'throwing');
exitOnUncaughtError(logger);
setInterval(() => undefined, 1000);
logger.info('serving');

const failure = Object.assign(new TypeError(`failed by the test (${process.env.FAIL})`), { code: 'ETEST' });
setTimeout(() => {
  if (process.env.FAIL === 'reject') void Promise.reject(failure);
  else throw failure;
}, 50);
