import type { World } from './world.js';

/**
 * How the checks read while background work goes on: decision deadlines cancel requests (their
 * journey-confirmation process, the worker's sweep), hold and seat lock expiries free seats at a
 * moment no writer marks (the sweep writes them EXPIRED later), and other test files of a CI run
 * share the worker. Two reads at different moments may then each be right and still disagree, so
 * a check compares only figures read at one moment: one snapshot for what the database alone says,
 * and an answer of the API bracketed by two equal recounts for what the API shows.
 */

/** Where a check's SQL runs: the pool, or the snapshot transaction of `inOneSnapshot`. */
export interface Reader {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
}

/**
 * Runs `work` in one read-only REPEATABLE READ transaction: all its statements see the database
 * as it was at the first one, and now() is that transaction's start, so a release committed
 * between two of its statements is seen by neither.
 */
export function inOneSnapshot<T>(world: World, work: (read: Reader) => Promise<T>): Promise<T> {
  return world.app.db.transaction(
    (client) =>
      work({
        query: async <Row>(sql: string, params: unknown[] = []) =>
          (await client.query(sql, params)).rows as Row[],
      }),
    { readOnlySnapshot: true },
  );
}

/** How many times an answer is asked again while the database keeps changing under it. */
const LOOKS = 6;

/**
 * The API's answer together with a recount of the database taken both just before and just after
 * it: when the two recounts are equal nothing the answer depends on changed while it was made, so
 * the answer must equal that recount. When they differ, something changed in between and both are
 * taken again. A permanent disagreement therefore still shows; after LOOKS unsettled tries the last
 * pair is returned with `settled` false, and the caller reports it.
 */
export async function answerBetweenRecounts<Recount, Shown>(
  what: string,
  recount: () => Promise<Recount>,
  ask: () => Promise<Shown>,
): Promise<{ shown: Shown; recount: Recount; settled: boolean }> {
  for (let look = 1; ; look++) {
    const before = await recount();
    const shown = await ask();
    const after = await recount();
    const settled = JSON.stringify(before) === JSON.stringify(after);
    if (settled || look >= LOOKS) return { shown, recount: after, settled };
    // Shown in the run's output: how often background work moved the figures under a check.
    console.log(`[invariants] ${what} changed while read (look ${look}), reading again`);
    await new Promise((resolve) => setTimeout(resolve, 100 * look));
  }
}
