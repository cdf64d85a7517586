import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { percentile } from './load.js';

const require = createRequire(import.meta.url);
const TASK_QUEUE = 'bench-webhook-shapes';

export interface ShapeReceiver {
  label: string;
  url: string;
}

export interface ShapeResult {
  shape: string;
  receiver: string;
  deliveries: number;
  seconds: number;
  'lag p50 ms': number;
  'lag p99 ms': number;
}

/**
 * The design measurement: `perReceiver` deliveries to each receiver, all due at once, (a) as one
 * workflow per delivery and (b) as one drain workflow per subscription taking its deliveries in
 * order (continue-as-new every 100). Temporal and HTTP only: no database, no signing, a worker in
 * this process. Per receiver: the time until its last delivery and the lag of each delivery from
 * the moment all were due.
 */
export async function measureDeliveryShapes(options: {
  address: string;
  receivers: ShapeReceiver[];
  perReceiver: number;
}): Promise<ShapeResult[]> {
  const delivered = new Map<string, number>();
  const nativeConnection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowsPath: require.resolve('./webhook-shape-workflows.ts'),
    activities: {
      async post({ receiver, id }: { receiver: string; id: string }) {
        const response = await fetch(receiver, { method: 'POST', body: id, headers: { 'webhook-id': id } });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`receiver answered ${response.status}`);
        delivered.set(id, performance.now());
      },
    },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: options.address });
  const client = new Client({ connection });
  const batches = options.receivers.map((receiver) => ({
    receiver,
    ids: Array.from({ length: options.perReceiver }, () => randomUUID()),
  }));
  const measured = async (shape: string, start: (batch: (typeof batches)[number]) => Promise<void>) => {
    delivered.clear();
    const started = performance.now();
    await Promise.all(batches.map(start));
    return batches.map(({ receiver, ids }) => {
      const lags = ids.map((id) => delivered.get(id)! - started).sort((a, b) => a - b);
      return {
        shape,
        receiver: receiver.label,
        deliveries: ids.length,
        seconds: Number((lags.at(-1)! / 1000).toFixed(1)),
        'lag p50 ms': Math.round(percentile(lags, 50)),
        'lag p99 ms': Math.round(percentile(lags, 99)),
      };
    });
  };
  try {
    const perDelivery = await measured('one workflow per delivery', async ({ receiver, ids }) => {
      await Promise.all(
        ids.map(async (id) => {
          const handle = await client.workflow.start('deliveryShape', {
            taskQueue: TASK_QUEUE,
            workflowId: `bench-delivery/${id}`,
            args: [{ receiver: receiver.url, id }],
          });
          await handle.result();
        }),
      );
    });
    const perSubscription = await measured('one drain per subscription', async ({ receiver, ids }) => {
      const handle = await client.workflow.start('drainShape', {
        taskQueue: TASK_QUEUE,
        workflowId: `bench-drain/${randomUUID()}`,
        args: [{ receiver: receiver.url, ids, perRun: 100 }],
      });
      await handle.result();
    });
    return [...perDelivery, ...perSubscription];
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await nativeConnection.close();
  }
}
