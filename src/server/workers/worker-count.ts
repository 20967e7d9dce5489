/**
 * `serve --workers N|auto`: how many serving processes. `auto` is the CPUs this process
 * may use: the affinity mask (os.availableParallelism) and, in a container, the cgroup's
 * CPU quota, which Node 20's availableParallelism does not read — a pod limited to 2 CPUs
 * on a 64-core node must run 2 workers, not 64.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** More workers than this is a typo, not a machine (each one holds a whole gateway). */
export const MAX_WORKERS = 256;

/** The whole CPUs a cgroup quota allows (rounded up), or undefined when there is none. */
export function cgroupCpus(
  read: (path: string) => string | undefined = readText,
): number | undefined {
  // cgroup v2: "max 100000" (no limit) or "<quota> <period>" in microseconds.
  const v2 = read('/sys/fs/cgroup/cpu.max');
  if (v2 !== undefined) {
    const [quota, period] = v2.trim().split(/\s+/);
    return quotaCpus(Number(quota), Number(period));
  }
  // cgroup v1: the quota is -1 when there is no limit.
  const quota = read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us');
  const period = read('/sys/fs/cgroup/cpu/cpu.cfs_period_us');
  if (quota === undefined || period === undefined) return undefined;
  return quotaCpus(Number(quota), Number(period));
}

function quotaCpus(quota: number, period: number): number | undefined {
  if (!(quota > 0 && period > 0)) return undefined;
  return Math.max(1, Math.ceil(quota / period));
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The CPUs this process may use: the smaller of its affinity and its cgroup quota. */
export function usableCpus(
  affinity: number = availableParallelism(),
  quota: number | undefined = cgroupCpus(),
): number {
  return Math.max(1, quota === undefined ? affinity : Math.min(affinity, quota));
}

/** The number of workers `--workers` asks for, or a message saying what it takes. */
export function parseWorkers(text: string, cpus: () => number = usableCpus): number | string {
  if (text === 'auto') return cpus();
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS))
    return `--workers takes a whole number from 1 to ${MAX_WORKERS}, or auto (the CPUs this process may use)`;
  return n;
}
