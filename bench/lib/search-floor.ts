import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFloorProcess } from './floor-process.js';

export interface SearchFloor {
  url: string;
  /** Bytes of the floor's answers to the bodies, each sent once, on average. */
  answerBytes: number;
  stop(): Promise<void>;
}

/**
 * Starts the search's HTTP floor (search-floor-server.ts) in its own process, as the API runs in
 * its own: the rate a bare Node HTTP endpoint reaches over the same SQL on this machine, against
 * which the API's own share of the cost is read.
 */
export async function startSearchFloor(
  databaseUrl: string,
  pool: number,
  table: { body: string; statement: { name: string; text: string; values: unknown[] } }[],
): Promise<SearchFloor> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-search-floor-'));
  const tablePath = join(dir, 'table.json');
  writeFileSync(tablePath, JSON.stringify(table));
  const floor = await startFloorProcess('search-floor-server.ts', [tablePath], {
    DATABASE_URL: databaseUrl,
    BENCH_POOL: String(pool),
  });
  const url = floor.url;
  const answerBytes = await meanAnswerBytes(
    url,
    table.map((entry) => entry.body),
  );
  return {
    url,
    answerBytes,
    async stop() {
      await floor.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The mean size of the answers to `bodies`, each POSTed once to `url` (200 expected): what a
 * benchmark of these searches moves per answer, over the whole sample rather than its first search.
 */
export async function meanAnswerBytes(url: string, bodies: string[]): Promise<number> {
  let total = 0;
  for (const body of bodies) {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (answer.status !== 200) throw new Error(`${url} answered ${answer.status} to ${body}`);
    total += (await answer.arrayBuffer()).byteLength;
  }
  return Math.round(total / bodies.length);
}
