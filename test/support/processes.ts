import { readFileSync } from 'node:fs';

/** The pids of a process's children, from /proc (none once it has gone). */
export function childrenOf(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return text ? text.split(' ').map(Number) : [];
  } catch {
    return [];
  }
}

/** Whether a process with this pid is running (signal 0 only asks). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
