import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createInterface } from 'node:readline';

/**
 * A process a drill started: every output line is kept (drills read the API's log), and echoed
 * with the process's name when DRILL_VERBOSE=1.
 */
export interface DrillChild {
  name: string;
  child: ChildProcess;
  pid: number;
  lines: string[];
  /** Resolves with the exit code (null when a signal ended it) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  running(): boolean;
  /** The first output line (from `from` on) that matches, waiting up to timeoutMs for it. */
  waitForLine(pattern: RegExp, timeoutMs?: number, from?: number): Promise<string>;
}

export function spawnChild(
  name: string,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): DrillChild {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (process.env.DRILL_VERBOSE === '1') process.stdout.write(`[${name}] ${line}\n`);
      for (const listener of listeners) listener();
    });
  }
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
      for (const listener of listeners) listener();
    });
  });
  return {
    name,
    child,
    pid: child.pid!,
    lines,
    exited,
    running: () => !done,
    waitForLine(pattern, timeoutMs = 60_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.slice(from).find((line) => pattern.test(line));
          if (found !== undefined) finish(() => resolve(found));
          else if (done) finish(() => reject(new Error(`${name} exited before printing ${pattern}`)));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`${name} printed no ${pattern} in ${timeoutMs} ms`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Sends `signal` and waits for the exit; SIGKILL after killAfterMs if it is still running. */
export async function stopChild(
  process_: DrillChild,
  signal: NodeJS.Signals = 'SIGTERM',
  killAfterMs = 20_000,
): Promise<void> {
  if (!process_.running()) return;
  process_.child.kill(signal);
  const timer = setTimeout(() => process_.child.kill('SIGKILL'), killAfterMs);
  await process_.exited;
  clearTimeout(timer);
}

/**
 * Where a drill starts looking for a free port above `base`: each vitest worker (VITEST_POOL_ID)
 * has its own band of 50, so two drill files starting at once never pick the same port.
 */
export function drillPortBase(base: number): number {
  return base + Number(process.env.VITEST_POOL_ID ?? 0) * 50 + randomInt(0, 10);
}
