import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

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
  if (/(search|booking)-floor-server\.ts/.test(commandLine)) return 'HTTP floor';
  return undefined;
}

/**
 * Every process's command line and CPU time (user + system) so far. A process that ends between
 * listing and reading is left out. Empty where /proc is missing.
 */
function processes(): { pid: number; commandLine: string; seconds: number }[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found = [];
  for (const pid of pids) {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
      found.push({ pid: Number(pid), commandLine, seconds });
    } catch {
      // The process ended between listing and reading.
    }
  }
  return found;
}

/**
 * A snapshot of CPU time per process of the stack. A process that ends between two snapshots
 * takes its time with it; the pools here keep their connections for the whole run, so little is
 * lost.
 */
export function cpuSnapshot(): CpuByPart {
  const parts: CpuByPart = new Map();
  for (const { pid, commandLine, seconds } of processes()) {
    const part = partOf(pid, commandLine);
    if (part) parts.set(pid, { part, seconds });
  }
  return parts;
}

/** CPU seconds so far of the PostgreSQL backends connected to `database` (their title names it), by pid. */
function databaseBackendsCpu(database: string): Map<number, number> {
  const backends = new Map<number, number>();
  for (const { pid, commandLine, seconds } of processes()) {
    if (commandLine.startsWith('postgres: ') && commandLine.includes(` ${database} `))
      backends.set(pid, seconds);
  }
  return backends;
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

export interface PhaseCpuOptions {
  /** Decimals of each figure (default 1). */
  digits?: number;
  /**
   * Also the PostgreSQL backends connected to this database alone (`PostgreSQL, <database> only ms`):
   * on a shared server the PostgreSQL column also counts other databases' work and the background
   * writers.
   */
  database?: string;
}

/**
 * Runs `phase` and measures the CPU it cost per unit of work (`unitsOf` its result): each part of
 * the stack, then the whole machine: `machine busy ms` (every process and the kernel), `machine
 * capacity ms` (cores × the phase's wall time) and `stolen ms` (time the host gave to other
 * machines). Busy near capacity means the phase was bound by the CPU; busy well above the parts'
 * total means something outside the stack took its share.
 */
export async function measureCpu<T>(
  phase: () => Promise<T>,
  unitsOf: (result: T) => number,
  options: PhaseCpuOptions = {},
): Promise<{ result: T; cpu: Record<string, number> }> {
  const digits = options.digits ?? 1;
  const { database } = options;
  const backendsBefore = database ? databaseBackendsCpu(database) : new Map<number, number>();
  const [partsBefore, machineBefore, startedAt] = [cpuSnapshot(), machineCpu(), performance.now()];
  const result = await phase();
  const seconds = (performance.now() - startedAt) / 1000;
  const [partsAfter, machineAfter] = [cpuSnapshot(), machineCpu()];
  const units = Math.max(unitsOf(result), 1);
  const perUnit = (cpuSeconds: number) => Number(((cpuSeconds * 1000) / units).toFixed(digits));
  const cpu = cpuPerUnit(partsBefore, partsAfter, units, digits);
  if (database) {
    let spent = 0;
    for (const [pid, cpuSeconds] of databaseBackendsCpu(database)) {
      spent += cpuSeconds - (backendsBefore.get(pid) ?? 0);
    }
    cpu[`PostgreSQL, ${database} only ms`] = perUnit(spent);
  }
  cpu['machine busy ms'] = perUnit(machineAfter.busy - machineBefore.busy);
  cpu['machine capacity ms'] = perUnit(seconds * availableParallelism());
  cpu['stolen ms'] = perUnit(machineAfter.stolen - machineBefore.stolen);
  return { result, cpu };
}
