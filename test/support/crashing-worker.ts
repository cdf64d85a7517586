/**
 * A worker process that dies in the middle of a trip schedule's commit, for the test that a
 * killed worker's schedule resumes without a duplicate or a lost trip. It serves the task queue
 * TEMPORAL_TASK_QUEUE with the real activities and the run's workflow bundle (WORKFLOW_BUNDLE)
 * and kills itself with SIGKILL during batch CRASH_BATCH:
 *   CRASH_AT=before-commit  after the batch's inserts, before its COMMIT (the transaction is lost)
 *   CRASH_AT=after-commit   after the COMMIT, before Temporal hears the batch is done
 * It prints READY once it polls.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { loadConfig } from '../../config/index.js';
import { createLogger } from '../../config/logger.js';
import { connectionOptions } from '../../config/temporal.js';
import { initDatabase, type Database } from '../../db/orm.js';

const crashBatch = Number(process.env.CRASH_BATCH);
const crashAt = process.env.CRASH_AT as 'before-commit' | 'after-commit';
const die = () => process.kill(process.pid, 'SIGKILL');

Runtime.install({ logger: new DefaultLogger('ERROR') });
const config = loadConfig();
const db = await initDatabase(config);
let armed = false;
const crashingDb: Database = {
  ...db,
  transaction: (work, options) =>
    db.transaction(async (client) => {
      const result = await work(client);
      if (armed && crashAt === 'before-commit') die();
      return result;
    }, options),
};
const activities = createActivities({
  config,
  db: crashingDb,
  logger: createLogger(config, 'crashing-worker'),
});
const connection = await NativeConnection.connect(connectionOptions(config));
const worker = await Worker.create({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE! },
  activities: {
    ...activities,
    async commitTripScheduleBatch(input: { scheduleId: string; batchIndex: number }) {
      armed = input.batchIndex === crashBatch;
      const result = await activities.commitTripScheduleBatch(input);
      if (armed && crashAt === 'after-commit') die();
      return result;
    },
  },
});
process.stdout.write('READY\n');
await worker.run();
