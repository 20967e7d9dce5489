// A group of the bench: a floor and its subjects under the same closed-loop load, taking
// turns (A B A B) for the run's repetitions; each subject's rps is divided by the
// floor's rps of the same repetition. And the table that reports one.
import { performance } from 'node:perf_hooks';
import { loadWindow, verifyAnswer } from '../lib/load-window.mjs';
import { f0, f2, range, stats } from '../lib/stats.mjs';
import { markdownTable } from './markdown-table.mjs';

/** One window of load in its own autocannon process; server CPU per request beside it. */
function load(ctx, target, duration, serverPid) {
  return loadWindow(target.request, {
    connections: ctx.connections,
    duration,
    serverPid,
    cpu: ctx.loadCpu,
    what: target.name,
    rate: target.rate,
  });
}

/** The floor of a group: `server` ({child}) answering `request` with a body `expect` matches. */
export const floorOf = (name, server, request, expect) => ({
  name,
  pid: server.child.pid,
  request,
  expect,
});

/** Checks one answer of `target` before it is measured: right status, right content. */
export function verify(target) {
  return verifyAnswer(target.request, target.expect, target.name);
}

/**
 * A target is {name, pid, request, expect, target?, reference?, rate?}: `target` is the
 * ratio to the floor it should reach, a `reference` is measured but has none; `rate` paces
 * its load to that many requests a second (closed loop without it).
 */
export async function runGroup(ctx, name, floor, subjects) {
  const all = [floor, ...subjects];
  for (const t of all) await verify(t);
  for (const t of all) await load(ctx, t, ctx.warmupS, undefined);
  const runs = new Map(all.map((t) => [t.name, []]));
  for (let rep = 0; rep < ctx.reps; rep++) {
    for (const t of all) {
      if (performance.now() - ctx.sectionStarted > ctx.deadlineMs)
        throw new Error(`the section went past its ${ctx.deadlineMs / 60_000}-minute bound`);
      const r = await load(ctx, t, ctx.duration, t.pid);
      runs.get(t.name).push(r);
      ctx.log(
        `${name} rep ${rep + 1}: ${t.name} ${r.rps.toFixed(0)} rps, p50 ${r.p50} ms, p99 ${r.p99} ms`,
      );
    }
  }
  const floorRuns = runs.get(floor.name);
  return all.map((t) => {
    const rs = runs.get(t.name);
    return {
      name: t.name,
      role: t === floor ? 'floor' : 'subject',
      ...(t.target !== undefined && { target: t.target }),
      ...(t.reference && { reference: t.reference }),
      rps: stats(rs.map((r) => r.rps)),
      // Closed loop: the mean latency is connections ÷ throughput (Little's law), which
      // is exact where autocannon's histogram only has whole milliseconds. A paced load
      // is not a closed loop: no mean (–).
      meanMs: t.rate ? undefined : stats(rs.map((r) => (ctx.connections / r.rps) * 1000)),
      p50Ms: stats(rs.map((r) => r.p50)),
      p99Ms: stats(rs.map((r) => r.p99)),
      cpuUsPerReq: stats(rs.map((r) => r.cpuUsPerReq)),
      ratio: t === floor ? undefined : stats(rs.map((r, i) => r.rps / floorRuns[i].rps)),
      cpuRatio:
        t === floor ? undefined : stats(rs.map((r, i) => floorRuns[i].cpuUsPerReq / r.cpuUsPerReq)),
      runs: rs,
    };
  });
}

/** "met" or "**missed**" for a median against a target: at least `min`, or under `max`. */
export function verdict(s, { min, max }) {
  if (s === undefined) return '';
  if (min !== undefined) return s.median >= min ? `met (≥ ${min})` : `**missed** (target ≥ ${min})`;
  return s.median < max ? `met (< ${max})` : `**missed** (target < ${max})`;
}

/** The markdown table of a group's results, then `extra()` as a paragraph. */
export function groupTable(title, section, extra = () => '') {
  const lines = [
    `### ${title}`,
    '',
    ...markdownTable(
      [
        'server',
        'rps',
        'mean ms',
        'p50 ms',
        'p99 ms',
        'server CPU µs/req',
        'rps ratio to floor',
        'CPU/req ratio (floor ÷ this)',
        'target',
      ],
      section.results.map((r) => [
        r.name,
        range(r.rps, f0),
        range(r.meanMs, f2),
        range(r.p50Ms, f0),
        range(r.p99Ms, f0),
        range(r.cpuUsPerReq, f0),
        r.ratio ? range(r.ratio, f2) : 'floor',
        r.cpuRatio ? range(r.cpuRatio, f2) : '',
        r.target !== undefined
          ? verdict(r.ratio, { min: r.target })
          : r.reference
            ? 'reference'
            : '',
      ]),
    ),
  ];
  const x = extra();
  return [...lines, ...(x ? ['', x] : []), ''].join('\n');
}
