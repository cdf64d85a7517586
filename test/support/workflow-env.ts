import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal as proto } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';
import { loadConfig } from '../../config/index.js';
import type { Activities } from '../../workflows/steps.js';

/**
 * Workflow unit tests in the shape of Temporal's money-transfer template: the real workflow code
 * (the run's bundle) on a worker whose activities are stubs, so no PostgreSQL and no Chromium.
 * The time-skipping test server cannot be downloaded here, so the environment is the dev server
 * `npm test` already runs, and tests shorten time through the workflows' inputs.
 */
export interface WorkflowTestEnvironment {
  readonly client: Client;
  /**
   * Runs `body` while a worker with the stubbed `activities` serves a task queue of its own,
   * then shuts the worker down.
   */
  withWorker<T>(activities: Partial<Activities>, body: (taskQueue: string) => Promise<T>): Promise<T>;
}

export function useWorkflowEnvironment(): WorkflowTestEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    quietRuntime();
    const config = loadConfig();
    env = await TestWorkflowEnvironment.createFromExistingServer({
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
    });
  });
  afterAll(async () => {
    await env?.teardown();
  });
  const ready = () => {
    if (!env) throw new Error('the workflow test environment is not ready (use it inside a test)');
    return env;
  };
  return {
    get client() {
      return ready().client;
    },
    async withWorker(activities, body) {
      const { nativeConnection, namespace } = ready();
      const taskQueue = `unit-${randomUUID()}`;
      const worker = await Worker.create({
        connection: nativeConnection,
        namespace: namespace ?? 'default',
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        activities,
      });
      return worker.runUntil(() => body(taskQueue));
    },
  };
}

/** Worker logs at WARN: the workers' INFO lines (state changes) would drown the test report. */
function quietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed by an earlier environment in this test process.
  }
}

/** A business refusal as the Update caller receives it: the failure's type and its HTTP status. */
export interface UpdateRefusal {
  code: string | undefined;
  status: number | undefined;
  message: string;
}

/** The refusal an Update call failed with (the test fails if it succeeded or failed otherwise). */
export async function refusalOf(update: Promise<unknown>): Promise<UpdateRefusal> {
  const error: unknown = await update.then(
    () => new Error('the Update was accepted'),
    (failure: unknown) => failure,
  );
  const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
  if (!(cause instanceof ApplicationFailure)) throw error;
  const [facts] = (cause.details ?? []) as ({ status?: number } | undefined)[];
  return { code: cause.type ?? undefined, status: facts?.status, message: cause.message };
}

/** A record of the stubbed activities' calls, in order, with their input. */
export class Calls {
  readonly list: { name: string; input: unknown }[] = [];

  record(name: string, input: unknown): void {
    this.list.push({ name, input });
  }

  names(): string[] {
    return this.list.map((call) => call.name);
  }

  inputsOf(name: string): unknown[] {
    return this.list.filter((call) => call.name === name).map((call) => call.input);
  }
}

export const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Replays a history recorded from older workflow code (binary protobuf, as the client fetched it)
 * against the run's bundle: it resolves when today's code takes the same steps, and rejects with the
 * nondeterminism error when it does not.
 */
export function replayRecordedHistory(file: URL): Promise<void> {
  const recorded = proto.api.history.v1.History.decode(readFileSync(file));
  return Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, recorded);
}
