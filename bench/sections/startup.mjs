// Section 5 of `npm run bench`: process start to /readyz 200 and the idle RSS of
// generated specs of 10, 500 and 5,000 grants, beside node + bare fastify from process
// start to its first answer (the floor); issue 40's targets: 5,000 grants ready within
// 2.5× the time of 10, and idle at ≤ 150 MB. Those targets are read with the gateway's
// warm-up off (MCP_BEAVER_WARM_UP=off: the cold start itself); each spec is also started
// with it on (500, as the image and the chart set it), taking turns, so the report says what the warm-up adds.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stop } from '../lib/processes.mjs';
import { cpuMs, rssMb } from '../lib/proc.mjs';
import { sleep } from '../lib/sleep.mjs';
import { f0, f1, range, stats } from '../lib/stats.mjs';
import { verdict } from './group.mjs';
import { markdownTable } from './markdown-table.mjs';

const GRANTS = [10, 500, 5000];
/** MCP_BEAVER_WARM_UP of each start: off (the targets' figures), then the image's 500. */
const WARM_UP = ['off', '500'];
/** Idle: the validators are warmed after readiness, in slices; RSS is read once they are. */
const IDLE_AFTER_MS = 3000;

async function run(ctx, { work, db }) {
  const { tsImport } = await import('tsx/esm/api');
  const { generateSpec } = await tsImport('../generate-spec.ts', import.meta.url);
  const out = [];
  /** The same starts with the warm-up on: reported beside, not in the targets. */
  const warm = [];
  // The floor: node + fastify from process start to its first answer.
  const floorMs = [];
  const bodyFile = join(work, 'empty.json');
  writeFileSync(bodyFile, '{}');
  for (let i = 0; i < ctx.reps; i++) {
    const t0 = performance.now();
    const s = await ctx.startScript('floor-tools-list.mjs', { BODY_FILE: bodyFile }, 'floor start');
    floorMs.push(performance.now() - t0);
    await stop(s.child);
  }
  for (const n of GRANTS) {
    const spec = join(work, `generated-${n}.mcp.kdl`);
    writeFileSync(spec, generateSpec(n));
    const rows = WARM_UP.map((warmUp) => ({ warmUp, ready: [], readyCpu: [], rss: [] }));
    for (let i = 0; i < ctx.reps; i++) {
      for (const row of rows) {
        const gw = await ctx.startGateway(spec, {
          env: { DATABASE_URL: db.url, BENCH_TOKEN: 'bench-token', MCP_BEAVER_WARM_UP: row.warmUp },
        });
        row.ready.push(gw.readyMs);
        // On a shared machine wall time swings with the load; the server's own CPU to
        // readiness does not.
        row.readyCpu.push(cpuMs(gw.child.pid));
        await sleep(IDLE_AFTER_MS);
        row.rss.push(rssMb(gw.child.pid));
        await stop(gw.child);
      }
    }
    for (const r of rows) {
      const row = {
        grants: n,
        warmUp: r.warmUp === 'off' ? 'off' : r.warmUp,
        readyMs: stats(r.ready),
        readyCpuMs: stats(r.readyCpu),
        rssIdleMb: stats(r.rss),
      };
      (row.warmUp === 'off' ? out : warm).push(row);
      ctx.log(
        `start-up ${n} grants, warm-up ${row.warmUp}: ready ${row.readyMs.median.toFixed(0)} ms, idle RSS ${row.rssIdleMb.median.toFixed(1)} MB`,
      );
    }
  }
  // Per repetition would pair unrelated starts; the medians' ratio is the figure.
  const first = out[0];
  const last = out[out.length - 1];
  const readyRatio = last.readyMs.median / first.readyMs.median;
  const cpuRatio = last.readyCpuMs.median / first.readyCpuMs.median;
  return {
    floorFastifyFirstAnswerMs: stats(floorMs),
    specs: out,
    warmSpecs: warm,
    readyRatio,
    cpuRatio,
    largest: last,
  };
}

function report(s) {
  return [
    '### 5. Start-up: process start to /readyz 200 (generated specs)',
    '',
    "Targets read with the warm-up off (MCP_BEAVER_WARM_UP=off, the default); the image's warm-up of 500 beside.",
    '',
    ...markdownTable(
      ['grants', 'warm-up', 'ready ms', 'CPU to ready ms', 'idle RSS MB', 'target'],
      [...s.specs, ...(s.warmSpecs ?? [])].map((r) => [
        r.grants,
        r.warmUp ?? 'off',
        range(r.readyMs, f0),
        r.readyCpuMs ? range(r.readyCpuMs, f0) : '-',
        range(r.rssIdleMb, f1),
        r.warmUp !== undefined && r.warmUp !== 'off'
          ? '-'
          : `${r.grants === 500 ? `ready ${verdict(r.readyMs, { max: 300 })}; ` : ''}RSS ${verdict(r.rssIdleMb, { max: 80 })}`,
      ]),
    ),
    '',
    `Floor: node + bare fastify, process start to first answer: ${range(s.floorFastifyFirstAnswerMs, f0)} ms.`,
    '',
    ...(s.readyRatio === undefined
      ? []
      : [
          `${s.largest.grants} grants ÷ ${s.specs[0].grants} grants (medians): ready ${s.readyRatio.toFixed(2)}, CPU to ready ${s.cpuRatio.toFixed(2)} (target ≤ 2.5); idle RSS of ${s.largest.grants} grants ${f1(s.largest.rssIdleMb.median)} MB (target ≤ 150).`,
          '',
        ]),
  ];
}

export const startupSection = {
  key: 'startup',
  label: 'start-up',
  database: 'required',
  run,
  report,
};
