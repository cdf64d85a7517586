import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';

const require = createRequire(import.meta.url);
const TASK_QUEUE = 'bench-webhook-shapes';

export interface ShapeResult {
  label: string;
  deliveries: number;
  seconds: number;
  perSecond: number;
}

/**
 * The design measurement: `count` deliveries spread over `receivers` subscriptions, each a POST to
 * a local receiver, (a) as one workflow per delivery, all started at once, and (b) as one drain
 * workflow per subscription taking its deliveries in order (continue-as-new every 100). Temporal
 * and HTTP only: no database, no signing, in this process.
 */
export async function measureDeliveryShapes(options: {
  address: string;
  receivers: string[];
  count: number;
}): Promise<ShapeResult[]> {
  const nativeConnection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowsPath: require.resolve('./webhook-shape-workflows.ts'),
    activities: {
      async post({ receiver, id }: { receiver: string; id: string }) {
        const response = await fetch(receiver, { method: 'POST', body: id, headers: { 'webhook-id': id } });
        await response.arrayBuffer();
      },
    },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: options.address });
  const client = new Client({ connection });
  const ids = Array.from({ length: options.count }, () => randomUUID());
  const receiverOf = (index: number) => options.receivers[index % options.receivers.length]!;
  const timed = async (label: string, work: () => Promise<unknown>): Promise<ShapeResult> => {
    const started = performance.now();
    await work();
    const seconds = (performance.now() - started) / 1000;
    return { label, deliveries: ids.length, seconds, perSecond: ids.length / seconds };
  };
  try {
    const perDelivery = await timed('one workflow per delivery', () =>
      Promise.all(
        ids.map(async (id, index) => {
          const handle = await client.workflow.start('deliveryShape', {
            taskQueue: TASK_QUEUE,
            workflowId: `bench-delivery/${id}`,
            args: [{ receiver: receiverOf(index), id }],
          });
          await handle.result();
        }),
      ),
    );
    const perSubscription = await timed('one drain workflow per subscription', () =>
      Promise.all(
        options.receivers.map(async (receiver, index) => {
          const own = ids.filter((_, position) => position % options.receivers.length === index);
          const handle = await client.workflow.start('drainShape', {
            taskQueue: TASK_QUEUE,
            workflowId: `bench-drain/${randomUUID()}`,
            args: [{ receiver, ids: own, perRun: 100 }],
          });
          await handle.result();
        }),
      ),
    );
    return [perDelivery, perSubscription];
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await nativeConnection.close();
  }
}
