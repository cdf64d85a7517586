import { continueAsNew, proxyActivities } from '@temporalio/workflow';

/**
 * The two shapes webhook delivery could take, reduced to Temporal and one HTTP POST each, for the
 * design measurement of bench:webhooks: a workflow per delivery, or one workflow per subscription
 * that drains its queue in order with continue-as-new. A refused POST fails the activity, which
 * Temporal retries after 10 s (doubling): the first wait of the real retry plan.
 */
interface ShapeActivities {
  post(input: { receiver: string; id: string }): Promise<void>;
}

const step = proxyActivities<ShapeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2 },
});

export async function deliveryShape(input: { receiver: string; id: string }): Promise<void> {
  await step.post(input);
}

/** Drains `ids` in order, `perRun` per run, then continues as new with the rest. */
export async function drainShape(input: { receiver: string; ids: string[]; perRun: number }): Promise<void> {
  for (const id of input.ids.slice(0, input.perRun)) await step.post({ receiver: input.receiver, id });
  const rest = input.ids.slice(input.perRun);
  if (rest.length) await continueAsNew<typeof drainShape>({ ...input, ids: rest });
}
