import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { searchAttributeKeys, workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import {
  WEBHOOK_DELIVERY_WORKFLOW,
  type WebhookDeliveryInput,
} from '../../../workflows/webhook-delivery.contract.js';
import type { webhookDelivery } from '../../../workflows/webhook-delivery.js';
import {
  currentRetryPlanQuery,
  retryPlanSignal,
  WEBHOOK_OUTBOX_WORKFLOW,
  type WebhookOutboxInput,
} from '../../../workflows/webhook-outbox.contract.js';
import type { RetryPlan } from '../../../domain/webhooks.js';
import { replayRecordedHistory, useWorkflowEnvironment } from '../../support/workflow-env.js';

/** webhookDelivery and the webhookOutbox relay with stubbed activities (no PostgreSQL, no HTTP). */
type DeliverySteps = Pick<Activities, 'attemptWebhookDelivery' | 'giveUpWebhookDelivery'>;
type AttemptResult = Awaited<ReturnType<Activities['attemptWebhookDelivery']>>;

const PLAN = { initialMs: 50, maxMs: 400, windowMs: 60_000 };

function deliveryInput(retry = PLAN): WebhookDeliveryInput {
  return {
    deliveryId: randomUUID(),
    companyId: randomUUID(),
    bookingId: randomUUID(),
    subscriptionId: randomUUID(),
    event: 'booking.created',
    trigger: 'AUTOMATIC',
    retry,
  };
}

/** Attempts answer `outcomes` in turn; the times of each attempt and whether it gave up are kept. */
function scripted(outcomes: AttemptResult[]) {
  const attempts: { at: number; trigger: string }[] = [];
  const gaveUp: string[] = [];
  const steps: DeliverySteps = {
    async attemptWebhookDelivery(input) {
      attempts.push({ at: Date.now(), trigger: input.trigger });
      return outcomes[Math.min(attempts.length - 1, outcomes.length - 1)]!;
    },
    async giveUpWebhookDelivery(input) {
      gaveUp.push(input.deliveryId);
    },
  };
  return { steps, attempts, gaveUp };
}

const RETRY: AttemptResult = { status: 'PENDING', outcome: 'RETRY' };

describe('webhookDelivery workflow (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  const run = (taskQueue: string, input: WebhookDeliveryInput) =>
    temporal.client.workflow.execute<typeof webhookDelivery>(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId: workflowIds.webhookDelivery(input.deliveryId),
      taskQueue,
      args: [input],
    });

  it('retries with growing waits until the receiver takes it', async () => {
    const { steps, attempts } = scripted([
      RETRY,
      RETRY,
      RETRY,
      { status: 'DELIVERED', outcome: 'DELIVERED' },
    ]);
    await temporal.withWorker(steps, async (taskQueue) => {
      const input = { ...deliveryInput(), trigger: 'MANUAL' as const };
      expect(await run(taskQueue, input)).toEqual({ status: 'DELIVERED', attempts: 4 });
    });
    const gaps = attempts.slice(1).map((attempt, index) => attempt.at - attempts[index]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(40);
    expect(gaps[2]).toBeGreaterThanOrEqual(170);
    expect(attempts.map((attempt) => attempt.trigger)).toEqual([
      'MANUAL',
      'AUTOMATIC',
      'AUTOMATIC',
      'AUTOMATIC',
    ]);
  });

  it("waits at least the receiver's Retry-After", async () => {
    const { steps, attempts } = scripted([
      { status: 'PENDING', outcome: 'RETRY', retryAfterMs: 300 },
      { status: 'DELIVERED', outcome: 'DELIVERED' },
    ]);
    await temporal.withWorker(steps, async (taskQueue) => {
      await run(taskQueue, deliveryInput());
    });
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(290);
  });

  it("started for a retry of the relay's first attempt, it waits the backoff (or Retry-After) before attempting", async () => {
    for (const retryOf of [{ attempts: 1 }, { attempts: 1, retryAfterMs: 1500 }]) {
      const { steps, attempts } = scripted([{ status: 'DELIVERED', outcome: 'DELIVERED' }]);
      const input = { ...deliveryInput({ initialMs: 600, maxMs: 5000, windowMs: 60_000 }), retryOf };
      let begun = 0;
      await temporal.withWorker(steps, async (taskQueue) => {
        const handle = await temporal.client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
          workflowId: workflowIds.webhookDelivery(input.deliveryId),
          taskQueue,
          args: [input],
        });
        expect(await handle.result()).toEqual({ status: 'DELIVERED', attempts: 1 });
        begun = (await handle.describe()).startTime.getTime();
      });
      expect(attempts).toHaveLength(1);
      expect(attempts[0]!.trigger).toBe('AUTOMATIC');
      // 600 ms ±10 % after one failed attempt; at least the 1.5 s the receiver asked for.
      expect(attempts[0]!.at - begun).toBeGreaterThanOrEqual(retryOf.retryAfterMs ? 1450 : 530);
    }
  });

  it('a final answer (FAILED, or GONE) ends the delivery after one attempt', async () => {
    const { steps, attempts, gaveUp } = scripted([{ status: 'FAILED', outcome: 'GONE' }]);
    await temporal.withWorker(steps, async (taskQueue) => {
      expect(await run(taskQueue, deliveryInput())).toEqual({ status: 'FAILED', attempts: 1 });
    });
    expect(attempts).toHaveLength(1);
    expect(gaveUp).toEqual([]);
  });

  it('gives up (FAILED) when the next wait would pass the retry window', async () => {
    const { steps, attempts, gaveUp } = scripted([RETRY]);
    const input = deliveryInput({ initialMs: 100, maxMs: 400, windowMs: 700 });
    await temporal.withWorker(steps, async (taskQueue) => {
      expect(await run(taskQueue, input)).toMatchObject({ status: 'FAILED' });
    });
    // 100, 200, 400 ms waits fit at most three retries into 700 ms.
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.length).toBeLessThanOrEqual(4);
    expect(gaveUp).toEqual([input.deliveryId]);
  });
});

describe('webhookOutbox relay (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  it('starts one findable delivery workflow per delivery and marks them started at the next step', async () => {
    const delivery = {
      deliveryId: randomUUID(),
      companyId: randomUUID(),
      bookingId: randomUUID(),
      journeyId: randomUUID(),
      subscriptionId: randomUUID(),
      event: 'booking.created' as const,
    };
    const marked: string[][] = [];
    let steps = 0;
    const relay: Pick<
      Activities,
      | 'relayWebhookDeliveries'
      | 'startWebhookDeliveries'
      | 'awaitWebhookOutbox'
      | 'attemptWebhookDelivery'
      | 'giveUpWebhookDelivery'
    > = {
      // As the real activity does, with the test's client.
      async startWebhookDeliveries(input) {
        for (const start of input.starts) {
          await temporal.client.workflow.start(input.workflowType, {
            workflowId: start.workflowId,
            taskQueue: input.taskQueue,
            args: start.args,
            typedSearchAttributes: start.searchAttributes,
            memo: start.memo,
          });
        }
        return input.starts.map((start) => start.workflowId);
      },
      async relayWebhookDeliveries(input) {
        steps += 1;
        marked.push(input.started);
        return { attempted: 0, toStart: steps === 1 ? [delivery] : [] };
      },
      async awaitWebhookOutbox() {
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
      async attemptWebhookDelivery() {
        return { status: 'DELIVERED', outcome: 'DELIVERED' };
      },
      async giveUpWebhookDelivery() {},
    };
    await temporal.withWorker(relay, async (taskQueue) => {
      const handle = await temporal.client.workflow.start(WEBHOOK_OUTBOX_WORKFLOW, {
        workflowId: `test-webhook-outbox/${randomUUID()}`,
        taskQueue,
        args: [{ retry: PLAN, waitMs: 100, limit: 10 }],
      });
      const child = temporal.client.workflow.getHandle(workflowIds.webhookDelivery(delivery.deliveryId));
      for (let wait = 0; wait < 100 && !(await child.describe().catch(() => undefined)); wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await child.result()).toEqual({ status: 'DELIVERED', attempts: 1 });
      const described = await child.describe();
      // Found by the booking row's id and by its journey's.
      expect(described.typedSearchAttributes.get(searchAttributeKeys.bookingIds)).toEqual([
        delivery.bookingId,
        delivery.journeyId,
      ]);
      expect(described.typedSearchAttributes.get(searchAttributeKeys.companyIds)).toEqual([
        delivery.companyId,
      ]);
      for (let wait = 0; wait < 50 && marked.length < 3; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await handle.terminate();
    });
    expect(marked[0]).toEqual([]);
    expect(marked[1]).toEqual([delivery.deliveryId]);
  });

  it('a retry plan signalled to the running relay goes to the deliveries it starts from then on, and on past continue-as-new', async () => {
    const signalled: RetryPlan = { initialMs: 20, maxMs: 100, windowMs: 3_000 };
    const handedOut: { deliveryId: string; retry: RetryPlan }[] = [];
    let toStart: Awaited<ReturnType<Activities['relayWebhookDeliveries']>>['toStart'] = [];
    let busy = false;
    const nextDelivery = () => {
      const deliveryId = randomUUID();
      toStart = [
        {
          deliveryId,
          companyId: randomUUID(),
          bookingId: randomUUID(),
          subscriptionId: randomUUID(),
          event: 'booking.created',
        },
      ];
      return deliveryId;
    };
    const retryOf = async (deliveryId: string) => {
      for (let wait = 0; wait < 100 && !handedOut.some((start) => start.deliveryId === deliveryId); wait++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return handedOut.find((start) => start.deliveryId === deliveryId)?.retry;
    };
    const relay: Pick<
      Activities,
      'relayWebhookDeliveries' | 'startWebhookDeliveries' | 'awaitWebhookOutbox'
    > = {
      async relayWebhookDeliveries() {
        const starting = toStart;
        toStart = [];
        // busy: a first attempt sent at every step, so the run takes its steps without waiting.
        return { attempted: busy ? 1 : 0, toStart: starting };
      },
      async startWebhookDeliveries(input) {
        for (const start of input.starts) {
          const [delivery] = start.args as [WebhookDeliveryInput];
          handedOut.push({ deliveryId: delivery.deliveryId, retry: delivery.retry });
        }
        return input.starts.map((start) => start.workflowId);
      },
      async awaitWebhookOutbox() {
        await new Promise((resolve) => setTimeout(resolve, 50));
      },
    };
    await temporal.withWorker(relay, async (taskQueue) => {
      const handle = await temporal.client.workflow.start(WEBHOOK_OUTBOX_WORKFLOW, {
        workflowId: `test-webhook-outbox/${randomUUID()}`,
        taskQueue,
        args: [{ retry: PLAN, waitMs: 50, limit: 10, stepsPerRun: 20 }],
      });
      try {
        expect(await retryOf(nextDelivery())).toEqual(PLAN);

        await handle.signal(retryPlanSignal, signalled);
        expect(await retryOf(nextDelivery())).toEqual(signalled);
        expect(await handle.query(currentRetryPlanQuery)).toEqual(signalled);

        // The run continues as new (after its 20 steps here): the next run has the signalled plan.
        const first = (await handle.describe()).runId;
        busy = true;
        let next = first;
        for (let wait = 0; wait < 200 && next === first; wait++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          next = (await handle.describe()).runId;
        }
        busy = false;
        expect(next).not.toBe(first);
        const history = await temporal.client.workflow.getHandle(handle.workflowId, next).fetchHistory();
        const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
        const input = defaultPayloadConverter.fromPayload<WebhookOutboxInput>(started.input!.payloads![0]!);
        expect(input.retry).toEqual(signalled);
        expect(await retryOf(nextDelivery())).toEqual(signalled);
      } finally {
        await handle.terminate();
      }
    });
  }, 60_000);

  it('a relay recorded before the retry-plan signal replays as it was recorded', async () => {
    // Recorded (binary protobuf, as the client fetched it) from the code before retryPlanSignal:
    // a step that started a delivery, steps with and without first attempts, idle waits.
    await expect(
      replayRecordedHistory(
        new URL('./histories/webhook-outbox-before-retry-plan-signal.pb', import.meta.url),
      ),
    ).resolves.toBeUndefined();
  });
});
