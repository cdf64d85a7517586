import { randomUUID } from 'node:crypto';
import type { deadlineFloor } from './floor-workflow.js';
import { mapLimited } from './load.js';
import { startFloorWorker } from './temporal-floor.js';

const TASK_QUEUE = 'bench-deadline-floor';

/**
 * What Temporal alone makes of a burst of decision deadlines on this machine: one workflow per
 * deadline, due at the same offsets from each other as `offsets` (ms from the first; bench:journeys
 * passes the spread its REQUESTED journeys had), each woken as journey-confirmation is (a start
 * delay that ends `wakeLeadMs` before its deadline, then a timer until it) and answering at once
 * when the timer fires (floor-workflow.ts `deadlineFloor`). Answers each one's lag in ms, sorted:
 * the time from its due instant to the start of the workflow task that the timer woke.
 *
 * The first is due `leadMs` after this is called, time enough to start them all before the first
 * wakes; the lag of one whose start ran past its due instant counts from that instant all the same.
 */
export async function measureDeadlineFloor(options: {
  address: string;
  offsets: number[];
  leadMs: number;
  /** How long before its deadline each one's start delay ends (journey-confirmation's wake lead). */
  wakeLeadMs: number;
  concurrency: number;
  log?: (line: string) => void;
}): Promise<number[]> {
  const { client, close } = await startFloorWorker(options.address, TASK_QUEUE);
  try {
    const started = Date.now();
    const firstDue = started + options.leadMs;
    const handles = await mapLimited(options.offsets, options.concurrency, (offset) => {
      const dueAt = firstDue + offset;
      const delay = dueAt - options.wakeLeadMs - Date.now();
      return client.workflow.start<typeof deadlineFloor>('deadlineFloor', {
        workflowId: `bench-deadline-floor/${randomUUID()}`,
        taskQueue: TASK_QUEUE,
        args: [dueAt],
        ...(delay > 0 ? { startDelay: delay } : {}),
      });
    });
    options.log?.(`${handles.length} started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Nothing asks the server anything while the deadlines fall (as the journeys' phase polls only
    // PostgreSQL); the answers are collected after the last one is due.
    const lastDue = firstDue + Math.max(0, ...options.offsets);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastDue - Date.now()) + 1000));
    const lags = await mapLimited(handles, options.concurrency, (handle) => handle.result());
    return lags.sort((a, b) => a - b);
  } finally {
    await close();
  }
}
