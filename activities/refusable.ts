import type { Refusal } from '../domain/refusal.js';

/** A business refusal as plain data: it crosses the activity boundary as JSON. */
export interface RefusalData {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * An activity's answer: its result, or the business refusal its transaction threw. A refusal is an
 * answer for the Update caller, not a failed activity; the workflow throws it on (steps.ts
 * `accepted`), and anything else thrown (a lost connection) fails the attempt and is retried.
 */
export type Refusable<T> = { done: T; refused?: never } | { refused: RefusalData; done?: never };

/** Runs `work`, returning a refusal of the area's class (`kind`) as data instead of throwing it. */
export async function refusable<T>(
  kind: abstract new (...args: never[]) => Refusal,
  work: () => Promise<T>,
): Promise<Refusable<T>> {
  try {
    return { done: await work() };
  } catch (error) {
    if (!(error instanceof kind)) throw error;
    const { status, code, message, details } = error;
    return { refused: { status, code, message, ...(details ? { details } : {}) } };
  }
}
