import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../../scripts/lib/services.js';

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
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(projectRoot, 'bench/lib/search-floor-server.ts'), tablePath],
    {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl, BENCH_POOL: String(pool) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the search floor server exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const answerBytes = await meanAnswerBytes(
    url,
    table.map((entry) => entry.body),
  );
  return {
    url,
    answerBytes,
    async stop() {
      child.removeAllListeners('exit');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
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
