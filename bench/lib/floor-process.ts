import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../../scripts/lib/services.js';

export interface FloorProcess {
  url: string;
  /** Its process id, for the CPU it spends. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts an HTTP floor (a bare node:http endpoint over the same work as an API route, in
 * bench/lib/) in its own process, as the API runs in its own, and waits for its "listening <port>".
 */
export async function startFloorProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<FloorProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(projectRoot, 'bench/lib', script), ...args],
    {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the floor server ${script} exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      child.removeAllListeners('exit');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
