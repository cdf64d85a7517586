import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createInterface } from 'node:readline';

const COLORS = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m', '\x1b[34m'];
let nextColor = 0;

export interface Managed {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** Starts a child whose every output line is prefixed with its name, e.g. "[api] ...". */
export function startPrefixed(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions = {},
): Managed {
  const color = process.stdout.isTTY ? COLORS[nextColor++ % COLORS.length]! : '';
  const reset = color ? '\x1b[0m' : '';
  const prefix = `${color}[${name}]${reset} `;
  // Own process group: a terminal's Ctrl-C reaches only the stack runner, which stops children in order.
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(prefix + line + '\n'));
  }
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.on('error', (error) => {
      process.stdout.write(`${prefix}failed to start: ${error.message}\n`);
      resolve(1);
    });
  });
  return { name, child, exited };
}

/** Asks a child to stop (SIGINT, then SIGTERM, then SIGKILL) and waits for it. */
export async function stop(managed: Managed, graceMs = 8000): Promise<void> {
  const { child, exited } = managed;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGTERM'), graceMs);
  const killer = setTimeout(() => child.kill('SIGKILL'), graceMs * 2);
  await exited;
  clearTimeout(timer);
  clearTimeout(killer);
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000}s`);
}
