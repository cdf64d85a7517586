import { condition, defineUpdate, setHandler, sleep } from '@temporalio/workflow';

/**
 * The Temporal part of a journey and nothing else, for the floor measurement of
 * bench:journeys: a hold Update that starts the hold's timer, a confirm Update that ends the
 * workflow. No activity, no database.
 */
export const floorHold = defineUpdate<string, [string]>('floorHold');
export const floorConfirm = defineUpdate<string, [string]>('floorConfirm');

export async function journeyFloor(): Promise<string> {
  let phase = 'NEW';
  setHandler(floorHold, (holdBatchId) => {
    phase = 'HELD';
    void sleep('10 minutes').then(() => {
      if (phase === 'HELD') phase = 'EXPIRED';
    });
    return Promise.resolve(holdBatchId);
  });
  setHandler(floorConfirm, (holdBatchId) => {
    phase = 'CONFIRMED';
    return Promise.resolve(holdBatchId);
  });
  await condition(() => phase === 'CONFIRMED' || phase === 'EXPIRED');
  return phase;
}

/**
 * The Temporal part of a decision deadline, for the deadline floor of bench:journeys, woken as
 * journey-confirmation is: started with a delay that ends DECISION_WAKE_LEAD_MS before `dueAt`
 * (epoch ms), it waits in its first workflow task with a timer until `dueAt` and answers in the
 * task the timer wakes with that task's start time (the workflow clock) less `dueAt`. No activity,
 * no database: no deadline enforced this way through Temporal can be released sooner.
 */
export async function deadlineFloor(dueAt: number): Promise<number> {
  const wait = dueAt - Date.now();
  if (wait > 0) await sleep(wait);
  return Date.now() - dueAt;
}
