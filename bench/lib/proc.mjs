// What Linux's /proc says about a process, for the bench, the soak and the tests that
// measure the gateway as a process: CPU time, memory, descriptors and the process tree.
// Each reader answers undefined (or NaN) once the process is gone, or off Linux.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

export const MB = 1024 * 1024;

/** USER_HZ, the clock ticks per second of /proc/<pid>/stat: 100 on Linux. */
const TICKS_PER_S = 100;

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces and
 * parentheses): [0] state, [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime.
 */
export function statFields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * utime + stime of a process, in ms; with `children`, also the time of the children it
 * waited for (so a finished initdb counts too).
 */
export function cpuMs(pid, { children = false } = {}) {
  const f = statFields(pid);
  if (!f) return undefined;
  const ticks = [11, 12, ...(children ? [13, 14] : [])].reduce((n, i) => n + Number(f[i]), 0);
  return (ticks * 1000) / TICKS_PER_S;
}

/** CPU time of every thread of the process (main, GC helpers, libuv pool), in ns. */
export function cpuNs(pid) {
  let total = 0;
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    // gone: no time
  }
  for (const task of tasks) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return total;
}

/** A `Key:  N kB` line of /proc/<pid>/status, in kB. */
export function statusKb(pid, key) {
  try {
    const m = new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The resident set now, in MB. */
export function rssMb(pid) {
  const kb = statusKb(pid, 'VmRSS');
  return kb === undefined ? undefined : kb / 1024;
}

/** Resident set now and its peak since start or the last resetPeak (bytes), and open descriptors. */
export function procStatus(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]);
    return {
      rss: kb('VmRSS') * 1024,
      hwm: kb('VmHWM') * 1024,
      fds: readdirSync(`/proc/${pid}/fd`).length,
    };
  } catch {
    return undefined;
  }
}

/** Resets the peak resident set (VmHWM) to the current one (Linux clear_refs 5). */
export function resetPeak(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Whether the process exists and is not a zombie. */
export function isAlive(pid) {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

/** Every pid in the tree under `pid`, itself first, then breadth-first from /proc's parent links. */
export function processTree(pid) {
  const parent = new Map();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const ppid = statFields(e)?.[1];
    if (ppid !== undefined) parent.set(Number(e), Number(ppid));
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const [p, pp] of parent) if (pp === out[i]) out.push(p);
  return out;
}
