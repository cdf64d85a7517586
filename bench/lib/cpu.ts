import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds used so far by each process of the stack (by pid, with its part), from /proc (Linux). */
export type CpuByPart = Map<number, { part: string; seconds: number }>;

const CLOCK_TICKS_PER_SECOND = 100;

/** Which part of the stack a process is, from its command line; undefined for other processes. */
function partOf(pid: number, commandLine: string): string | undefined {
  if (pid === process.pid) return 'load generator';
  if (commandLine.includes('temporal') && commandLine.includes('start-dev')) return 'Temporal server';
  if (commandLine.startsWith('postgres')) return 'PostgreSQL';
  if (commandLine.includes('api/server.ts') || commandLine.includes('api/cluster.ts')) return 'API';
  if (commandLine.includes('worker/main.ts')) return 'worker';
  if (commandLine.includes('search-floor-server.ts')) return 'HTTP floor';
  return undefined;
}

/**
 * A snapshot of CPU time (user + system) per process of the stack. A process that ends between
 * two snapshots takes its time with it; the pools here keep their connections for the whole
 * run, so little is lost. Empty where /proc is missing.
 */
export function cpuSnapshot(): CpuByPart {
  const parts: CpuByPart = new Map();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return parts;
  }
  for (const pid of pids) {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const part = partOf(Number(pid), commandLine);
      if (!part) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
      parts.set(Number(pid), { part, seconds });
    } catch {
      // The process ended between listing and reading.
    }
  }
  return parts;
}

/**
 * The whole machine's CPU seconds so far, every core, from /proc/stat: `busy` (every process and
 * the kernel's interrupt work; idle and I/O wait excluded) and `stolen` (time the hypervisor gave
 * to other machines). Beside the stack's parts, `busy` shows what went to processes outside the
 * stack; `stolen` shows a noisy neighbour. NaN where /proc/stat is missing.
 */
export function machineCpu(): { busy: number; stolen: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return {
      busy: (user! + nice! + system! + irq! + softirq!) / CLOCK_TICKS_PER_SECOND,
      stolen: steal! / CLOCK_TICKS_PER_SECOND,
    };
  } catch {
    return { busy: Number.NaN, stolen: Number.NaN };
  }
}

/** CPU milliseconds per unit of work (a journey) for each part, between two snapshots, to `digits` decimals. */
export function cpuPerUnit(
  before: CpuByPart,
  after: CpuByPart,
  units: number,
  digits = 1,
): Record<string, number> {
  const spent = new Map<string, number>();
  for (const [pid, { part, seconds }] of after) {
    spent.set(part, (spent.get(part) ?? 0) + seconds - (before.get(pid)?.seconds ?? 0));
  }
  const row: Record<string, number> = {};
  let total = 0;
  for (const [part, seconds] of [...spent].sort(([a], [b]) => a.localeCompare(b))) {
    const milliseconds = (seconds * 1000) / Math.max(units, 1);
    row[`${part} ms`] = Number(milliseconds.toFixed(digits));
    total += milliseconds;
  }
  row['total ms'] = Number(total.toFixed(digits));
  return row;
}
