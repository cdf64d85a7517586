import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { drillPortBase } from '../drills/support/child.js';

/**
 * README "Logs": every process writes JSON lines, and a failure is a concise line, never a stack.
 * An error nothing caught (here a start-up step that fails for real: PostgreSQL without TLS under
 * sslmode=require, or a refused setting) made Node print its stack on standard error and exit. Each
 * process (the API's, the primary of API_PROCESSES, the worker) now logs one fatal JSON line with
 * the error's message and code and exits 1, so its supervisor starts another; nothing keeps running.
 */
const root = join(import.meta.dirname, '..', '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` (through tsx, as the launchers do) until it exits, at most 60 s. */
function runToExit(script: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ...run });
    }),
  );
}

const parsed = (line: string): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};
const lines = (text: string) => text.split('\n').filter(Boolean);

/**
 * What a failed process left: its exit code, its fatal JSON lines (of `stream`), and every line that
 * looks like a stack: not JSON and a frame, an error's name or the caret under the throwing line, or
 * a JSON line carrying frames.
 */
function outcome(run: Run, stream: 'stdout' | 'stderr') {
  const stackLike = (line: string) =>
    parsed(line) === undefined ? /^\s+at |Error|^\s*\^/.test(line) : /\\n\s+at /.test(line);
  return {
    code: run.code,
    fatal: lines(run[stream])
      .map(parsed)
      .filter((line) => line?.level === 60),
    stack: [...lines(run.stdout), ...lines(run.stderr)].filter(stackLike),
  };
}

/** The DATABASE_URL of the run, asking for TLS of a server that offers none: refused at connect. */
function tlsRequiredDatabaseUrl(): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.set('sslmode', 'require');
  return url.toString();
}

const fatalLine = (name: string, reason: RegExp, more: Record<string, unknown> = {}) =>
  expect.objectContaining({
    level: 60,
    name,
    msg: 'uncaught error; exiting',
    reason: expect.stringMatching(reason),
    ...more,
  });

describe('a process an error nothing caught ends', { timeout: 90_000 }, () => {
  it('the API (api/server.ts): one fatal JSON line with the reason, no stack, exit 1', async () => {
    const port = await freePort(drillPortBase(5800), 40);
    const run = await runToExit('api/server.ts', {
      PORT: String(port),
      DATABASE_URL: tlsRequiredDatabaseUrl(),
    });
    expect(outcome(run, 'stdout')).toEqual({
      code: 1,
      fatal: [fatalLine('api', /SSL/)],
      stack: [],
    });
  });

  it('the primary of API_PROCESSES=2 (api/cluster.ts), refusing a setting: one fatal JSON line naming it, no stack, exit 1', async () => {
    const run = await runToExit('api/cluster.ts', { API_PROCESSES: '2', PORT: '70000' });
    // The primary's lines go to standard error (api/cluster.ts); it started no process.
    expect({ ...outcome(run, 'stderr'), stdout: run.stdout }).toEqual({
      code: 1,
      fatal: [fatalLine('api-primary', /Invalid configuration:\n {2}PORT: /)],
      stack: [],
      stdout: '',
    });
  });

  it('the Temporal worker (worker/main.ts): one fatal JSON line with the reason, no stack, exit 1', async () => {
    const run = await runToExit('worker/main.ts', { DATABASE_URL: tlsRequiredDatabaseUrl() });
    expect(outcome(run, 'stdout')).toEqual({
      code: 1,
      fatal: [fatalLine('worker', /SSL/)],
      stack: [],
    });
  });

  it.each([
    ['throw', 'uncaughtException'],
    ['reject', 'unhandledRejection'],
  ])(
    'a running process whose timer fails (%s): its last line is the fatal one, with the error code and the line that threw',
    async (fail, origin) => {
      const run = await runToExit('test/support/throwing-process.ts', { FAIL: fail });
      const logged = lines(run.stdout).map(parsed);
      expect({ ...outcome(run, 'stdout'), messages: logged.map((line) => line?.msg) }).toEqual({
        code: 1,
        fatal: [
          fatalLine('throwing', new RegExp(`^failed by the test \\(${fail}\\)$`), {
            origin,
            errorName: 'TypeError',
            code: 'ETEST',
            thrownAt: expect.stringMatching(/throwing-process\.ts:\d+:\d+/),
          }),
        ],
        stack: [],
        messages: ['serving', 'uncaught error; exiting'],
      });
    },
  );
});
