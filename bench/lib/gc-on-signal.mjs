// Preloaded (`node --import`, through NODE_OPTIONS) into a gateway by
// bench/telemetry-profile.mjs --gc: counts the garbage collector's pauses by kind (the
// main thread's, as perf_hooks reports them), and on SIGUSR2 appends one JSON line to
// GC_STATS_FILE with the counts and durations so far, the process's CPU time and its
// thread CPU split, so that the harness can difference two readings around a window.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const acc = { minor: [0, 0], major: [0, 0], other: [0, 0] };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const k =
      e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR
        ? 'minor'
        : e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR
          ? 'major'
          : 'other';
    acc[k][0]++;
    acc[k][1] += e.duration;
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => {
  const u = process.cpuUsage();
  const threads = {};
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const key = tid === String(process.pid) ? 'main' : name;
      threads[key] = (threads[key] ?? 0) + (Number(f[11]) + Number(f[12])) * 10;
    }
  } catch {
    // not Linux
  }
  appendFileSync(
    process.env.GC_STATS_FILE,
    JSON.stringify({ t: Date.now(), cpuUs: u.user + u.system, gc: acc, threadsMs: threads }) + '\n',
  );
});
