import type { Refusable, Refusal } from '../domain/refusal.js';

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
