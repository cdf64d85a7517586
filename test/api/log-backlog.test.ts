import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';

const root = join(import.meta.dirname, '..', '..');

/** Resident memory of a process, in bytes (from /proc). */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `n` requests to /healthz, 32 at a time: one log line each. */
async function burst(port: number, n: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next++ < n) expect(await get(port, '/healthz')).toBe(200);
    }),
  );
}

/** The real API process with a 1 MiB log backlog; its standard output is the caller's to read. */
async function startApi(): Promise<{ child: ChildProcess; port: number; ready: Promise<void> }> {
  const port = await freePort(4600, 100);
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      LOG_BACKLOG_MAX_MB: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = (async () => {
    for (let started = Date.now(); !(await get(port, '/healthz').catch(() => 0));) {
      if (Date.now() - started > 60_000) throw new Error('the API did not start');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return { child, port, ready };
}

/** The lines of `output` that count dropped log lines, parsed. */
const dropReports = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.includes('log lines dropped while standard output'))
    .map((line) => JSON.parse(line));

/**
 * README "Logs": standard output is written asynchronously, and while nothing reads it (a log
 * collector down, a container runtime's blocking log mode behind a slow driver) at most
 * LOG_BACKLOG_MAX_MB of lines wait in the process's memory; later lines are dropped and counted, and
 * one line says how many once writing resumes. Before, every line waited: the API grew by every
 * request it logged until the reader came back or the process was killed for its memory.
 */
describe('API log while its standard output is not read', () => {
  let child: ChildProcess | undefined;
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const each of children) each.kill('SIGKILL');
    agent.destroy();
  });

  it('keeps at most LOG_BACKLOG_MAX_MB of lines in memory, and reports the lines it dropped', async () => {
    const started = await startApi();
    child = started.child;
    children.push(child);
    const { port } = started;
    let output = '';
    const reading = (chunk: Buffer) => (output += chunk.toString('utf8'));
    child.stdout!.on('data', reading);
    await started.ready;
    await burst(port, 5_000);
    const linesBeforeStall = output.split('\n').length - 1;

    // The reader stops: the pipe fills (64 KiB), then the backlog (1 MiB), then lines are dropped.
    child.stdout!.off('data', reading);
    child.stdout!.pause();
    const REQUESTS = 50_000;
    await burst(port, 2_000);
    const stallStart = rssOf(child.pid!);
    await burst(port, REQUESTS);
    const stallMiddle = rssOf(child.pid!);
    await burst(port, REQUESTS);
    const stallEnd = rssOf(child.pid!);

    // The reader comes back; one more request writes, and the count of what was dropped follows it.
    child.stdout!.on('data', reading);
    child.stdout!.resume();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await get(port, '/healthz')).toBe(200);
    const reports = async () => {
      for (let started = Date.now(); Date.now() - started < 20_000;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const lines = dropReports(output);
        if (lines.length) return lines;
      }
      return [];
    };
    const dropped = await reports();
    const delivered = output.split('\n').length - 1 - linesBeforeStall;

    // A full backlog stops growing: the second stalled burst costs far less than its lines (~10 MB).
    expect(stallMiddle - stallStart, 'first stalled burst').toBeLessThan(8 * 1048576);
    expect(stallEnd - stallMiddle, 'second stalled burst').toBeLessThan(4 * 1048576);
    // Nothing goes silently: every line logged while stalled was either written or counted.
    expect(dropped.length, 'lines counting dropped lines').toBeGreaterThan(0);
    expect(dropped.every((line) => line.level === 40 && line.droppedBytes > 0)).toBe(true);
    const droppedLines = dropped.reduce((sum, line) => sum + line.droppedLines, 0);
    expect(droppedLines).toBeGreaterThan(REQUESTS);
    expect(delivered + droppedLines).toBeGreaterThanOrEqual(2_000 + 2 * REQUESTS);
  }, 240_000);

  it('reports dropped lines while a reader slower than the process keeps the backlog full', async () => {
    const started = await startApi();
    child = started.child;
    children.push(child);
    const { port } = started;
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await started.ready;
    // A collector that takes one pipe's worth every 250 ms (about 256 KiB/s): slower than the API logs.
    child.stdout!.pause();
    const slowReader = setInterval(() => {
      child!.stdout!.resume();
      setImmediate(() => child!.stdout!.pause());
    }, 250);
    try {
      for (let round = 0; round < 8; round++) await burst(port, 10_000);
      const loadEnded = Date.now();
      // The count was logged while the load went on, not only once it stopped and the backlog emptied.
      let reports: { time: number; droppedLines: number }[] = [];
      for (const waitStarted = Date.now(); Date.now() - waitStarted < 30_000;) {
        reports = dropReports(output);
        if (reports.some((report) => report.time < loadEnded)) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(
        reports.filter((report) => report.time < loadEnded).map((report) => report.droppedLines > 0),
        'counts logged during the load',
      ).toContain(true);
    } finally {
      clearInterval(slowReader);
      child.stdout!.resume();
    }
  }, 240_000);
});
