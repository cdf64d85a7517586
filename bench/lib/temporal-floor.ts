import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { floorConfirm, floorHold } from './floor-workflow.js';
import { runLoops, type LoadResult } from './load.js';

const require = createRequire(import.meta.url);
const TASK_QUEUE = 'bench-journey-floor';

/** The floor's load, ready to be driven for a while at a time; close() stops its worker. */
export interface TemporalFloor {
  run(label: string, seconds: number): Promise<LoadResult>;
  close(): Promise<void>;
}

/**
 * What Temporal alone costs a journey on this machine: the same two calls the API makes (hold as
 * update-with-start, confirm as an Update) against a workflow that does nothing else, served by
 * a worker in this process. No HTTP, no database: no journey flow over Temporal can go faster.
 * The worker starts once (and ten journeys warm it up); run() may then be called many times.
 */
export async function startTemporalFloor(options: {
  address: string;
  concurrency: number;
}): Promise<TemporalFloor> {
  Runtime.install({
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
  });
  const { client, close } = await startFloorWorker(options.address, TASK_QUEUE);
  const journey = async () => {
    const workflowId = `bench-floor/${randomUUID()}`;
    const start = new WithStartWorkflowOperation('journeyFloor', {
      workflowId,
      taskQueue: TASK_QUEUE,
      workflowIdConflictPolicy: 'FAIL',
    });
    const holdBatchId = await client.workflow.executeUpdateWithStart(floorHold, {
      args: [randomUUID()],
      startWorkflowOperation: start,
    });
    await client.workflow.getHandle(workflowId).executeUpdate(floorConfirm, { args: [holdBatchId] });
  };
  try {
    for (let index = 0; index < 10; index++) await journey();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    run: (label, seconds) => runLoops(label, { concurrency: options.concurrency, seconds }, journey),
    close,
  };
}

/**
 * A worker in this process for the floor workflows (floor-workflow.ts) on `taskQueue`, and a client;
 * close() stops the worker and both connections.
 */
export async function startFloorWorker(
  address: string,
  taskQueue: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('./floor-workflow.ts'),
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  return {
    client: new Client({ connection }),
    close: async () => {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}
